-- A receiver that takes nothing before frame args.open_at (never, without it), so senders fill
-- its mailbox and park; from then on it drains its mailbox each turn and reports each value as
-- ("got", value, frame).
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    local a = state.args
    if not a.open_at or ona.frame() < a.open_at then
      return
    end
    for _, v in ona.messages() do
      ona.send(a.report, "got", v, ona.frame())
    end
  end,
}
