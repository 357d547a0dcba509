-- bullets.lua: every shot in flight: the player's laser (one at a time) and the invaders' bombs
-- (at most config.max_bombs). Moves them, drops the ones that left the field, and removes the
-- ones collisions says hit something, leaving a splat where they ended.
--
--   in:  ("fire", x, y) from player; ("bomb", x, y, kind) from invaders;
--        ("remove", {id, ...}) from collisions; ("mode", mode) from game
--   out: ("bullets", {id, kind, x, y, previous y, ...}) to collisions every frame
--        (kind 0 is the laser, 1 and 2 the bombs; x is the centre, y the top)
--
-- Requests outside play, a second laser, or a bomb past the limit are refused: the game's rules,
-- not a lost message.
local config = require("config")
local messages = require("messages")

local C = config
local SPLAT_TIME = 0.2

local function count_kind(state, laser)
  local n = 0
  for _, b in ipairs(state.list) do
    if (b.kind == 0) == laser then
      n = n + 1
    end
  end
  return n
end

local function add(state, kind, x, y)
  state.next_id = state.next_id + 1
  state.list[#state.list + 1] = { id = state.next_id, kind = kind, x = x, y = y, py = y }
end

local function splat(state, x, y)
  state.splats[#state.splats + 1] = { x = x, y = y, t = SPLAT_TIME }
end

local handlers = {
  fire = function(state, _, x, y)
    if state.mode == "playing" and count_kind(state, true) == 0 then
      add(state, 0, x, y - C.laser_h)
      if state.probe then -- drawn from this frame on
        ona.send(state.probe, "shot", ona.frame())
      end
    end
  end,
  bomb = function(state, _, x, y, kind)
    if state.mode == "playing" and count_kind(state, false) < C.max_bombs then
      add(state, kind, x, y)
    end
  end,
  remove = function(state, _, ids)
    local gone = {}
    for _, id in ipairs(ids) do
      gone[id] = true
    end
    local kept = {}
    for _, b in ipairs(state.list) do
      if gone[b.id] then
        splat(state, b.x, b.kind == 0 and b.y or b.y + C.bomb_h)
      else
        kept[#kept + 1] = b
      end
    end
    state.list = kept
  end,
  mode = function(state, _, mode, wave)
    state.mode = mode
    state.wave = wave or state.wave
  end,
}

return {
  init = function(state, args)
    state.probe = args.probe
    state.peers = messages.peers
    state.texture = ona.gfx.texture("shots.png")
    state.list, state.splats = {}, {}
    state.next_id = 0
    state.mode = "playing"
    state.wave = 1
    state.time = 0
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    if state.mode ~= "playing" then
      state.list = {}
    end
    state.time = state.time + dt
    local bomb_speed = math.min(C.bomb_speed_max, C.bomb_speed + C.bomb_speed_wave * (state.wave - 1))
    local kept, snapshot = {}, {}
    for _, b in ipairs(state.list) do
      b.py = b.y
      if b.kind == 0 then
        b.y = b.y - C.laser_speed * dt
      else
        b.y = b.y + bomb_speed * dt
      end
      if b.kind == 0 and b.y < C.top then
        splat(state, b.x, C.top)
      elseif b.kind ~= 0 and b.y + C.bomb_h > C.ground_y then
        splat(state, b.x, C.ground_y - 3)
      else
        kept[#kept + 1] = b
        if state.probe and b.kind == 0 then -- where the laser is this frame
          ona.send(state.probe, "laser", b.y, ona.frame())
        end
        local n = #snapshot
        snapshot[n + 1], snapshot[n + 2], snapshot[n + 3] = b.id, b.kind, b.x
        snapshot[n + 4], snapshot[n + 5] = b.y, b.py
      end
    end
    state.list = kept
    ona.send(state.peers.collisions, "bullets", snapshot)

    local frame = math.floor(state.time * 12) % 2
    for _, b in ipairs(state.list) do
      local cell = b.kind == 0 and 0 or (2 * b.kind - 1 + frame)
      ona.gfx.draw(state.texture, b.x, b.y, { src = { cell * 8, 0, 8, 8 }, ox = 3.5,
        layer = C.layer.shots, tint = b.kind == 0 and C.tint.laser or C.tint.bomb })
    end
    local left = {}
    for _, s in ipairs(state.splats) do
      ona.gfx.draw(state.texture, s.x, s.y, { src = { 40, 0, 8, 8 }, ox = 4, oy = 4,
        layer = C.layer.shots, tint = C.tint.splat })
      s.t = s.t - dt
      if s.t > 0 then
        left[#left + 1] = s
      end
    end
    state.splats = left
  end,
}
