-- Counts turns; kills itself in turn args.die_at when given. The reload hook reports
-- ("reloaded", name) and exit reports ("exit", name).
return {
  init = function(state, args)
    state.args = args
    state.n = 0
  end,
  process = function(state)
    state.n = state.n + 1
    if state.n == state.args.die_at then
      ona.kill(ona.self())
    end
  end,
  reload = function(state)
    ona.send(state.args.report, "reloaded", ona.name())
  end,
  exit = function(state)
    ona.send(state.args.report, "exit", ona.name())
  end,
}
