-- player.lua: the hero. Runs and jumps by the keyboard, a gamepad or the autoplay pilot, collides
-- with the solid tiles level sends, and animates from a sprite sheet.
--
--   in:  ("solid", buffer, w, h) from level; ("canvas", canvas) from post
--   out: ("player", x, y, vx, vy) to camera and coins every frame; ("dust", x, y) to particles
--        on landing; ("player", x, y, frame) to `report` (tests) every 10th frame
--
-- The body is a box config.body_w x config.body_h standing on (x, y). Movement is resolved one
-- axis at a time against the tile grid, so the box never enters a solid tile.
local config = require("config")
local messages = require("messages")
local ffi = require("ffi")

local T = config.tile

local function solid_at(state, tx, ty)
  if tx < 0 or tx >= state.w then
    return true -- the level's sides are walls
  end
  if ty < 0 or ty >= state.h or not state.cells then
    return false -- open sky above, a pit below
  end
  return state.cells[ty * state.w + tx] ~= 0
end

-- Whether the box [x0, x1) x [y0, y1) overlaps a solid tile.
local function blocked(state, x0, y0, x1, y1)
  for ty = math.floor(y0 / T), math.floor((y1 - 0.001) / T) do
    for tx = math.floor(x0 / T), math.floor((x1 - 0.001) / T) do
      if solid_at(state, tx, ty) then
        return true
      end
    end
  end
  return false
end

local function box(state, x, y)
  local hw = config.body_w / 2
  return x - hw, y - config.body_h, x + hw, y
end

-- The autoplay pilot: run right; jump at a wall or a gap ahead.
local function pilot(state)
  if not state.cells then
    return 0, false -- the level has not said where the ground is yet
  end
  local ahead = state.x + 14
  local tx, ty = math.floor(ahead / T), math.floor((state.y - 1) / T)
  local wall = solid_at(state, tx, ty) or solid_at(state, tx, ty - 1)
  local gap = not solid_at(state, tx, ty + 1) and not solid_at(state, tx, ty + 2)
  return 1, state.on_ground and (wall or gap)
end

local function read_input(state)
  if state.autoplay then
    return pilot(state)
  end
  local key = ona.input.key_down
  local move = ((key("right") or key("d")) and 1 or 0) - ((key("left") or key("a")) and 1 or 0)
  local jump = key("space") or key("up") or key("w")
  local pad = ona.input.gamepad and ona.input.gamepad(1)
  if pad and pad.connected then
    local lx = pad.axes.leftx or 0
    if math.abs(lx) > 0.3 then
      move = lx > 0 and 1 or -1
    end
    if pad.buttons.dpleft then move = -1 end
    if pad.buttons.dpright then move = 1 end
    jump = jump or pad.buttons.a
  end
  return move, jump
end

local handlers = {
  solid = function(state, _, buffer, w, h)
    state.solid, state.w, state.h = buffer, w, h -- keep the buffer alive: cells points into it
    state.cells = ffi.cast("const uint8_t *", buffer:ptr())
  end,
  canvas = function(state, _, canvas)
    state.canvas = canvas
  end,
}

local ANIMATIONS = {
  idle = { frames = { 1, 2 }, fps = 2, loop = true },
  run = { frames = { 3, 4, 5, 6 }, fps = 12, loop = true },
  jump = { frames = { 7 }, fps = 1, loop = false },
  fall = { frames = { 8 }, fps = 1, loop = false },
}

return {
  init = function(state, args)
    state.autoplay = args.autoplay
    state.report = args.report
    state.probe = args.probe
    state.peers = messages.peers
    state.x, state.y = 3 * T, (config.height - 4) * T
    state.vx, state.vy = 0, 0
    state.facing = 1
    state.on_ground = false
    state.sheet = ona.gfx.sheet(ona.gfx.texture("hero.png"), 16, 16, { animations = ANIMATIONS })
    state.anims = {}
    for name in pairs(ANIMATIONS) do
      state.anims[name] = state.sheet:animation(name)
    end
    state.anim = "idle"
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    for _, e in ipairs(events) do
      if e.type == "key_down" and e.key == "escape" then
        ona.quit()
      end
    end
    dt = math.min(dt, 1 / 30)
    local move, jump = read_input(state)
    if state.cells then
      -- Horizontal: accelerate towards the wanted speed, then move and stop at walls.
      local want = move * config.run_speed
      local accel = (state.on_ground and 1200 or 600) * dt
      state.vx = state.vx + math.max(-accel, math.min(accel, want - state.vx))
      if move ~= 0 then
        state.facing = move
      end
      local nx = state.x + state.vx * dt
      if blocked(state, box(state, nx, state.y)) then
        state.vx = 0
      else
        state.x = nx
      end
      -- Vertical: gravity, jumping, landing.
      if jump and state.on_ground then
        state.vy = -config.jump_speed
      end
      state.vy = math.min(state.vy + config.gravity * dt, 900)
      local ny = state.y + state.vy * dt
      local was_on_ground = state.on_ground
      state.on_ground = false
      if blocked(state, box(state, state.x, ny)) then
        if state.vy > 0 then
          ny = math.floor(ny / T) * T -- stand on the tile's top
          state.on_ground = true
          if not was_on_ground then
            ona.send(state.peers.particles, "dust", state.x, ny)
          end
        end
        state.vy = 0
        if blocked(state, box(state, state.x, ny)) then
          ny = state.y
        end
      end
      state.y = ny
      if state.y > (state.h + 4) * T then -- fell into a pit: back to the start
        state.x, state.y, state.vx, state.vy = 3 * T, (config.height - 4) * T, 0, 0
      end
    end

    local anim = not state.on_ground and (state.vy < 0 and "jump" or "fall")
      or (math.abs(state.vx) > 10 and "run" or "idle")
    if anim ~= state.anim then
      state.anim = anim
      state.anims[anim]:reset()
    end
    state.anims[anim]:update(dt)
    state.anims[anim]:draw(state.x, state.y, {
      ox = 8, oy = 16, sx = state.facing, sy = 1, layer = config.layers.player,
      target = state.canvas,
    })

    ona.send(state.peers.camera, "player", state.x, state.y, state.vx, state.vy)
    ona.send(state.peers.coins, "player", state.x, state.y, state.vx, state.vy)
    if state.probe then
      ona.send(state.probe, "at", state.x, state.y, ona.frame())
    end
    if state.report and ona.frame() % 10 == 0 then
      ona.send(state.report, "player", state.x, state.y, ona.frame())
    end
  end,
}
