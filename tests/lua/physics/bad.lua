-- Each misuse on its own line, caught with pcall; sends ("bad", line, message) for each, the line
-- being the misuse's own, so the test checks every message names bad.lua and that line.
return {
  init = function(state, args)
    local report = args.report
    local function check(f)
      local line = debug.getinfo(2, "l").currentline
      local ok, err = pcall(f)
      ona.send(report, "bad", line, ok and "no error" or tostring(err))
    end
    local w = ona.physics.world{ gravity = {0, 900} }
    local b = w:body{ type = "dynamic", x = 1, y = 2, shape = "circle", radius = 4 }
    check(function() ona.physics.world{ meter = -1 } end)
    check(function() ona.physics.world{ gravity = {0, "down"} } end)
    check(function() w:body{ shape = "circle", radius = -1 } end)
    check(function() w:body{ shape = "triangle" } end)
    check(function() w:body{ type = "floating", shape = "box", width = 1, height = 1 } end)
    check(function() w:body{ shape = "box", width = 10, height = 10, colour = 1 } end)
    check(function() w:body{ shape = "polygon", points = {0, 0, 10, 0, 10, 10, 5, 2, 0, 10} } end)
    check(function() w:body{ shape = "chain", points = {0, 0} } end)
    check(function() w:body{ shape = "box", width = 10, height = 10, user = print } end)
    check(function() w:body{ x = 0 / 0, shape = "box", width = 10, height = 10 } end)
    check(function() w:step(0) end)
    check(function() w.step(b, 1 / 60) end)
    check(function() b:impulse("left", 0) end)
    check(function() w:raycast(0, 0, 1) end)
    check(function() ona.send(report, w) end)
    check(function() ona.send(report, {body = b}) end)
    b:destroy()
    check(function() b:position() end)
    check(function() b:destroy() end)
    w:destroy()
    check(function() w:step(1 / 60) end)
    ona.send(report, "done")
  end,
}
