-- Sends to a handle that was killed: try_send says why, send raises.
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local ok, why = ona.try_send(state.args.victim, 1)
    local sent, err = pcall(ona.send, state.args.victim, 1)
    ona.send(state.args.report, ok, why, sent, err)
  end,
}
