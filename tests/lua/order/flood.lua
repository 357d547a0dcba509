-- Sends args.count numbers to args.to in its first turn (more than the receiver's mailbox holds:
-- the send waits across frames), then reports the frame it finished in.
return {
  init = function(state, args)
    state.report, state.count, state.to = args.report, args.count, ona.lookup(args.to)
    state.turn = 0
  end,
  process = function(state)
    state.turn = state.turn + 1
    if state.done then return end
    for i = 1, state.count do ona.send(state.to, i) end
    state.done = true
    ona.send(state.report, "flood done", state.turn)
  end,
}
