-- Takes at most one message per turn and forwards its value to args.report. It starts reading in
-- its second turn: in the first frame its turn and the flooder's may run at the same time on two
-- threads, and whether it found the first message there would decide how many frames the flood
-- takes (test_runtime compares that count on 1 and 2 threads).
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    if not state.started then
      state.started = true
      return
    end
    local from, value = ona.try_receive()
    if from then
      ona.send(state.report, value)
    end
  end,
}
