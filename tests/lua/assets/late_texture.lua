-- late_texture.lua: loads a texture whose file does not exist yet and draws it over the whole
-- window every frame, reporting the size its handle has: the placeholder's until the file is
-- created, then the picture's (the asset registry picks the new file up under the same handle).
-- args.file names another file than late.png.
return {
  init = function(state, args)
    state.report = args.report
    local tex, w, h, err = ona.gfx.texture(args.file or 'late.png')
    state.tex = tex
    ona.send(state.report, 'loaded', w, h, err)
  end,
  process = function(state)
    local w, h = ona.gfx.texture_size(state.tex)
    ona.gfx.draw(state.tex, 0, 0, {sx = 64 / w, sy = 64 / h})
    ona.send(state.report, 'size', w, h)
  end,
}
