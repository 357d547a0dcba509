-- Spins in a compiled loop from frame 60 until its budget interrupts it.
return {
  process = function()
    if ona.frame() == 60 then
      local x = 0
      while true do x = x + 1 end
    end
  end,
}
