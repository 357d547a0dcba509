-- Draws a 64x64 white square at (32, 32) with the game shader args.shader (test_draw_state.c).
return {
  init = function(state, args)
    state.white = ona.gfx.texture(args.white)
    state.shader = assert(ona.gfx.shader(args.shader))
  end,
  process = function(state)
    ona.gfx.clear(0, 0, 0)
    ona.gfx.draw(state.white, 32, 32, { sx = 64, sy = 64, shader = state.shader })
  end,
}
