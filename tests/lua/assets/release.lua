-- release.lua: loads 'r.png' and 'r.wav' in init and gives both back in its first turn (the
-- texture still draws that frame: it is freed at the frame's end), then reports what the stale
-- handles do a frame later: a draw and a second release raise, playing is refused, and the
-- texture has no size.
return {
  init = function(state, args)
    state.report = args.report
    state.tex = ona.gfx.texture('r.png')
    state.snd = ona.audio.sound('r.wav')
  end,
  process = function(state)
    state.frame = (state.frame or 0) + 1
    if state.frame == 1 then
      ona.gfx.release(state.tex)
      ona.audio.release(state.snd)
      ona.gfx.draw(state.tex, 0, 0)
      ona.send(state.report, 'released', state.tex)
    elseif state.frame == 2 then
      local drew, draw_err = pcall(ona.gfx.draw, state.tex, 0, 0)
      local again, again_err = pcall(ona.gfx.release, state.tex)
      local played, play_err = pcall(ona.audio.play, state.snd)
      ona.send(state.report, 'stale', drew, draw_err, again, again_err, played, play_err,
        ona.gfx.texture_size(state.tex) == nil)
    end
  end,
}
