-- font_measure.lua: loads the font 'game.ttf' once and reports, every frame, how wide a line of
-- text measures with it, so a test can see the file's replacement take effect under the same
-- handle.
return {
  init = function(state, args)
    state.report = args.report
    state.font = ona.gfx.font('game.ttf', 24)
  end,
  process = function(state)
    local w, h = ona.gfx.measure(state.font, 'iiiiiiiiii')
    ona.gfx.print(state.font, 'iiii', 0, 0)
    ona.send(state.report, 'width', w, h, state.font)
  end,
}
