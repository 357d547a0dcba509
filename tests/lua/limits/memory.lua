-- Sends what ona.memory() returns (bytes used, cap or nil) to args.report once.
return {
  init = function(state, args)
    local used, cap = ona.memory()
    ona.send(args.report, used, cap == nil and "none" or cap)
  end,
}
