-- Its exit sends ("bye", name) to args.report, with ona.send under pcall and with ona.try_send,
-- whatever state the runtime is in by then.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state) end,
  exit = function(state)
    pcall(ona.send, state.report, "bye", ona.name())
    ona.try_send(state.report, "bye", ona.name())
  end,
}
