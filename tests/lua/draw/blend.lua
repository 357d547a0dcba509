-- The blend-mode scene (test_draw_state.c): on a 50% grey background, four columns of 32
-- pixels: alpha, premultiplied (the same colour premultiplied: the same result), add (through
-- the layer's default) and multiply.
return {
  init = function(state, args)
    state.white = ona.gfx.texture(args.white)
  end,
  process = function(state)
    local w = state.white
    ona.gfx.clear(0.5, 0.5, 0.5)
    ona.gfx.layer(5, { blend = "add" })
    ona.gfx.draw(w, 0, 0, { sx = 32, sy = 128, tint = { 1, 0.5, 0, 0.5 } })
    ona.gfx.draw(w, 32, 0, { sx = 32, sy = 128, blend = "premultiplied", tint = { 0.5, 0.25, 0, 0.5 } })
    ona.gfx.draw(w, 64, 0, { sx = 32, sy = 128, layer = 5, tint = { 0.5, 0, 0.5, 1 } })
    ona.gfx.draw(w, 96, 0, { sx = 32, sy = 128, blend = "multiply", tint = { 1, 0.5, 0.25, 1 } })
    -- Layer 5's default loses to a draw's own blend: alpha at half strength over column 3.
    ona.gfx.draw(w, 64, 96, { sx = 32, sy = 32, layer = 5, blend = "alpha", tint = { 0, 0, 0, 0.5 } })
  end,
}
