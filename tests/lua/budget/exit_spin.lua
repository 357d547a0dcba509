-- Its exit never returns.
jit.off()
return {
  process = function(state) end,
  exit = function(state)
    local x = 0
    while true do x = x + 1 end -- line 7
  end,
}
