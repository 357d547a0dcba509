-- Its first turn runs args.ms milliseconds of CPU without yielding, then reports ("done", ms).
jit.off()
return {
  init = function(state, args) state.args = args end,
  process = function(state)
    if state.finished then return end
    local t0 = os.clock()
    while os.clock() - t0 < state.args.ms / 1000 do end
    state.finished = true
    ona.send(state.args.report, "done", state.args.ms)
  end,
}
