-- Mailbox throughput, receiving side: drains its mailbox with ona.messages() every turn (waiting
-- while senders may still send, until the frame is quiet) and counts what it got. The C side reads
-- the count from the system's statistics (messages_in).
return {
  init = function(state)
    state.n = 0
  end,
  process = function(state)
    local n = state.n
    for from, v in ona.messages() do
      n = n + 1
    end
    state.n = n
  end,
}
