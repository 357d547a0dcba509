-- pingpong: two systems bounce a counter back and forth.
-- main.lua runs once: it spawns the game's systems and returns nothing.
assert(ona.spawn("paddle.lua", { peer = "pong", serve = true, rally = 100, rallies = 300 }, { name = "ping" }))
assert(ona.spawn("paddle.lua", { peer = "ping", rally = 100 }, { name = "pong" }))
