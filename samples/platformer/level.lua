-- level.lua: builds the level (a tile map larger than the screen) and draws its visible tiles.
--
--   out: ("solid", buffer, w, h) to player once: a copy of the tile ids, MOVED (not copied);
--        ("coins", {x1, y1, x2, y2, ...}) to coins once; ("bounds", w, h) to camera once, in
--        world units
--   in:  ("canvas", canvas) from post: the world is drawn into it
--
-- The level is generated from the seed: ground with gaps, wooden bridges, brick walls, stone
-- steps, bushes, coins over the jumps, and a flag at the end. Tile ids follow tiles.png
-- (tools/make_platformer_png.py): 1 grass, 2 earth, 3 brick, 4 stone, 5 plank, 6 bush, 7 pole,
-- 8 flag.
local config = require("config")
local messages = require("messages")

local W, H, T = config.width, config.height, config.tile

-- Builds the level's tile map from the seed; returns it and the coins' centres {x1, y1, ...}.
local function build(seed, tiles)
  -- A tiny deterministic generator (an LCG): the same level for a seed on any machine.
  local lcg = seed % 2147483647
  if lcg <= 0 then
    lcg = lcg + 2147483646
  end
  local function rand(n)
    lcg = lcg * 48271 % 2147483647
    return lcg % n
  end
  local map = ona.gfx.tilemap(tiles, T, T, W, H)
  local coins = {}
  local ground = H - 4 -- the row of the grass (0-based)
  local function put(x, y, id)
    if x >= 0 and x < W and y >= 0 and y < H then
      map:set(x, y, id)
    end
  end
  local function column(x, top)
    put(x, top, 1)
    for y = top + 1, H - 1 do
      put(x, y, 2)
    end
  end
  local function coin(x, y)
    coins[#coins + 1] = x * T + T / 2
    coins[#coins + 1] = y * T + T / 2
  end

  -- Ground with a feature every few tiles; the first and last stretches are flat.
  local x = 0
  while x < W do
    local kind = (x < 12 or x > W - 16) and 0 or rand(6)
    if kind == 1 then -- a gap with coins over it
      local gap = 2 + rand(2)
      for i = 0, gap - 1 do
        coin(x + i, ground - 3)
      end
      x = x + gap
    elseif kind == 2 then -- a bridge over a gap
      local len = 4 + rand(3)
      for i = 0, len - 1 do
        put(x + i, ground, 5)
      end
      x = x + len
    elseif kind == 3 then -- a brick wall to jump over
      local h = 1 + rand(3)
      for i = 0, 2 do
        column(x + i, ground)
      end
      for y = ground - h, ground - 1 do
        put(x + 1, y, 3)
      end
      coin(x + 1, ground - h - 2)
      x = x + 3
    elseif kind == 4 then -- stone steps up and down
      for i = 0, 5 do
        column(x + i, ground)
      end
      for i = 1, 2 do
        put(x + i, ground - i, 4)
        put(x + 5 - i, ground - i, 4)
      end
      put(x + 3, ground - 2, 4)
      coin(x + 3, ground - 4)
      x = x + 6
    else -- flat ground, maybe a bush and a floating platform with coins
      local len = 3 + rand(4)
      for i = 0, len - 1 do
        column(x + i, ground)
      end
      if rand(2) == 0 then
        put(x + 1, ground - 1, 6)
      end
      if len >= 5 and rand(2) == 0 then
        for i = 1, 3 do
          put(x + i, ground - 5, 5)
          coin(x + i, ground - 6)
        end
      end
      x = x + len
    end
  end
  for y = ground - 6, ground - 1 do -- the flag at the end
    put(W - 6, y, 7)
  end
  put(W - 6, ground - 7, 8)
  return map, coins
end

local handlers = {
  canvas = function(state, _, canvas)
    state.canvas = canvas
  end,
}

return {
  init = function(state, args)
    state.map, state.coins = build(tonumber(args and args.seed) or 1, ona.gfx.texture("tiles.png"))
    -- The player's copy of the solid tiles: a byte grid, sent (moved, not copied) once.
    local solid = ona.buffer("uint8_t", W * H)
    local cells = solid:ptr()
    for y = 0, H - 1 do
      for x = 0, W - 1 do
        cells[y * W + x] = config.solid[state.map:get(x, y)] and 1 or 0
      end
    end
    local peers = messages.peers
    ona.send(peers.player, "solid", solid, W, H)
    ona.send(peers.coins, "coins", state.coins)
    ona.send(peers.camera, "bounds", W * T, H * T)
  end,

  process = function(state)
    messages.dispatch(state, handlers)
    state.map:draw(0, 0, { layer = config.layers.tiles, target = state.canvas })
  end,
}
