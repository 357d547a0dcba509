-- Draws a huge sprite through a camera whose viewport is the window's top-left quarter.
return {
  init = function(state, args)
    state.t = ona.gfx.texture(args.tex)
  end,
  process = function(state)
    ona.gfx.clear(0, 0, 1)
    ona.gfx.camera(0, 0, 1, { 0, 0, 64, 64 })
    ona.gfx.draw(state.t, -100, -100, { scale = 40 })
  end,
}
