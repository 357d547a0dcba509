-- Sends 1 .. 5 to the system named args.peer with the blocking ona.send, once; nobody receives,
-- so with small mailboxes the peers deadlock. Reports ("send failed", name, message) or
-- ("sent all", name).
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local to = ona.lookup(state.args.peer)
    for i = 1, 5 do
      local ok, err = pcall(ona.send, to, i)
      if not ok then
        ona.send(state.args.report, "send failed", ona.name(), tostring(err))
        return
      end
    end
    ona.send(state.args.report, "sent all", ona.name())
  end,
}
