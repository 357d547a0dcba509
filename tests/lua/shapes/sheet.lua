-- A sheet animation advanced by the frame's dt: reports the frame shown and done() every turn,
-- and draws it 8 times as large at (0, 0).
return {
  init = function(state, args)
    state.report = args.report
    local tex = ona.gfx.texture(args.tex)
    state.sheet = ona.gfx.sheet(tex, 8, 8, {
      animations = {
        walk = { frames = { 1, 2, 3, 4 }, fps = 10, loop = true },
        once = { frames = { 4, 3 }, fps = 5, loop = false },
      },
    })
    state.walk = state.sheet:animation("walk")
    state.once = state.sheet:animation("once")
  end,
  process = function(state, events, dt)
    ona.gfx.clear(0, 0, 0)
    state.walk:draw(0, 0, { scale = 8 })
    state.sheet:draw(2, 64, 64, { scale = 4 })
    ona.send(state.report, "frame", state.walk:frame(), state.once:frame(), state.once:done(),
      state.sheet:frames())
    state.walk:update(dt)
    state.once:update(dt)
  end,
}
