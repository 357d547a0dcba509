-- Sends a message holding a function: ona.send must refuse it, naming the path.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    local ok, err = pcall(ona.send, state.report, { enemies = { 1, 2, { cb = function() end } } })
    ona.send(state.report, ok, err)
  end,
}
