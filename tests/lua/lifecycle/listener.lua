-- Waits in ona.receive() each turn with nothing coming: reports ("waiting", frame) before and
-- ("woke", frame, got nil) after. exit reports ("exit").
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    ona.send(state.report, "waiting", ona.frame())
    local from = ona.receive()
    ona.send(state.report, "woke", ona.frame(), from == nil)
  end,
  exit = function(state)
    ona.send(state.report, "exit")
  end,
}
