-- One link of a chain: the first link sends its turn number on; each next one adds one and
-- passes it along; the last reports (its turn number, the value) to args.report.
return {
  init = function(state, args)
    state.report, state.first, state.last = args.report, args.first, args.last
    state.next = args.next and ona.lookup(args.next)
    state.turn = 0
  end,
  process = function(state)
    state.turn = state.turn + 1
    if state.first then
      ona.send(state.next, state.turn)
      return
    end
    for _, v in ona.messages() do
      if state.last then
        ona.send(state.report, state.turn, v)
      else
        ona.send(state.next, v + 1)
      end
    end
  end,
}
