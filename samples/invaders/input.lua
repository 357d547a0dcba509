-- input.lua: turns the keyboard (or, with autoplay, a simple pilot) into the player's intent.
--
--   in:  ("mode", mode) from game; ("world", summary) from collisions (autoplay only): both a
--        frame old, since input runs first
--   out: ("intent", move, fire) to player every frame (move is -1, 0 or 1);
--        ("restart") to game for r or enter; escape quits
--
-- The autoplay pilot watches the world summary collisions sends it (it asks with "watch"):
-- it steps away from a bomb falling close to the cannon, else moves under the nearest column of
-- invaders (where that column will be when the laser gets there) and fires once it is there. After a game over it restarts after a few seconds.
local config = require("config")
local messages = require("messages")

local function sign(x)
  return x > 0 and 1 or (x < 0 and -1 or 0)
end

-- The pilot's move for a world summary (see collisions.lua), and whether to fire.
local function pilot(world)
  local px = world.px
  for i = 1, #world.bombs, 2 do
    local bx, by = world.bombs[i], world.bombs[i + 1]
    if by > config.player_y - 60 and math.abs(bx - px) < config.player_w then
      local away = sign(px - bx)
      if away == 0 then
        away = px < config.width / 2 and 1 or -1
      end
      if (px <= config.player_min_x + 1 and away < 0) or (px >= config.player_max_x - 1 and away > 0) then
        away = -away
      end
      return away, true
    end
  end
  -- Where each column's lowest invader will be when a laser fired now gets there (the summary
  -- is a frame old: add it), ignoring a turn at the edge.
  local best
  for i = 1, #world.cols, 2 do
    local t = (config.player_y - world.cols[i + 1]) / config.laser_speed + 1 / 60
    local x = world.cols[i] + world.vx * t
    if not best or math.abs(x - px) < math.abs(best - px) then
      best = x
    end
  end
  if best and math.abs(best - px) > 3 then
    return sign(best - px), math.abs(best - px) < 5
  end
  return 0, true
end

local handlers = {
  mode = function(state, _, mode)
    state.mode = mode
    state.over_time = 0
  end,
  world = function(state, _, world)
    state.world = world
  end,
}

return {
  init = function(state, args)
    state.autoplay = args.autoplay
    state.peers = messages.peers
    state.mode = "playing"
    state.over_time = 0
    if state.autoplay then
      ona.send(state.peers.collisions, "watch")
    end
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    local pressed_fire, restart = false, false
    for _, e in ipairs(events) do
      if e.type == "key_down" then
        if e.key == "escape" then
          ona.quit()
        elseif e.key == "space" then
          pressed_fire = true -- a tap between two frames still fires
        elseif e.key == "r" or e.key == "return" or e.key == "keypad enter" then
          restart = true
        end
      end
    end

    local move, fire
    if state.autoplay then
      move, fire = 0, false
      if state.world and state.mode == "playing" then
        move, fire = pilot(state.world)
      end
      if state.mode == "over" then
        state.over_time = state.over_time + dt
        if state.over_time > 3 then
          restart = true
          state.over_time = -math.huge -- once per game over
        end
      end
    else
      local key = ona.input.key_down
      local left = key("left") or key("a")
      local right = key("right") or key("d")
      move = (right and 1 or 0) - (left and 1 or 0)
      fire = pressed_fire or key("space")
      -- The first gamepad: the left stick or the d-pad moves, A fires, Start restarts.
      local pad = ona.input.gamepad(1)
      if pad and pad.connected then
        local x = pad.axes.leftx or 0
        if pad.buttons.dpleft or x < -0.4 then
          move = -1
        elseif pad.buttons.dpright or x > 0.4 then
          move = 1
        end
        fire = fire or pad.buttons.a
        restart = restart or (pad.buttons.start and state.mode == "over")
      end
    end

    ona.send(state.peers.player, "intent", move, fire)
    if restart then
      ona.send(state.peers.game, "restart")
    end
  end,
}
