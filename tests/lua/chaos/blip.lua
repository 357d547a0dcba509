-- Chaos blip: lives a few turns (the spawner kills it); each turn try_sends one message to a
-- sink and reports it to args.report at once when it went in.
return {
  init = function(state, args)
    state.args = args
    state.n = args.seed
  end,
  process = function(state)
    local a = state.args
    state.n = state.n + 1
    local k = state.n % a.sinks + 1
    local sink = ona.lookup("sink" .. k)
    if sink and ona.try_send(sink, "blip", state.n) then
      ona.send(a.report, "sent", k, 1)
    end
  end,
}
