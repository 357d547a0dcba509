-- Chaos sink (never killed, never fails): each turn takes every queued message and reports
-- ("got", args.index, n) to args.report.
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    local n = 0
    while ona.try_receive() ~= nil do -- from is false for what C sent
      n = n + 1
    end
    if n > 0 then
      ona.send(state.args.report, "got", state.args.index, n)
    end
  end,
}
