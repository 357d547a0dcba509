-- Counts turns from init and reports the count; raises on the turn numbered args.fail_at.
return {
  init = function(state, args)
    state.n = 0
    state.args = args
    ona.send(args.report, "init")
  end,
  process = function(state)
    state.n = state.n + 1
    if state.n == state.args.fail_at then
      error("boom at turn " .. state.n)
    end
    ona.send(state.args.report, state.n)
  end,
}
