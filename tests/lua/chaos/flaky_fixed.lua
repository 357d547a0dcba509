-- Chaos module, the fixed copy (copied over flaky.lua and reloaded): commands are ignored.
return {
  obey = function(command)
    return command
  end,
}
