-- invaders: Space Invaders as cooperating systems, the seed thesis' own example.
--
--   ona samples/invaders [seed=N] [autoplay=1] [lives=N]
--
-- Left/right or a/d move, space fires, r or enter starts a new game after a game over, escape
-- quits. seed picks the invaders' bombing (the same seed and the same input replay the same
-- game); autoplay=1 lets a simple pilot play. A test may pass `report`, a system handle that then
-- gets ("score", score, frame) from score and ("mode", mode, wave, lives, frame) from game.
--
-- The systems, who runs after whom, and who tells whom what. Every frame each system's turn
-- starts after the turns of the systems it is `after` have ended, and a message to a system later
-- in that order (->) arrives in the same frame; any other message (~>) arrives at the receiver's
-- next turn, the next frame. Both are the same on any number of threads, so the same seed and
-- input replay the same game, with plain ona.send.
--
--   system     after              tells
--   input                         -> player: intent (move, fire); -> game: restart
--   game       input              -> everyone else: mode (playing, pause, over), wave, lives;
--                                 -> invaders: start; -> shields, player, score: reset
--   player     input, game        -> bullets: fire; -> collisions: where the cannon is;
--                                 ~> invaders: its x (for aiming); ~> game: died
--   invaders   game               -> bullets: bomb; -> collisions: the formation;
--                                 ~> game: cleared, landed
--   shields    game               -> collisions: the shields' blocks
--   bullets    player, invaders   -> collisions: every shot in flight
--   collisions bullets, shields   -> score: an invader's kind; ~> bullets: remove (spent shots);
--                                 ~> invaders: killed; ~> player: hit; ~> shields: erase;
--                                 ~> input: world (autoplay)
--   score      collisions, game   -> ui: score and high score
--   ui         score, game        draws the text, sets the camera
--
-- player, invaders and shields run side by side. A key moves the cannon and fires in the frame
-- it goes down, r restarts in that frame, and a laser that reaches an invader is found, scored
-- and printed in that frame; the invader is gone and its explosion drawn the next frame
-- (invaders must say where the formation is before collisions can test it), and so is a cannon
-- a bomb hits. Read a frame after they were sent (what ona.inbox does), the same chains take
-- 1 frame (key -> cannon moves), 2 (key -> laser drawn), 1 (laser reaches an invader -> hit
-- found), 2 (-> scored), 3 (-> score printed) and 2 (-> invader gone); tests/test_invaders.c
-- measures both.
local args = ... or {}
local seed = math.floor(tonumber(args.seed) or 1)
local autoplay = args.autoplay ~= nil and args.autoplay ~= 0 and args.autoplay ~= false
  and args.autoplay ~= "0" and args.autoplay ~= "false"
local report = args.report
-- latency=1 (tests): bullets, player, collisions, invaders and ui also report when each effect
-- happens, with the frame (see README: how many frames each chain takes).
local probe = (args.latency == 1 or args.latency == "1") and report or nil
local lives = args.lives and math.max(1, math.floor(tonumber(args.lives) or 3)) or nil

-- Spawn order is draw order within a layer, and the order of messages from several senders
-- within one frame. `after` names systems, so the order holds for a restarted one too.
local function spawn(script, name, spawn_args, after)
  assert(ona.spawn(script, spawn_args, { name = name, after = after }))
end
spawn("input.lua", "input", { autoplay = autoplay })
spawn("game.lua", "game", { report = report, lives = lives }, { "input" })
spawn("player.lua", "player", { probe = probe }, { "input", "game" })
spawn("invaders.lua", "invaders", { seed = seed, probe = probe }, { "game" })
spawn("bullets.lua", "bullets", { probe = probe }, { "player", "invaders" })
spawn("shields.lua", "shields", {}, { "game" })
spawn("collisions.lua", "collisions", { probe = probe }, { "bullets", "shields" })
spawn("score.lua", "score", { report = report }, { "collisions", "game" })
spawn("ui.lua", "ui", { autoplay = autoplay, probe = probe }, { "score", "game" })
