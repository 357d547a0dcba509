-- Grows a table without end.
return {
  process = function(state)
    state.t = state.t or {}
    for i = 1, 1e6 do
      state.t[#state.t + 1] = { i }
    end
  end,
}
