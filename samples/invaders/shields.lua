-- shields.lua: the four shields, each 12 x 8 blocks that shots and marching invaders wear away.
--
--   in:  ("erase", {x0, y0, x1, y1, ...}) from collisions: world rectangles whose blocks go;
--        ("reset") from game (a new wave or a new game)
--   out: ("shields", {mask, ...}) to collisions every frame: shields x rows 12-bit masks, shield
--        by shield, top row first; bit c-1 is block column c
local bit = require("bit")
local config = require("config")
local messages = require("messages")

local C = config
local B = C.shield_block

local function reset(state)
  state.masks = {}
  for s = 1, C.shields do
    for r = 1, C.shield_rows do
      local mask, row = 0, C.shield_shape[r]
      for c = 1, C.shield_cols do
        if row:sub(c, c) == "#" then
          mask = bit.bor(mask, bit.lshift(1, c - 1))
        end
      end
      state.masks[(s - 1) * C.shield_rows + r] = mask
    end
  end
  state.dirty = true
end

local function erase(state, x0, y0, x1, y1)
  for s = 1, C.shields do
    local left = C.shield_x[s]
    -- Blocks whose square overlaps the rectangle.
    local c0 = math.max(1, math.floor((x0 - left) / B) + 1)
    local c1 = math.min(C.shield_cols, math.ceil((x1 - left) / B))
    local r0 = math.max(1, math.floor((y0 - C.shield_y) / B) + 1)
    local r1 = math.min(C.shield_rows, math.ceil((y1 - C.shield_y) / B))
    for r = r0, r1 do
      local i = (s - 1) * C.shield_rows + r
      for c = c0, c1 do
        state.masks[i] = bit.band(state.masks[i], bit.bnot(bit.lshift(1, c - 1)))
      end
    end
  end
  state.dirty = true
end

local handlers = {
  erase = function(state, _, rects)
    for i = 1, #rects, 4 do
      erase(state, rects[i], rects[i + 1], rects[i + 2], rects[i + 3])
    end
  end,
  reset = function(state)
    reset(state)
  end,
}

-- The blocks as sprites, rebuilt only when a shield changed.
local function rebuild(state)
  local p = state.sprites:ptr()
  local n = 0
  for s = 1, C.shields do
    for r = 1, C.shield_rows do
      local mask = state.masks[(s - 1) * C.shield_rows + r]
      for c = 1, C.shield_cols do
        if bit.band(mask, bit.lshift(1, c - 1)) ~= 0 then
          local q = p[n]
          q.x = C.shield_x[s] + (c - 1) * B
          q.y = C.shield_y + (r - 1) * B
          q.scale_x, q.scale_y = B, B
          q.tint = state.tint
          n = n + 1
        end
      end
    end
  end
  state.count = n
end

return {
  init = function(state)
    state.peers = messages.peers
    state.texture = ona.gfx.texture("pixel.png")
    state.sprites = ona.gfx.sprites(C.shields * C.shield_rows * C.shield_cols)
    state.tint = C.abgr(C.tint.shield)
    reset(state)
  end,

  process = function(state)
    messages.dispatch(state, handlers)
    if state.dirty then
      rebuild(state)
      state.dirty = false
    end
    local masks = {}
    for i, m in ipairs(state.masks) do
      masks[i] = m
    end
    ona.send(state.peers.collisions, "shields", masks)
    ona.gfx.draw_sprites(state.texture, state.sprites, state.count, C.layer.shields)
  end,
}
