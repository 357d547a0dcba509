-- In its first turn sends 1 .. args.n to the system named args.to with the blocking ona.send,
-- then reports ("burst done", frame).
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    if state.done then
      return
    end
    local to = ona.lookup(state.args.to)
    for i = 1, state.args.n do
      ona.send(to, i)
    end
    state.done = true
    ona.send(state.args.report, "burst done", ona.frame())
  end,
}
