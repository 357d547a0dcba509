-- bench_budget: its first turn spins in the interpreter (the JIT is off) until the turn budget
-- interrupts it.
jit.off()
return {
  process = function(state)
    local x = 0
    while true do x = x + 1 end
  end,
}
