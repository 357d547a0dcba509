-- Sleeps, monitoring the system named args.watch: the runtime's notices wake it.
return {
  init = function(state, args)
    state.report = args.report
    ona.monitor(ona.lookup(args.watch))
  end,
  receive = function(state, from, what, h, reason)
    ona.send(state.report, "notice", from == ona.runtime, what, ona.name(h) or "?")
  end,
}
