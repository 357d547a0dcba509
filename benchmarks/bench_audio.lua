-- bench_audio.lua: the Lua side of benchmarks/bench_audio.c. Every turn makes `n` calls of one
-- kind: "play" (ona.audio.play with an options table), "play_plain" (no options), "draw"
-- (ona.gfx.draw, the peer: the same queue-and-merge design for sprites), or "none".
return {
  init = function(state, args)
    state.mode, state.n = args.mode, args.n
    state.sound = assert(ona.audio.sound(args.sound))
    state.texture = ona.gfx.texture(args.texture)
    state.opts = { volume = 0.5, pan = 0.25 }
  end,
  process = function(state)
    local n, mode = state.n, state.mode
    if mode == "play" then
      local s, opts = state.sound, state.opts
      for _ = 1, n do ona.audio.play(s, opts) end
    elseif mode == "play_plain" then
      local s = state.sound
      for _ = 1, n do ona.audio.play(s) end
    elseif mode == "draw" then
      local t = state.texture
      for i = 1, n do ona.gfx.draw(t, i, i) end
    end
  end,
}
