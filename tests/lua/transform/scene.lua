-- The draw-state stack scenes (test_transform.c), one per args.part: "stack" (push, pop,
-- translate, scale, origin over sprites, shapes, text and a tile map), "camera" (a transform
-- under a layer camera), "turned" and "turned_ref"
-- (a sprite turned by ona.gfx.rotate and the same sprite turned by opts.rotation), "skew" (a
-- square scaled after a rotation: a parallelogram), "target" (set_target, push("all")), "reset"
-- (each turn starts from the identity with nothing pushed). A wrong answer raises, which the
-- test finds in the log.
local function check(cond, what)
  if not cond then
    error("transform check failed: " .. what)
  end
end

local function near(a, b)
  return math.abs(a - b) < 1e-4
end

return {
  init = function(state, args)
    state.part = args.part
    state.checker = ona.gfx.texture(args.checker)
    state.white = ona.gfx.texture(args.white)
    if args.part == "target" then
      state.canvas = ona.gfx.canvas(32, 32)
    elseif args.part == "stack" then
      -- A 2x2 map of the checker's 4x4 tiles: ids 1 (white-red) and 2.
      state.map = ona.gfx.tilemap(state.checker, 4, 4, 2, 2)
      state.map:set(0, 0, 1)
      state.map:set(1, 0, 2)
      state.map:set(0, 1, 2)
      state.map:set(1, 1, 1)
    end
    state.frame = 0
  end,
  process = function(state)
    local g = ona.gfx
    local part = state.part
    state.frame = state.frame + 1
    if part == "stack" then
      g.clear(0, 0, 0)
      g.push()
      g.translate(16, 16)
      g.draw(state.white, 0, 0, { sx = 8, sy = 8, tint = { 1, 0, 0, 1 } }) -- pixels 16..23
      g.push()
      g.scale(2)
      g.rect(8, 0, 4, 4, { tint = { 0, 1, 0, 1 } }) -- pixels 32..39, 16..23
      local x, y = g.transform_point(1, 1)
      check(near(x, 18) and near(y, 18), ("transform_point (1, 1) -> (%g, %g)"):format(x, y))
      x, y = g.inverse_transform_point(18, 18)
      check(near(x, 1) and near(y, 1), ("inverse_transform_point -> (%g, %g)"):format(x, y))
      g.pop()
      g.rect(40, 0, 8, 8, { tint = { 0, 0, 1, 1 } }) -- the translation alone: 56..63, 16..23
      g.pop()
      g.rect(0, 100, 8, 8, { tint = { 1, 1, 0, 1 } }) -- nothing: pixels 0..7, 100..107
      g.push()
      g.translate(4, 60)
      g.scale(2)
      g.text(0, 0, "T", { tint = { 1, 1, 1, 1 } }) -- an 8x8 glyph at 4..19, 60..75
      g.pop()
      g.push()
      g.translate(64, 64)
      g.scale(2)
      local drawn = state.map:draw(0, 0) -- 8x8 of map, 16x16 pixels at 64..79
      check(drawn == 4, "tile map drew " .. tostring(drawn) .. " tiles")
      g.pop()
      g.push()
      g.translate(50, 50)
      g.origin()
      g.rect(100, 0, 4, 4, { tint = { 1, 1, 1, 1 } }) -- origin(): pixels 100..103, 0..3
      g.pop()
    elseif part == "camera" then
      -- Under a camera: world (64, 64) at the window's centre, zoom 2. The transform moves the
      -- rect in the world, the camera takes the world to the screen.
      g.clear(0, 0, 0)
      g.camera(64, 64, 2)
      g.translate(8, 8)
      g.rect(56, 56, 4, 4, { tint = { 1, 1, 1, 1 } }) -- world 64..68: pixels 64..71
    elseif part == "turned" then
      g.clear(0, 0, 0)
      g.translate(64, 64)
      g.rotate(math.pi / 6)
      g.draw(state.checker, 0, 0, { scale = 6, ox = 4, oy = 4 })
    elseif part == "turned_ref" then
      g.clear(0, 0, 0)
      g.draw(state.checker, 64, 64, { scale = 6, ox = 4, oy = 4, rotation = math.pi / 6 })
    elseif part == "skew" then
      g.clear(0, 0, 0)
      g.push()
      g.translate(64, 40)
      g.rotate(math.pi / 4)
      g.rect(-10, -10, 20, 20, { tint = { 1, 1, 1, 1 } }) -- a diamond: |dx| + |dy| <= 14.1
      g.pop()
      g.push()
      g.translate(64, 96)
      g.scale(2, 1)
      g.rotate(math.pi / 4)
      -- A 20x20 square turned 45 degrees, then twice as wide: |dx| / 28.3 + |dy| / 14.1 <= 1.
      g.draw(state.white, 0, 0, { sx = 20, sy = 20, ox = 0.5, oy = 0.5, tint = { 0, 1, 1, 1 } })
      g.pop()
    elseif part == "target" then
      local c = state.canvas
      g.clear(0, 0, 0)
      g.set_target(c)
      g.clear(0, 0, 1, 1) -- clears the target: the canvas, blue
      check(g.get_target() == c, "get_target after set_target")
      g.rect(0, 0, 8, 8, { tint = { 1, 0, 0, 1 } }) -- into the canvas: 0..7
      g.push("all")
      g.set_target(nil)
      g.rect(100, 100, 8, 8, { tint = { 0, 1, 0, 1 } }) -- the screen
      g.pop()
      check(g.get_target() == c, "push(\"all\") then pop did not bring the canvas back")
      g.push()
      g.set_target(nil)
      g.pop()
      check(g.get_target() == nil, "a plain push saved the target")
      g.set_target(c)
      g.translate(8, 8)
      g.rect(0, 0, 8, 8, { tint = { 1, 1, 1, 1 } }) -- into the canvas: 8..15
      g.origin()
      g.set_target(nil)
      g.draw(c, 0, 0, { scale = 2 }) -- the canvas on the screen: pixels 0..63
    elseif part == "reset" then
      -- Frame 1 pushes, moves and targets without popping; frame 2 starts afresh.
      if state.frame == 1 then
        state.canvas = ona.gfx.canvas(8, 8)
        for _ = 1, 3 do
          g.push()
          g.translate(5, 5)
        end
        g.set_target(state.canvas)
      else
        local x, y = g.transform_point(0, 0)
        check(x == 0 and y == 0, ("a new turn starts at (%g, %g)"):format(x, y))
        check(g.get_target() == nil, "a new turn kept the target")
        check(not pcall(g.pop), "a new turn had pushes to pop")
        ona.send(ona.lookup("collector"), "reset ok")
      end
    end
  end,
}
