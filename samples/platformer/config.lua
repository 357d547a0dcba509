-- config.lua: the numbers every system of the platformer agrees on.
return {
  tile = 16, -- tile size in world units (pixels at zoom 1)
  width = 200, -- the level, in tiles
  height = 30,
  zoom = 2, -- world pixels are drawn 2x2
  solid = { [1] = true, [2] = true, [3] = true, [4] = true, [5] = true },
  gravity = 1400, -- world units / s^2
  run_speed = 150,
  jump_speed = 520,
  body_w = 10, -- the player's box, centred on x, standing on y
  body_h = 14,
  layers = { sky = 0, tiles = 10, coins = 15, player = 20, sparks = 30, world_last = 49,
             screen = 60, hud = 100 },
}
