-- Chaos spawner (never killed): spawns a short-lived blip every few turns and kills it a few
-- turns later, spawns one-shots, and checks that a blip killed two turns ago is stale from Lua
-- (ona.kill and ona.try_send refuse it); a live one counts as ("anomaly", 0, 1) to args.report.
return {
  init = function(state, args)
    state.args = args
    state.turn = 0
    state.blips = {} -- { handle, turn spawned }
    state.killed = {} -- { handle, turn killed }
  end,
  process = function(state)
    local a = state.args
    state.turn = state.turn + 1
    local t = state.turn
    if t % 3 == 0 then
      local h = ona.spawn("blip.lua", { report = a.report, sinks = a.sinks, seed = t }, { mailbox = 4 })
      if h then
        state.blips[#state.blips + 1] = { h, t }
      end
    end
    if t % 5 == 0 then
      ona.spawn("oneshot.lua", t)
    end
    local keep = {}
    for _, b in ipairs(state.blips) do
      if t - b[2] >= 4 then
        if ona.kill(b[1]) then
          state.killed[#state.killed + 1] = { b[1], t }
        end
      else
        keep[#keep + 1] = b
      end
    end
    state.blips = keep
    local still = {}
    for _, k in ipairs(state.killed) do
      if t - k[2] >= 2 then
        if ona.kill(k[1]) or ona.try_send(k[1], "late") then
          ona.send(a.report, "anomaly", 0, 1)
        end
      else
        still[#still + 1] = k
      end
    end
    state.killed = still
  end,
}
