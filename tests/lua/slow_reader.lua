-- Takes at most one message per turn and forwards its value to args.report.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    local from, value = ona.try_receive()
    if from then
      ona.send(state.report, value)
    end
  end,
}
