-- invaders.lua: the formation. Marches sideways in steps, steps down and turns at the edges,
-- marches faster as it thins out (and each wave faster than the last), drops bombs at seeded
-- pseudo-random times and columns, and says when it is cleared or has landed.
--
--   in:  ("killed", row, col) from collisions (last frame's hits, read before it marches);
--        ("player_x", x) from player (last frame's);
--        ("mode", mode) and ("start", wave) from game
--   out: ("formation", {x, y, vx, alive = {row masks}}) to collisions every frame (vx: the
--        march's mean speed sideways, units a second);
--        ("bomb", x, y, kind) to bullets; ("cleared") and ("landed") to game
--
-- A kill always arrives before a "start" that replaces its formation: collisions found it in
-- the frame before, and messages come in the order of the frame they were sent in.
local bit = require("bit")
local config = require("config")
local messages = require("messages")
local rng = require("rng")

local C = config
local n_cells = C.rows * C.cols

-- Centre of cell (r, c) and its invader's kind.
local function centre(state, r, c)
  return state.x + (c - 1) * C.cell_w + C.cell_w / 2, state.y + (r - 1) * C.cell_h + C.invader_h / 2
end

local function bomb_interval(state)
  local scale = math.max(0.3, C.bomb_wave ^ (state.wave - 1))
  return state.rng:range(C.bomb_min, C.bomb_max) * scale
end

local function start(state, wave)
  state.wave = wave
  state.alive = {}
  for i = 1, n_cells do
    state.alive[i] = true
  end
  state.count = n_cells
  state.x = C.formation_x
  state.y = C.formation_y + math.min((wave - 1) * C.wave_drop, C.max_wave_drop)
  state.dir = 1
  state.timer = 0
  state.frame = 0
  state.bomb_timer = bomb_interval(state)
  state.explosions = {}
  state.told = false -- "cleared" or "landed" sent for this formation
end

-- Left and right edges of the alive invaders' hit boxes, and the bottom of the lowest.
local function extent(state)
  local left, right, bottom = math.huge, -math.huge, -math.huge
  for r = 1, C.rows do
    local half = C.invader_w[C.kind_of_row[r]] / 2
    for c = 1, C.cols do
      if state.alive[(r - 1) * C.cols + c] then
        local cx, cy = centre(state, r, c)
        left = math.min(left, cx - half)
        right = math.max(right, cx + half)
        bottom = math.max(bottom, cy + C.invader_h / 2)
      end
    end
  end
  return left, right, bottom
end

local function step(state)
  local left, right = extent(state)
  if (state.dir > 0 and right + C.march_x > C.width - C.margin)
      or (state.dir < 0 and left - C.march_x < C.margin) then
    state.y = state.y + C.march_y
    state.dir = -state.dir
  else
    state.x = state.x + state.dir * C.march_x
  end
  state.frame = 1 - state.frame
end

local function march_interval(state)
  local t = math.max(C.march_min, C.march_full * state.count / n_cells)
  return t * C.march_wave ^ (state.wave - 1)
end

-- The lowest alive row of column c, or nil.
local function lowest(state, c)
  for r = C.rows, 1, -1 do
    if state.alive[(r - 1) * C.cols + c] then
      return r
    end
  end
end

local function drop_bomb(state)
  local columns = {}
  for c = 1, C.cols do
    if lowest(state, c) then
      columns[#columns + 1] = c
    end
  end
  if #columns == 0 then
    return
  end
  local c = columns[state.rng:int(1, #columns)]
  if state.rng:int(1, C.aim) == 1 and state.player_x then
    local best = math.huge
    for _, k in ipairs(columns) do
      local d = math.abs(centre(state, 1, k) - state.player_x)
      if d < best then
        best, c = d, k
      end
    end
  end
  local x, y = centre(state, lowest(state, c), c)
  ona.send(state.peers.bullets, "bomb", x, y + C.invader_h / 2, state.rng:int(1, 2))
end

local handlers = {
  killed = function(state, _, r, c)
    local i = (r - 1) * C.cols + c
    state.alive[i] = false
    state.count = state.count - 1
    local x, y = centre(state, r, c)
    state.explosions[#state.explosions + 1] = { x = x, y = y, t = C.explosion_time }
    if state.probe then -- the invader is gone and its explosion drawn from this frame on
      ona.send(state.probe, "boom", ona.frame())
    end
  end,
  player_x = function(state, _, x)
    state.player_x = x
  end,
  mode = function(state, _, mode)
    state.mode = mode
  end,
  start = function(state, _, wave)
    start(state, wave)
  end,
}

local function draw(state, dt)
  local p = state.sprites:ptr()
  local n = 0
  for r = 1, C.rows do
    local kind = C.kind_of_row[r]
    for c = 1, C.cols do
      if state.alive[(r - 1) * C.cols + c] then
        local s = p[n]
        s.x, s.y = centre(state, r, c)
        s.origin_x, s.origin_y = 8, 4
        s.scale_x, s.scale_y = 1, 1
        s.src_x, s.src_y, s.src_w, s.src_h = state.frame * 16, (kind - 1) * 8, 16, 8
        s.tint = state.tints[kind]
        n = n + 1
      end
    end
  end
  ona.gfx.draw_sprites(state.texture, state.sprites, n, C.layer.invaders)
  local kept = {}
  for _, e in ipairs(state.explosions) do
    ona.gfx.draw(state.texture, e.x, e.y, { src = { 0, 24, 16, 8 }, ox = 8, oy = 4,
      layer = C.layer.invaders, tint = C.tint.explosion })
    e.t = e.t - dt
    if e.t > 0 then
      kept[#kept + 1] = e
    end
  end
  state.explosions = kept
end

return {
  init = function(state, args)
    state.march = {}
    for i = 1, 4 do
      state.march[i] = ona.audio.sound(("march%d.wav"):format(i))
    end
    state.note = 0
    state.probe = args.probe
    state.peers = messages.peers
    state.rng = rng.new(args.seed or 1)
    state.texture = ona.gfx.texture("invaders.png")
    state.sprites = ona.gfx.sprites(n_cells)
    state.tints = {}
    for k, t in ipairs(C.tint.kind) do
      state.tints[k] = C.abgr(t)
    end
    state.mode = "playing"
    start(state, 1)
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    if state.mode == "playing" and state.count > 0 then
      state.timer = state.timer + dt
      local interval = march_interval(state)
      local steps = 0
      while state.timer >= interval and steps < 4 do
        state.timer = state.timer - interval
        step(state)
        state.note = state.note % 4 + 1
        ona.audio.play(state.march[state.note], { volume = 0.5, group = "sfx" })
        steps = steps + 1
      end
      if steps == 4 then
        state.timer = 0
      end
      state.bomb_timer = state.bomb_timer - dt
      if state.bomb_timer <= 0 then
        state.bomb_timer = bomb_interval(state)
        drop_bomb(state)
      end
    end
    if not state.told then
      local _, _, bottom = extent(state)
      if state.count == 0 then
        state.told = true
        ona.send(state.peers.game, "cleared")
      elseif bottom >= C.player_y then
        state.told = true
        ona.send(state.peers.game, "landed")
      end
    end

    local rows = {}
    for r = 1, C.rows do
      local mask = 0
      for c = 1, C.cols do
        if state.alive[(r - 1) * C.cols + c] then
          mask = bit.bor(mask, bit.lshift(1, c - 1))
        end
      end
      rows[r] = mask
    end
    local vx = 0
    if state.mode == "playing" and state.count > 0 then
      vx = state.dir * C.march_x / math.max(march_interval(state), dt)
    end
    ona.send(state.peers.collisions, "formation",
      { x = state.x, y = state.y, vx = vx, alive = rows })
    draw(state, dt)
  end,
}
