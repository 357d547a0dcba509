-- Reports ("alive", frame) every turn; its reload hook never returns.
jit.off()
return {
  init = function(state, args) state.report = args.report end,
  process = function(state) ona.send(state.report, "alive", ona.frame()) end,
  reload = function(state)
    local x = 0
    while true do x = x + 1 end -- line 8
  end,
}
