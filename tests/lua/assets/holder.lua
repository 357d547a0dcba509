-- holder.lua: loads the texture args.tex and the sound args.snd and keeps them for its life; a
-- test ends it (ona_runtime_kill) to see its references go.
return {
  init = function(state, args)
    state.tex = ona.gfx.texture(args.tex)
    state.snd = ona.audio.sound(args.snd)
  end,
  process = function(state)
    ona.gfx.draw(state.tex, 0, 0)
  end,
}
