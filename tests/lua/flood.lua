-- Sends args.count numbers to the system named args.target in its first turn, waiting for room.
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    if state.done then
      return
    end
    local target = ona.lookup(state.args.target)
    for i = 1, state.args.count do
      ona.send(target, i)
    end
    state.done = true
    ona.send(state.args.report, "flood done", ona.frame())
  end,
}
