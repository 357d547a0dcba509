-- Counts its turns; reports (name, count) to args.report each turn when given.
return {
  init = function(state, args)
    state.n = 0
    state.report = args and args.report
  end,
  process = function(state)
    state.n = state.n + 1
    if state.report then
      ona.send(state.report, ona.name(), state.n)
    end
  end,
}
