-- Chaos steady sender (never killed, never fails): each turn sends args.burst numbered messages
-- to the sinks with ona.send, waiting while a sink's mailbox is full, and reports each one to
-- args.report ("sent", sink, 1). "stop" ends its sending.
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
      state.stopped = state.stopped or command == "stop"
    end
    if state.stopped then
      return
    end
    for _ = 1, a.burst do
      state.seq = state.seq + 1
      local k = (state.seq + a.id) % #state.sinks + 1
      ona.send(state.sinks[k], a.id, state.seq)
      ona.send(a.report, "sent", k, 1)
    end
  end,
}
