-- Spawns args.per_frame one-shot scripts each turn until args.total have been spawned, then
-- reports ("done", total). A spawn that fails is reported as ("spawn failed", total, reason)
-- and ends the spawning.
return {
  init = function(state, args)
    state.args = args
    state.total = 0
  end,
  process = function(state)
    local a = state.args
    if state.finished then
      return
    end
    for i = 1, a.per_frame do
      local h, why = ona.spawn("oneshot.lua", i)
      if not h then
        state.finished = true
        ona.send(a.report, "spawn failed", state.total, tostring(why))
        return
      end
      state.total = state.total + 1
      if state.total == a.total then
        state.finished = true
        ona.send(a.report, "done", state.total)
        return
      end
    end
  end,
}
