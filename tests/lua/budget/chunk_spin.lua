-- Its chunk never ends, like a main.lua stuck before it spawned anything.
jit.off()
local x = 0
while true do x = x + 1 end -- line 4
