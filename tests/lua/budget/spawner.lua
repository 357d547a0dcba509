-- In its first turn spawns args.script with opts {budget = args.budget} (nil: the runtime's) and
-- args {report = args.report, ms = args.ms}, and reports ("spawned", true) or ("spawned", reason).
-- Later turns report ("spawner", frame).
return {
  init = function(state, args) state.args = args end,
  process = function(state)
    local a = state.args
    if not state.spawned then
      state.spawned = true
      local h, err = ona.spawn(a.script, {report = a.report, ms = a.ms}, {budget = a.budget})
      ona.send(a.report, "spawned", h and true or err)
    else
      ona.send(a.report, "spawner", ona.frame())
    end
  end,
}
