-- Draws one part of the golden test scene (args.part 1..3), with textures from args paths.
-- The parts are separate systems so that the scene can be drawn from several threads.
return {
  init = function(state, args)
    state.args = args
    state.a = ona.gfx.texture(args.tex_a)
    state.b = ona.gfx.texture(args.tex_b)
    state.missing = ona.gfx.texture("does_not_exist.png")
  end,
  process = function(state)
    local part = state.args.part
    if part == 1 then
      ona.gfx.clear(0.1, 0.1, 0.2)
      ona.gfx.draw(state.a, 8, 8, { scale = 4, layer = 1 })
      ona.gfx.draw(state.b, 24, 24, { scale = 4, layer = 0, tint = 0xFF8080FF })
    elseif part == 2 then
      ona.gfx.draw(state.a, 88, 32, { scale = 3, rotation = math.pi / 4, ox = 4, oy = 4, layer = 2 })
      ona.gfx.draw(state.b, 64, 64, { src = { 0, 0, 4, 4 }, scale = 6, layer = 1 })
      ona.gfx.draw(state.b, 70, 70, { scale = 2, layer = 1, tint = { 1, 1, 1, 0.5 } })
    else
      ona.gfx.text(4, 108, "ONA 1+2", { scale = 2, tint = { 1, 1, 0, 1 }, layer = 3 })
      ona.gfx.draw(state.missing, 100, 4, { layer = 0 })
    end
  end,
}
