-- Fan-in (test_wakes): receives until the frame goes quiet, checking that each sender's numbers
-- (index * 100000 + i) come in order, then reports how many came and how many were out of order.
return {
  init = function(state, args)
    state.report = args.report
    state.last = {}
    state.got = 0
    state.bad = 0
  end,
  process = function(state)
    while true do
      local from, v = ona.receive()
      if from == nil then
        break
      end
      local index = math.floor(v / 100000)
      local i = v - index * 100000
      if i ~= (state.last[index] or 0) + 1 then
        state.bad = state.bad + 1
      end
      state.last[index] = i
      state.got = state.got + 1
    end
    ona.send(state.report, state.got, state.bad)
  end,
}
