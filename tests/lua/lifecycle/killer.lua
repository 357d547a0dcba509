-- In frame args.at, kills the system named args.victim and reports ("killed", ok).
return {
  init = function(state, args)
    state.args = args
    state.victim = ona.lookup(args.victim)
  end,
  process = function(state)
    local a = state.args
    if ona.frame() == a.at then
      local ok, why = ona.kill(state.victim)
      ona.send(a.report, "killed", ok == true, tostring(why))
    end
  end,
}
