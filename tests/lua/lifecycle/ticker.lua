-- A bystander: counts its turns and does nothing else (its stats show it never missed one).
return {
  process = function(state)
    state.n = (state.n or 0) + 1
  end,
}
