-- The runaway measurement (benchmarks/results/runaway.md): three systems that measure the wall
-- time between their turns beside one that spins forever from frame 60 (policy stop, so its
-- budget's interrupt ends it). Run: ona --headless --frames 400 --workers N benchmarks/lua/runaway
for i = 1, 3 do assert(ona.spawn("tick.lua", {id = i}, {name = "tick" .. i})) end
assert(ona.spawn("spin.lua", nil, {name = "spinner", policy = "stop"}))
