-- One physics system of the determinism test: a pile of boxes and balls, kicked by impulses the
-- kicker sends ({index, ix, iy}); at frame `frames` it sends its digest (every body's position
-- and angle, as exact hex floats, hashed) to the report.
return {
  init = function(state, args)
    state.report, state.frames, state.index = args.report, args.frames, args.index
    local w = ona.physics.world{ gravity = {0, 900}, meter = 32 }
    state.world = w
    w:body{ x = 320, y = 470, shape = "box", width = 640, height = 20 }
    w:body{ shape = "chain", points = {0, 0, 0, 460, 640, 460, 640, 0} }
    state.bodies = {}
    for i = 1, 60 do
      local x, y = 40 + (i * 37 + args.index * 11) % 560, 40 + (i % 8) * 40
      if i % 2 == 0 then
        state.bodies[i] = w:body{ type = "dynamic", x = x, y = y, shape = "box", width = 16,
                                  height = 12, angle = i * 0.1, user = i }
      else
        state.bodies[i] = w:body{ type = "dynamic", x = x, y = y, shape = "circle", radius = 7,
                                  restitution = 0.3, user = i }
      end
    end
    state.contacts = 0
  end,
  process = function(state)
    for _, i, ix, iy in ona.messages() do
      state.bodies[i]:impulse(ix, iy)
    end
    state.contacts = state.contacts + #state.world:step(1 / 60)
    if ona.frame() == state.frames then
      local parts = {}
      for i, b in ipairs(state.bodies) do
        local x, y = b:position()
        parts[i] = string.format("%a,%a,%a", x, y, b:angle())
      end
      local text, h = table.concat(parts, ";"), 0
      for k = 1, #text do
        h = (h * 31 + text:byte(k)) % 4294967296
      end
      ona.send(state.report, string.format("pile%d contacts=%d digest=%08x %s", state.index,
                                           state.contacts, h, parts[1]))
    end
  end,
}
