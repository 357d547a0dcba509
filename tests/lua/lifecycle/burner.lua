-- Waits for one message a turn, then burns args.work iterations of arithmetic.
return {
  init = function(state, args)
    state.work = args.work
  end,
  process = function(state)
    local from = ona.receive()
    if from then
      local x = 0
      for i = 1, state.work do
        x = x + math.sin(i)
      end
      state.x = x
    end
  end,
}
