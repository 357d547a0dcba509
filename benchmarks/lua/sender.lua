-- Mailbox throughput, sending side: each turn sends up to args.per_turn messages to the system
-- named args.target with ona.send (which waits while the target's mailbox is full), until
-- args.count messages were sent. args.payload picks the message: "number" (the counter),
-- "string" (a 16-byte string) or "table" ({x = 1, y = 2, name = "abc"}, built once and sent
-- again each time: the cost measured is the message's, not building the table).
local STRING = "0123456789abcdef"
local TABLE = { x = 1, y = 2, name = "abc" }

return {
  init = function(state, args)
    state.args = args
    state.sent = 0
  end,
  process = function(state)
    local a = state.args
    local target = state.target
    if not target then
      target = ona.lookup(a.target)
      state.target = target
    end
    local send = ona.send
    local first = state.sent + 1
    local last = math.min(a.count, state.sent + a.per_turn)
    if a.payload == "number" then
      for i = first, last do
        send(target, i)
      end
    elseif a.payload == "string" then
      for i = first, last do
        send(target, STRING)
      end
    else
      for i = first, last do
        send(target, TABLE)
      end
    end
    state.sent = last
  end,
}
