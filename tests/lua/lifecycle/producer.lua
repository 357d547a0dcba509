-- Sends (args.tag, 1) .. (args.tag, args.n) to the system named args.to with the blocking
-- ona.send, at most 50 a turn. The first send of each turn is preceded by a try_send probe
-- (args.tag, -1), which fails when the mailbox is full: a refused try_send sends nothing.
return {
  init = function(state, args)
    state.args = args
    state.i = 0
  end,
  process = function(state)
    local a = state.args
    local to = ona.lookup(a.to)
    for k = 1, 50 do
      if state.i >= a.n then
        return
      end
      if k == 1 then
        ona.try_send(to, a.tag, -1)
      end
      state.i = state.i + 1
      ona.send(to, a.tag, state.i)
    end
  end,
}
