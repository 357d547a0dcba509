-- Calls os.exit(3) in its first turn, then reports that its turn went on ("after exit").
return {
  init = function(state, args) state.report = args.report end,
  process = function(state)
    os.exit(3) -- [os.exit]
    ona.send(state.report, "after exit")
  end,
}
