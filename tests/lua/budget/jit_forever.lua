-- Reports ("turn", n) every turn; at turn args.at reports ("spinning", n) and enters
-- `while true do end` with the JIT on: the loop is compiled within microseconds, so only a
-- LuaJIT built with LUAJIT_ENABLE_CHECKHOOK (the bundled one) can interrupt it.
return {
  init = function(state, args) state.args = args; state.n = 0 end,
  process = function(state)
    state.n = state.n + 1
    ona.send(state.args.report, "turn", state.n)
    if state.n == state.args.at then
      ona.send(state.args.report, "spinning", state.n)
      while true do end -- line 11
    end
  end,
}
