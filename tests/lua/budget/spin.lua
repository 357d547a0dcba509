-- Reports ("turn", n) every turn; at turn args.at reports ("spinning", n) and never returns:
-- mode "loop" spins in a plain loop, mode "pcall" in a loop that catches every error.
-- The JIT is off, so the interpreter runs the loop and the budget's hook can fire in it.
jit.off()
return {
  init = function(state, args) state.args = args; state.n = 0 end,
  process = function(state)
    state.n = state.n + 1
    ona.send(state.args.report, "turn", state.n)
    if state.n == state.args.at then
      ona.send(state.args.report, "spinning", state.n)
      if state.args.mode == "pcall" then
        while true do pcall(error, "x") end -- line 13
      end
      local x = 0
      while true do x = x + 1 end -- line 16
    end
  end,
}
