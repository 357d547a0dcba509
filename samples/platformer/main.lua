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
-- The systems, and who tells whom what (every message is read in the frame after it was sent;
-- see ona.inbox, scripts/inbox.lua):
--
--   level      -> player     the solid tiles (a buffer, moved); -> coins: where the coins are;
--                 -> camera: the level's size
--   player     -> camera, coins  where the player is, every frame; -> particles: dust on landing
--   coins      -> hud        the count; -> particles: a burst where a coin was taken
--   camera     sets the world camera, draws the sky
--   particles  draws sparks (additive)
--   post       sends its canvas to everyone who draws the world, draws it through post.frag
--   hud        draws the count and the time in screen space
local args = ... or {}
local autoplay = args.autoplay ~= nil and args.autoplay ~= 0 and args.autoplay ~= false
  and args.autoplay ~= "0" and args.autoplay ~= "false"
local seed = math.floor(tonumber(args.seed) or 1)
local report = args.report

ona.gfx.window({ title = "Ona platformer" })

-- Spawn order is draw order within a layer, and the order in which each system reads messages
-- from several senders (ona.inbox sorts by sender handle).
assert(ona.spawn("post.lua", {}, { name = "post" }))
assert(ona.spawn("level.lua", { seed = seed }, { name = "level" }))
assert(ona.spawn("camera.lua", {}, { name = "camera" }))
assert(ona.spawn("player.lua", { autoplay = autoplay, report = report }, { name = "player" }))
assert(ona.spawn("coins.lua", { report = report }, { name = "coins" }))
assert(ona.spawn("particles.lua", { seed = seed }, { name = "particles" }))
assert(ona.spawn("hud.lua", {}, { name = "hud" }))
