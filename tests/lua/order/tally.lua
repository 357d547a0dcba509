-- Takes every message; checks they come 1, 2, 3... and reports, each turn it took some,
-- (turn, how many, the last value).
return {
  init = function(state, args)
    state.report = args.report
    state.turn, state.expect = 0, 1
  end,
  process = function(state)
    state.turn = state.turn + 1
    local n, last = 0, nil
    for _, v in ona.messages() do
      if v ~= state.expect then error("got " .. tostring(v) .. ", expected " .. state.expect) end
      state.expect = v + 1
      n, last = n + 1, v
    end
    if n > 0 then ona.send(state.report, state.turn, n, last) end
  end,
}
