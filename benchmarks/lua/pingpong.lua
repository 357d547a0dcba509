-- Ping-pong through ona.send / ona.receive. Each frame the server sends hop 1 to args.peer;
-- each side answers every message with the next hop number until args.hops hops were made, then
-- both wait in receive until the frame is quiet (receive returns nil). Every hop is one send, one
-- park of the sender in receive, and one resume of the receiver.
--
-- With args.trace, each hop also carries the sending thread's id (pthread_self through the FFI)
-- and the receiver counts hops that crossed threads; at the end of the frame each side sends
-- (hops it received, of which crossed threads) for that frame to args.report. Tracing costs
-- time: it is used in a separate, untimed run.
local ffi = require("ffi")
ffi.cdef("unsigned long pthread_self(void);")
local C = ffi.C

return {
  init = function(state, args)
    state.args = args
    state.cross = 0
    state.seen = 0
  end,
  process = function(state)
    local a = state.args
    local peer = state.peer
    if not peer then
      peer = ona.lookup(a.peer)
      state.peer = peer
    end
    local hops = a.hops
    if a.trace then
      if a.serve then
        ona.send(peer, 1, tonumber(C.pthread_self()))
      end
      for from, n, tid in ona.messages() do
        local me = tonumber(C.pthread_self())
        state.seen = state.seen + 1
        if me ~= tid then
          state.cross = state.cross + 1
        end
        if n < hops then
          ona.send(from, n + 1, me)
        end
      end
      if a.report then
        ona.send(a.report, state.seen, state.cross)
      end
      state.seen, state.cross = 0, 0
      return
    end
    if a.serve then
      ona.send(peer, 1)
    end
    for from, n in ona.messages() do
      if n < hops then
        ona.send(from, n + 1)
      end
    end
  end,
}
