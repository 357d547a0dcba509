-- This file does not compile (on purpose).
return {
  process = function(state)
    local x = = 1
  end,
}
