-- Reports ("alive", frame) every turn.
return {
  init = function(state, args) state.report = args.report end,
  process = function(state) ona.send(state.report, "alive", ona.frame()) end,
}
