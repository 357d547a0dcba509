-- Reports ("turn", n) each turn. In turn args.at it kills itself and goes on with that turn:
-- reports ("killed self", ok), waits in receive (nil at quiescence), reports ("still going",
-- got nil). exit reports ("exit").
return {
  init = function(state, args)
    state.args = args
    state.n = 0
  end,
  process = function(state)
    local a = state.args
    state.n = state.n + 1
    ona.send(a.report, "turn", state.n)
    if state.n == a.at then
      local ok = ona.kill(ona.self())
      ona.send(a.report, "killed self", ok == true)
      local from = ona.receive()
      ona.send(a.report, "still going", from == nil)
    end
  end,
  exit = function(state)
    ona.send(state.args.report, "exit")
  end,
}
