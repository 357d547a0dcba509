-- A game for the launcher's --memory-cap: main.lua reports its own cap, and with hog=1 spawns a
-- system that grows without end (it must fail alone, at the cap).
local args = ... or {}
local _, cap = ona.memory()
print("memory cap " .. tostring(cap))
assert(ona.spawn("alive.lua", nil, { name = "alive" }))
if args.hog then
  assert(ona.spawn("hog.lua", nil, { name = "hog", policy = "stop" }))
end
