-- Counts its turns; reports (name, count) to args.report each turn when given (and only for
-- the first args.limit turns when given).
return {
  init = function(state, args)
    state.n = 0
    state.report = args and args.report
    state.limit = args and args.limit
  end,
  process = function(state)
    state.n = state.n + 1
    if state.report and (not state.limit or state.n <= state.limit) then
      ona.send(state.report, ona.name(), state.n)
    end
  end,
}
