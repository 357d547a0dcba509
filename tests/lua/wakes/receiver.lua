-- Deferred wakes (test_wakes): waits in ona.receive once a turn and reports what came, or
-- "nil" when the frame went quiet first (a lost wake shows as that nil).
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    local from, v = ona.receive()
    ona.send(state.report, from == nil and "nil" or v)
  end,
}
