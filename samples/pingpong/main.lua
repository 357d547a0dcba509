-- pingpong: two systems bounce a counter back and forth. Run it with `--delivery immediate`:
-- then a whole rally is played within each frame, every hit a park and a wake. Under ordered
-- delivery (the default) the paddles have no order between them, so each hit crosses to the next
-- frame: the rallies overlap, one hop a frame, and the mailboxes' backpressure slows the serves.
-- main.lua runs once: it spawns the game's systems and returns nothing.
assert(ona.spawn("paddle.lua", { peer = "pong", serve = true, rally = 100, rallies = 300 }, { name = "ping" }))
assert(ona.spawn("paddle.lua", { peer = "ping", rally = 100 }, { name = "pong" }))
