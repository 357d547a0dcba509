-- A link of bench_order's chain: each turn takes what the link before it sent (ona.messages())
-- and sends the last value plus one to args.next. The first link (args.first) starts from its
-- turn count; with args.check, the last link raises when what it got is not its turn count + 7
-- (each of the seven hops adds one), so an ordered chain that delivered a hop late counts an
-- error in the system's statistics.
return {
  init = function(state, args)
    state.next = args.next
    state.first = args.first
    state.check = args.check
    state.turn = 0
  end,
  process = function(state)
    local turn = state.turn + 1
    state.turn = turn
    local v
    for _, x in ona.messages() do
      v = x
    end
    if state.first then
      v = turn
    end
    local target = state.target
    if state.next and not target then
      target = ona.lookup(state.next)
      state.target = target
    end
    if target and v then
      ona.send(target, v + 1)
    elseif state.check and v ~= turn + 7 then
      error(string.format("chain: turn %d got %s, not %d", turn, tostring(v), turn + 7))
    end
  end,
}
