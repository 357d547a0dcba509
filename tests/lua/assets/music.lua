-- music.lua: starts the music args.file, looping, in init, and plays nothing else: a test
-- creates and replaces the file to see the music start and restart from it.
return {
  init = function(state, args)
    ona.audio.music(args.file, { loop = true })
  end,
  process = function() end,
}
