-- receive for each message, then process, every frame: it does not sleep.
return {
  init = function(state, args)
    state.report, state.seen = args.report, 0
  end,
  receive = function(state, from, what, v)
    state.seen = state.seen + 1
  end,
  process = function(state)
    ona.send(state.report, "seen", ona.frame(), state.seen)
  end,
}
