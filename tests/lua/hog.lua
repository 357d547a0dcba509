-- Grows a table without bound: its memory cap must stop it, and only it.
return {
  process = function(state)
    state.t = state.t or {}
    for i = 1, 1e7 do
      state.t[#state.t + 1] = { i, i, i }
    end
  end,
}
