-- A module found by require() through the script roots.
return {
  twice = function(x)
    return 2 * x
  end,
}
