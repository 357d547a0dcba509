-- Draws a white square with the texture args.tex every turn (used by the shader reload test).
return {
  init = function(state, args)
    state.tex = ona.gfx.texture(args.tex)
  end,
  process = function(state)
    ona.gfx.clear(0, 0, 0)
    ona.gfx.draw(state.tex, 16, 16, { scale = 8 })
  end,
}
