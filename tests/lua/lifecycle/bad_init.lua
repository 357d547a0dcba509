-- Reports ("init", frame) and raises, in every init.
return {
  init = function(state, args)
    ona.send(args.report, "init", ona.frame())
    error("init fails on purpose")
  end,
  process = function(state) end,
}
