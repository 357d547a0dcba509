-- player.lua: the cannon. Moves by the intent input sends, asks bullets for shots, explodes
-- when collisions says a bomb hit it, and respawns when game resumes play.
--
--   in:  ("intent", move, fire) from input; ("hit") from collisions (last frame's, read before
--        it moves); ("mode", mode) and ("reset") from game
--   out: ("player", x, alive) to collisions every frame (false: no cannon to hit);
--        ("player_x", x) to invaders every frame (some bombs aim at it);
--        ("fire", x, y) to bullets; ("died") to game
local config = require("config")
local messages = require("messages")

local function respawn(state)
  state.alive = true
  state.x = config.width / 2
  state.exploding = 0
  state.cooldown = 0
end

local handlers = {
  intent = function(state, _, move, fire)
    state.move, state.fire = move, fire
  end,
  hit = function(state)
    if state.alive then
      state.alive = false
      state.exploding = config.explode_time
      ona.audio.play(state.sounds.boom, { volume = 0.9, pan = config.pan(state.x), group = "sfx" })
      ona.send(state.peers.game, "died")
    end
  end,
  mode = function(state, _, mode)
    state.mode = mode
    if mode == "playing" and not state.alive then
      respawn(state)
    end
  end,
  reset = function(state)
    respawn(state)
  end,
}

return {
  init = function(state, args)
    state.probe = args.probe
    state.sounds = { laser = ona.audio.sound("laser.wav"), boom = ona.audio.sound("boom.wav") }
    state.peers = messages.peers
    state.texture = ona.gfx.texture("cannon.png")
    state.mode = "playing"
    state.move, state.fire = 0, false
    respawn(state)
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    if state.probe and state.move ~= state.probed_move then
      state.probed_move = state.move -- the cannon moves by it from this frame on
      ona.send(state.probe, "move", state.move, ona.frame())
    end
    if state.alive and state.mode == "playing" then
      local x = state.x + state.move * config.player_speed * dt
      state.x = math.max(config.player_min_x, math.min(config.player_max_x, x))
      state.cooldown = state.cooldown - dt
      if state.fire and state.cooldown <= 0 then
        state.cooldown = config.fire_cooldown
        ona.send(state.peers.bullets, "fire", state.x, config.player_y)
        ona.audio.play(state.sounds.laser, { volume = 0.4, pan = config.pan(state.x), group = "sfx" })
      end
    end
    ona.send(state.peers.collisions, "player", state.x, state.alive)
    ona.send(state.peers.invaders, "player_x", state.x)

    local cell
    if state.alive then
      cell = 0
    elseif state.exploding > 0 then
      state.exploding = state.exploding - dt
      cell = 1 + math.floor(state.exploding * 10) % 2
    end
    if cell then
      ona.gfx.draw(state.texture, state.x, config.player_y, {
        src = { cell * 16, 0, 16, 8 }, ox = 7.5, layer = config.layer.cannon,
        tint = config.tint.cannon,
      })
    end
  end,
}
