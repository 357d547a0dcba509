-- Spawns a system after itself by way of another, and reports what ona.spawn said.
return {
  init = function(state, args) state.report = args.report end,
  process = function(state)
    if state.done then return end
    state.done = true
    local a = ona.spawn("idle.lua", nil, { name = "ship", after = { "input" } })
    local b = ona.spawn("idle.lua", nil, { name = "bullets", after = { a } })
    local ok, err = pcall(ona.spawn, "idle.lua", nil, { name = "input", after = { "bullets" } })
    ona.send(state.report, "cycle", ok, tostring(err))
    ok, err = pcall(ona.spawn, "idle.lua", nil, { name = "x", after = { "x" } })
    ona.send(state.report, "self", ok, tostring(err))
    ok, err = pcall(ona.spawn, "idle.lua", nil, { name = "y", after = { 12345 } })
    ona.send(state.report, "stale", ok, tostring(err))
    ok, err = pcall(ona.spawn, "idle.lua", nil, { name = "z", after = { true } })
    ona.send(state.report, "type", ok, tostring(err))
    local c = ona.spawn("idle.lua", nil, { name = "input2", after = { "bullets", b } })
    ona.send(state.report, "fine", c ~= nil)
  end,
}
