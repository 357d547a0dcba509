-- Counts its turns and says so at the last frame the test asks for.
return {
  init = function(state) state.n = 0 end,
  process = function(state)
    state.n = state.n + 1
    if state.n == 5 then
      print("alive turn 5")
    end
  end,
}
