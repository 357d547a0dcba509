-- bench_transform (benchmarks/bench_transform.c): draws COUNT sprites a frame one way, named by
-- args.mode: a plain ona.gfx.draw per sprite; push/translate/draw/pop per sprite; the same with
-- a rotate (a similarity: still a sprite) or with a scale then a rotate (skewed: an affine
-- instance); a draw with opts.rotation (the peer of the rotate row); and one draw_sprites of a
-- buffer of COUNT sprites, under the identity or under one translate.
local COUNT = 10000
return {
  init = function(state, args)
    state.mode = args.mode
    state.tex = ona.gfx.texture(args.texture)
    state.opts = { rotation = 0.5 }
    state.sprites = ona.gfx.sprites(COUNT)
    local p = state.sprites:ptr()
    for i = 0, COUNT - 1 do
      p[i].x, p[i].y = i % 100 * 12, math.floor(i / 100) * 7
      p[i].scale_x, p[i].scale_y, p[i].tint = 1, 1, 0xFFFFFFFF
    end
  end,
  process = function(state)
    local g, tex, mode = ona.gfx, state.tex, state.mode
    if mode == "plain" then
      for i = 0, COUNT - 1 do
        g.draw(tex, i % 100 * 12, i * 0.07)
      end
    elseif mode == "push" then
      for i = 0, COUNT - 1 do
        g.push()
        g.translate(i % 100 * 12, i * 0.07)
        g.draw(tex, 0, 0)
        g.pop()
      end
    elseif mode == "rotate" then
      for i = 0, COUNT - 1 do
        g.push()
        g.translate(i % 100 * 12, i * 0.07)
        g.rotate(0.5)
        g.draw(tex, 0, 0)
        g.pop()
      end
    elseif mode == "skew" then
      for i = 0, COUNT - 1 do
        g.push()
        g.translate(i % 100 * 12, i * 0.07)
        g.scale(2, 1)
        g.rotate(0.5)
        g.draw(tex, 0, 0)
        g.pop()
      end
    elseif mode == "opts" then
      local opts = state.opts
      for i = 0, COUNT - 1 do
        g.draw(tex, i % 100 * 12, i * 0.07, opts)
      end
    elseif mode == "batch" then
      g.draw_sprites(tex, state.sprites)
    elseif mode == "batch_moved" then
      g.translate(3, 4)
      g.draw_sprites(tex, state.sprites)
    end
  end,
}
