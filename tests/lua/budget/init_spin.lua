-- Its init never returns (the JIT is off: the budget's hook can fire in the loop).
jit.off()
return {
  init = function(state)
    local x = 0
    while true do x = x + 1 end -- line 6
  end,
  process = function(state) end,
}
