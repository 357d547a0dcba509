-- Receives until quiescence each turn, reporting each value as ("got", value, frame).
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    for _, v in ona.messages() do
      ona.send(state.report, "got", v, ona.frame())
    end
  end,
}
