-- config.lua: the playfield's geometry and the rules' numbers. Every system requires its own
-- copy (each system has its own Lua state); nothing here changes while the game runs, so this is
-- shared code, not shared state.
--
-- The world is 320 x 240 units, y down; the ui system points the camera at its centre with the
-- largest zoom that fits the window (an integer one when it is at least 1), so the game looks the
-- same in any window.
local C = {}

C.width, C.height = 320, 240
-- Every system moves by the frame's dt, but never by more than this: a stalled frame (a window
-- being dragged) slows the game down instead of teleporting what moves.
C.max_dt = 1 / 20
C.top = 16 -- the HUD line is above this; the player's laser vanishes here

-- The formation: 5 rows of 11, in 16 x 16 cells. Row 1 is squids, rows 2-3 crabs, rows 4-5
-- octopuses (kinds 1, 2, 3: their row in invaders.png, their points, their hit-box width).
C.rows, C.cols = 5, 11
C.cell_w, C.cell_h = 16, 16
C.kind_of_row = { 1, 2, 2, 3, 3 }
C.points = { 30, 20, 10 }
C.invader_w = { 8, 11, 12 }
C.invader_h = 8
C.formation_x = (C.width - C.cols * C.cell_w) / 2 -- left edge of column 1's cell
C.formation_y = 32 -- top of row 1 in wave 1; each wave starts `wave_drop` lower
C.wave_drop, C.max_wave_drop = 8, 40
C.march_x, C.march_y = 3, 8 -- a step sideways; a step down at an edge
C.margin = 6 -- how close to the world's side the formation comes
-- Seconds between steps: march_full with all 55 alive, down to march_min with one, times
-- march_wave for each wave after the first.
C.march_full, C.march_min, C.march_wave = 0.5, 1 / 60, 0.85
C.explosion_time = 0.25 -- a hit invader's explosion stays this long

-- Invaders' bombs: a bomb every bomb_min..bomb_max seconds (times bomb_wave per wave), at most
-- max_bombs in flight; one in `aim` is dropped from the column nearest the player.
C.bomb_min, C.bomb_max, C.bomb_wave = 0.5, 1.4, 0.9
C.max_bombs = 3
C.aim = 3
C.bomb_speed, C.bomb_speed_wave, C.bomb_speed_max = 90, 10, 150
C.bomb_w, C.bomb_h = 3, 7

-- The player's cannon: 13 x 8, its top at player_y; x is its centre.
C.player_y = 204
C.player_w, C.player_h = 13, 8
C.player_speed = 100
C.player_min_x, C.player_max_x = 12, C.width - 12
C.lives = 3
C.fire_cooldown = 0.1 -- seconds between the cannon's requests for a shot
C.laser_speed = 300
C.laser_w, C.laser_h = 1, 4
C.explode_time = 1.0 -- the cannon's explosion
C.pause_time = 2.0 -- after a death, or between waves

C.ground_y = 216 -- bombs splat here
C.lives_y = 224 -- the bottom text line

-- Shields: 4 of them, 12 x 8 blocks of 2 x 2 units each (24 x 16), their tops at shield_y.
C.shields = 4
C.shield_cols, C.shield_rows, C.shield_block = 12, 8, 2
C.shield_y = 176
C.shield_x = {} -- left edges
for i = 1, C.shields do
  C.shield_x[i] = C.width * (2 * i - 1) / (2 * C.shields) - C.shield_cols * C.shield_block / 2
end
C.shield_shape = {
  "..########..",
  ".##########.",
  "############",
  "############",
  "############",
  "############",
  "####....####",
  "###......###",
}

-- Colours (0xRRGGBBAA tints of the white art).
C.tint = {
  kind = { 0xFF80FFFF, 0x60E0FFFF, 0x70FF70FF },
  explosion = 0xFFFFFFFF,
  cannon = 0x40FF40FF,
  shield = 0x40E040FF,
  laser = 0xFFFFFFFF,
  bomb = 0xFFF080FF,
  splat = 0xFF9040FF,
  ground = 0x40E040FF,
  backdrop = 0x080814FF,
  panel = 0x000000D8,
  text = 0xFFFFFFFF,
  value = 0x70FF70FF,
  banner = 0xFFE040FF,
  over = 0xFF5050FF,
}

-- 0xRRGGBBAA as the sprite buffers' 0xAABBGGRR (arithmetic, not bit ops: no sign to lose).
function C.abgr(rgba)
  local r = math.floor(rgba / 2 ^ 24) % 256
  local g = math.floor(rgba / 2 ^ 16) % 256
  local b = math.floor(rgba / 2 ^ 8) % 256
  local a = rgba % 256
  return ((a * 256 + b) * 256 + g) * 256 + r
end

-- Sprite layers: lower first.
C.layer = { backdrop = -10, shields = 1, invaders = 2, cannon = 3, shots = 4, hud = 10, text = 100 }
-- The world camera covers layers up to world_last; the text layer above is in screen space, so
-- the TTF text is rasterised at the window's own pixel size instead of being zoomed.
C.world_last = 99

-- A sound's stereo position for a world x: -0.8 (left edge) .. 0.8 (right edge).
function C.pan(x)
  return (x / C.width) * 1.6 - 0.8
end

return C
