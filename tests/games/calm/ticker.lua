return {
  init = function(state) state.n = 0 end,
  process = function(state)
    state.n = state.n + 1
    if state.n == 3 then io.stderr:write("ticking\n") end
  end,
}
