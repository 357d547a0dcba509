-- Sandboxed: at its third turn, a loop that never ends (compiled by the JIT where it is on).
return {
  init = function(state, args) state.report = args.report end,
  process = function(state)
    state.n = (state.n or 0) + 1
    ona.send(state.report, "runaway turn " .. state.n)
    if state.n == 3 then
      local x = 0
      while true do x = x + 1 end -- line 9
    end
  end,
}
