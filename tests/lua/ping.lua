-- Ping-pong: bounces a counter with args.peer until it reaches args.rounds, then reports it.
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    local a = state.args
    if a.serve and not state.served then
      state.served = true
      ona.send(ona.lookup(a.peer), 1)
    end
    for from, n in ona.messages() do
      if n >= a.rounds then
        ona.send(a.report, n)
      else
        ona.send(from, n + 1)
      end
    end
  end,
}
