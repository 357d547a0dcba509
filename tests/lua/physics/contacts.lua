-- A ball falls through a sensor strip and lands on the ground: each step's contacts are sent to
-- the report as "<frame> <type> <a> <b>", the users being strings.
return {
  init = function(state, args)
    state.report = args.report
    state.world = ona.physics.world{ gravity = {0, 900} }
    local w = state.world
    w:body{ x = 160, y = 230, shape = "box", width = 320, height = 20, user = "ground" }
    w:body{ x = 160, y = 100, shape = "box", width = 320, height = 10, sensor = true,
            user = "sensor" }
    state.ball = w:body{ type = "dynamic", x = 160, y = 20, shape = "circle", radius = 8,
                         user = "ball" }
    state.frame = 0
  end,
  process = function(state)
    state.frame = state.frame + 1
    if state.frame > 90 then
      return
    end
    if state.frame == 80 then
      state.ball:destroy() -- its contact with the ground ends at the next step
      local ok, err = pcall(function() return state.ball:position() end)
      ona.send(state.report, "destroyed " .. tostring(err))
    end
    for _, c in ipairs(state.world:step(1 / 60)) do
      ona.send(state.report, string.format("%d %s %s %s", state.frame, c.type, tostring(c.a),
                                           tostring(c.b)))
      if c.type == "begin" and (c.a == "ground" or c.b == "ground") then
        ona.send(state.report, string.format("normal %.3f %.3f at %.1f %.1f", c.nx, c.ny, c.x, c.y))
      end
    end
  end,
}
