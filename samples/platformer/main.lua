-- platformer: a side-scrolling platformer as cooperating systems (the drawing sample:
-- cameras, canvases, shapes, sprite sheets and tile maps).
--
--   ona samples/platformer [autoplay=1] [seed=N]
--
-- Left/right or a/d (or a gamepad's stick/d-pad) run, space/up/w (or the pad's A) jump, escape
-- quits. autoplay=1 lets a simple pilot run the level. A test may pass `report`, a system handle
-- that then gets ("player", x, y, frame) from player and ("coins", count, frame) from coins.
--
-- What it shows: a tile map larger than the screen (level.lua: only the visible tiles are
-- drawn), a scrolling camera for the world layers and a screen-space HUD over it (camera.lua,
-- hud.lua), animated sprite sheets (player.lua, coins.lua), particles with additive blending
-- (particles.lua), and the world drawn into a canvas that post.lua puts on the screen through a
-- game shader (post.frag, hot-reloaded when you edit it).
--
-- Layers: 0..49 the world (into the canvas, under the world camera); 60 the canvas on the screen;
-- 100.. the HUD in screen space.
--
-- The systems, who runs after whom, and who tells whom what. Every frame each system's turn
-- starts after the turns of the systems it is `after` have ended, and a message to a system later
-- in that order arrives in the same frame (one to any other system would arrive at its next
-- turn; this game sends none). That is the same on any number of threads, so a seeded autoplay
-- run replays the same, with plain ona.send.
--
--   system     after          tells
--   post                      -> level, camera, player, coins, particles: its canvas (once,
--                             and again to one that restarted: post monitors them); draws it
--                             on the screen through post.frag
--   level      post           -> player: the solid tiles (a buffer, moved); -> coins: where the
--                             coins are; -> camera: the level's size (all once)
--   player     level          reads the keyboard, a gamepad or the pilot; -> camera, coins: where
--                             the player is, every frame; -> particles: dust on landing
--   camera     player         sets the world camera, draws the sky
--   coins      player         -> hud: the count; -> particles: a burst where a coin was taken
--   particles  player, coins  draws sparks (additive)
--   hud        coins          draws the count and the time in screen space
--
-- camera and coins run side by side, and so do particles and hud. Everything lands in the frame
-- it is sent: the camera follows where the player is this frame, and a coin the player reaches
-- is taken, counted on the HUD and bursts into sparks in that frame; the level and the canvas
-- are there in frame 1. Read a frame after they were sent (what ona.inbox does), the camera
-- trails the player by 1 frame, a coin is taken and counted 1 frame after the player reaches it,
-- printed and its sparks drawn 2 frames after, and the level and the canvas arrive in frame 2;
-- tests/test_platformer.c measures both.
local args = ... or {}
local autoplay = args.autoplay ~= nil and args.autoplay ~= 0 and args.autoplay ~= false
  and args.autoplay ~= "0" and args.autoplay ~= "false"
local seed = math.floor(tonumber(args.seed) or 1)
local report = args.report
-- latency=1 (tests): player, camera, coins, particles and hud also report what each saw or did
-- and in which frame (see README: how many frames each chain takes).
local probe = (args.latency == 1 or args.latency == "1") and report or nil

ona.gfx.window({ title = "Ona platformer" })

-- Spawn order is draw order within a layer, and the order of messages from several senders
-- within one frame.
local function spawn(script, name, spawn_args, after)
  assert(ona.spawn(script, spawn_args, { name = name, after = after }))
end
spawn("post.lua", "post", {})
spawn("level.lua", "level", { seed = seed }, { "post" })
spawn("camera.lua", "camera", { probe = probe }, { "player" })
spawn("player.lua", "player", { autoplay = autoplay, report = report, probe = probe }, { "level" })
spawn("coins.lua", "coins", { report = report, probe = probe }, { "player" })
spawn("particles.lua", "particles", { seed = seed, probe = probe }, { "player", "coins" })
spawn("hud.lua", "hud", { probe = probe }, { "coins" })
