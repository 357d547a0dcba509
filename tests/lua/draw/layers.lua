-- The layered-camera scene (test_draw_state.c): args.part "camera" sets a camera for layers
-- 0..9 only, "world" draws on layers 1 and 5 in world units, "hud" draws on layer 10 in window
-- pixels (no camera covers it), "marker" puts a marker on layer 2 under window pixel (96, 96)
-- through ona.gfx.to_world and checks that to_screen takes it back.
return {
  init = function(state, args)
    state.part = args.part
    state.checker = ona.gfx.texture(args.checker)
    state.white = ona.gfx.texture(args.white)
  end,
  process = function(state)
    local part = state.part
    if part == "camera" then
      ona.gfx.clear(0.05, 0.05, 0.2)
      ona.gfx.camera(96, 80, 2, { layers = { 0, 9 } })
    elseif part == "world" then
      ona.gfx.draw(state.checker, 80, 64, { scale = 2, layer = 1 })
      ona.gfx.draw(state.white, 100, 70, { sx = 8, sy = 8, layer = 5, tint = { 0, 0.6, 1, 1 } })
    elseif part == "hud" then
      ona.gfx.draw(state.white, 4, 4, { sx = 60, sy = 6, layer = 10, tint = { 0, 1, 0, 1 } })
      ona.gfx.text(4, 116, "HUD", { layer = 10, tint = { 1, 1, 0, 1 } })
    else
      local wx, wy = ona.gfx.to_world(96, 96, 2)
      local sx, sy = ona.gfx.to_screen(wx, wy, 2)
      if math.abs(sx - 96) > 1e-3 or math.abs(sy - 96) > 1e-3 then
        error(string.format("round trip: (96, 96) -> (%g, %g) -> (%g, %g)", wx, wy, sx, sy))
      end
      -- The HUD layer has no camera: window pixels are world units there.
      local hx, hy = ona.gfx.to_world(10, 20, 10)
      if hx ~= 10 or hy ~= 20 then
        error(string.format("hud to_world: (%g, %g)", hx, hy))
      end
      -- A 4x4-pixel marker (2x2 world units at zoom 2) centred on (96, 96).
      ona.gfx.draw(state.white, wx - 1, wy - 1, { sx = 2, sy = 2, layer = 2, tint = { 1, 0, 0, 1 } })
    end
  end,
}
