-- Replies to every message with its first value plus one.
return {
  process = function(state)
    for from, n in ona.messages() do
      ona.send(from, n + 1)
    end
  end,
}
