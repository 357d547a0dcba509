-- The same send and receive as a ping-pong hop, without parking: each turn the system sends
-- args.count numbers to itself, taking each back with ona.receive() at once (its mailbox is never
-- empty when it asks, so it never waits). The difference to a ping-pong hop is the park and
-- resume.
return {
  init = function(state, args)
    state.count = args.count
  end,
  process = function(state)
    local me = ona.self()
    local send, receive = ona.send, ona.receive
    for i = 1, state.count do
      send(me, i)
      local from, n = receive()
    end
  end,
}
