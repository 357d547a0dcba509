-- invaders: Space Invaders as cooperating systems, the seed thesis' own example.
--
--   ona samples/invaders [seed=N] [autoplay=1] [lives=N]
--
-- Left/right or a/d move, space fires, r or enter starts a new game after a game over, escape
-- quits. seed picks the invaders' bombing (the same seed and the same input replay the same
-- game); autoplay=1 lets a simple pilot play. A test may pass `report`, a system handle that then
-- gets ("score", score, frame) from score and ("mode", mode, wave, lives, frame) from game.
--
-- The systems, and who tells whom what (every message is read in the frame after it was sent;
-- see ona.inbox, scripts/inbox.lua):
--
--   input      -> player      intent (move, fire) every frame; -> game: restart
--   player     -> bullets     fire;  -> collisions: where the cannon is; -> invaders: its x
--   invaders   -> bullets     bomb;  -> collisions: the formation;  -> game: cleared, landed
--   bullets    -> collisions  every shot in flight
--   shields    -> collisions  the shields' blocks
--   collisions -> bullets     remove (spent shots); -> invaders: killed; -> player: hit;
--                 -> shields: erase; -> score: an invader's kind; -> input: world (autoplay)
--   score      -> ui          score and high score
--   game       -> everyone    mode (playing, pause, over), wave, lives; start, reset
--   ui         draws the text, sets the camera
local args = ... or {}
local seed = math.floor(tonumber(args.seed) or 1)
local autoplay = args.autoplay ~= nil and args.autoplay ~= 0 and args.autoplay ~= false
  and args.autoplay ~= "0" and args.autoplay ~= "false"
local report = args.report
local lives = args.lives and math.max(1, math.floor(tonumber(args.lives) or 3)) or nil

-- Spawn order is draw order within a layer, and the order in which each system reads messages
-- from several senders (ona.inbox sorts by sender handle).
assert(ona.spawn("input.lua", { autoplay = autoplay }, { name = "input" }))
assert(ona.spawn("game.lua", { report = report, lives = lives }, { name = "game" }))
assert(ona.spawn("player.lua", {}, { name = "player" }))
assert(ona.spawn("invaders.lua", { seed = seed }, { name = "invaders" }))
assert(ona.spawn("bullets.lua", {}, { name = "bullets" }))
assert(ona.spawn("shields.lua", {}, { name = "shields" }))
assert(ona.spawn("collisions.lua", {}, { name = "collisions" }))
assert(ona.spawn("score.lua", { report = report }, { name = "score" }))
assert(ona.spawn("ui.lua", { autoplay = autoplay }, { name = "ui" }))
