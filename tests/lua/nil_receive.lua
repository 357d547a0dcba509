-- Waits in receive with nothing coming: at quiescence it gets nil and reports that.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    local from = ona.receive()
    ona.send(state.report, "got", from == nil)
  end,
}
