-- world.lua: the physics system. It owns the ona.physics world: the ground (a chain, as a tile
-- map's outline would be), two walls, a pile of crates and the ball.
--
--   in:  ("push", ix, iy), ("jump") from pilot
--   out: ("ball", x, y, on_ground) to pilot; ("contact", type, a, b) to hud, for every contact
--        of the step; ("ball", x, y, frame) to report every 10th frame
local W, H = 640, 360

return {
  init = function(state, args)
    state.report = args.report
    local w = ona.physics.world({ gravity = { 0, 900 }, meter = 32 })
    state.world = w
    w:body({ shape = "chain", points = { 0, 0, 0, H - 20, 200, H - 20, 260, H - 40, 380, H - 40,
                                         440, H - 20, W, H - 20, W, 0 }, user = "ground",
             friction = 0.8 })
    for i = 0, 5 do
      for j = 0, 5 - i do
        w:body({ type = "dynamic", shape = "box", x = 470 + j * 26 + i * 13, y = H - 32 - i * 25,
                 width = 24, height = 24, density = 0.5, friction = 0.6,
                 user = ("crate %d"):format(i * 10 + j) })
      end
    end
    state.ball = w:body({ type = "dynamic", shape = "circle", x = 80, y = H - 80, radius = 14,
                          density = 2, friction = 0.9, restitution = 0.2, user = "ball" })
    state.touching = 0 -- contacts the ball has with anything: it can jump when > 0
  end,

  process = function(state)
    local ball = state.ball
    for _, what, ix, iy in ona.messages() do
      if what == "push" then
        ball:impulse(ix, iy)
      elseif what == "jump" and state.touching > 0 then
        ball:impulse(0, -220)
      end
    end
    local hud = ona.lookup("hud")
    for _, c in ipairs(state.world:step(1 / 60)) do
      if c.a == "ball" or c.b == "ball" then
        state.touching = state.touching + (c.type == "begin" and 1 or -1)
      end
      if hud then
        ona.send(hud, "contact", c.type, c.a, c.b)
      end
    end
    local x, y = ball:position()
    local pilot = ona.lookup("pilot")
    if pilot then
      ona.send(pilot, "ball", x, y, state.touching > 0)
    end
    if state.report and ona.frame() % 10 == 0 then
      ona.send(state.report, "ball", x, y, ona.frame())
    end
    state.world:debug_draw({ width = 2 })
  end,
}
