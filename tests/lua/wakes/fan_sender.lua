-- Fan-in (test_wakes): sends args.index * 100000 + i for i = 1..args.count to the system named
-- args.target in one turn, waiting in ona.send whenever its mailbox is full.
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    local a = state.args
    if state.done then
      return
    end
    state.done = true
    local to = ona.lookup(a.target)
    local base = a.index * 100000
    for i = 1, a.count do
      ona.send(to, base + i)
    end
  end,
}
