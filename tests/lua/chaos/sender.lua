-- Chaos worker (tests/test_chaos.c): each turn it obeys its commands ("fail" raises while the
-- broken flaky.lua is loaded), then try_sends args.burst numbered messages round-robin to the
-- sinks and reports to args.report ("sent", sink, n) the ones that went in. A turn fails before
-- its first send or not at all, and a try_send never waits, so a kill (at a frame boundary)
-- cannot fall between a send and its report.
return {
  init = function(state, args)
    state.args = args
    state.sinks = {}
    for k = 1, args.sinks do
      state.sinks[k] = assert(ona.lookup("sink" .. k))
    end
    state.seq = 0
  end,
  process = function(state)
    local a = state.args
    while true do
      local from, command = ona.try_receive()
      if from == nil then -- false: sent from C, outside any system
        break
      end
      require("flaky").obey(command)
    end
    local sent = {}
    for _ = 1, a.burst do
      state.seq = state.seq + 1
      local k = state.seq % #state.sinks + 1
      if ona.try_send(state.sinks[k], a.id, state.seq, { seq = state.seq, tag = "chaos" }) then
        sent[k] = (sent[k] or 0) + 1
      end
    end
    for k, n in pairs(sent) do
      ona.send(a.report, "sent", k, n)
    end
  end,
}
