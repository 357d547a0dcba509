-- Spins for good in its third turn, after saying so on stderr (unbuffered, so that the test sees
-- it before it sends the signal).
return {
  init = function(state) state.n = 0 end,
  process = function(state)
    state.n = state.n + 1
    if state.n == 3 then
      io.stderr:write("spinning now\n")
      while true do end
    end
  end,
}
