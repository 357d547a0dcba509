-- Sends 1, 2, 3... to the system named args.to with the blocking ona.send, forever, so it parks
-- once the target's mailbox is full. A send that fails is caught and reported as
-- ("send failed", name, message); from then on each turn reports ("alive", name, frame).
-- exit reports ("exit", name).
return {
  init = function(state, args)
    state.args = args
    state.to = ona.lookup(args.to)
    state.i = 0
  end,
  process = function(state)
    local a = state.args
    if state.failed then
      ona.send(a.report, "alive", ona.name(), ona.frame())
      return
    end
    while true do
      state.i = state.i + 1
      local ok, err = pcall(ona.send, state.to, state.i)
      if not ok then
        state.failed = true
        ona.send(a.report, "send failed", ona.name(), tostring(err))
        return
      end
    end
  end,
  exit = function(state)
    ona.send(state.args.report, "exit", ona.name())
  end,
}
