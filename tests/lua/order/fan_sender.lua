-- One of many unordered senders: busy work of a pseudo-random length (its own generator,
-- seeded from args.index, so every run does the same work in another timing), then 1 to 4
-- messages to the receiver.
return {
  init = function(state, args)
    state.index = args.index
    state.seed = args.index * 7919 + 17
    state.to = ona.lookup("sink")
    state.frame = 0
  end,
  process = function(state)
    state.frame = state.frame + 1
    state.seed = (state.seed * 1103515245 + 12345) % 2147483648
    local work, x = state.seed % 4000, 0
    for i = 1, work do x = x + i % 7 end
    for j = 1, 1 + state.seed % 4 do
      ona.send(state.to, state.index, state.frame, j, x % 1000)
    end
  end,
}
