-- game.lua: the referee. Owns the lives, the wave number and the mode of play:
--   "playing"  everything moves
--   "pause"    after a death, or between waves: the field freezes for config.pause_time
--   "over"     no lives left, or the invaders landed; r or enter starts a new game
--
--   in:  ("died") from player; ("cleared") and ("landed") from invaders; ("restart") from input
--   out: ("mode", mode, wave, lives, banner) to input, player, invaders, bullets, score and ui when the
--        mode, wave or lives change (and to args.report, if given, with the frame number);
--        ("start", wave) to invaders and ("reset") to shields for a new wave;
--        ("reset") to player and score for a new game
local config = require("config")
local messages = require("messages")

local handlers = {
  died = function(state)
    state.died = true
  end,
  cleared = function(state)
    state.cleared = true
  end,
  landed = function(state)
    state.landed = true
  end,
  restart = function(state)
    state.restart = true
  end,
}

local function announce(state)
  local p = state.peers
  local banner = ""
  if state.mode == "over" then
    banner = "GAME OVER"
  elseif state.mode == "pause" then
    banner = state.next_wave and ("WAVE " .. (state.wave + 1)) or "GET READY"
  end
  for _, to in ipairs({ p.input, p.player, p.invaders, p.bullets, p.score, p.ui }) do
    ona.send(to, "mode", state.mode, state.wave, state.lives, banner)
  end
  if state.report then
    ona.send(state.report, "mode", state.mode, state.wave, state.lives, ona.frame())
  end
end

local function new_wave(state, wave)
  state.wave = wave
  ona.send(state.peers.invaders, "start", wave)
  ona.send(state.peers.shields, "reset")
end

return {
  init = function(state, args)
    state.peers = messages.peers
    state.report = args.report
    state.start_lives = args.lives or config.lives
    state.lives = state.start_lives
    state.wave = 1
    state.mode = "playing"
    state.timer = 0
    announce(state)
    ona.audio.music("music.ogg", { loop = true, fade = 1, volume = 0.35 })
    state.music_on = true
  end,

  process = function(state, events, dt)
    state.died, state.cleared, state.landed, state.restart = false, false, false, false
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    local changed = false
    if state.mode == "over" then
      if state.restart then
        state.lives = state.start_lives
        state.next_wave = false
        new_wave(state, 1)
        ona.send(state.peers.player, "reset")
        ona.send(state.peers.score, "reset")
        state.mode = "playing"
        changed = true
      end
    else
      if state.died then
        state.lives = state.lives - 1
        changed = true
      end
      if state.cleared then
        state.next_wave = true
        changed = true
      end
      if state.landed or state.lives <= 0 then
        state.mode = "over"
        changed = true
      elseif state.died or state.cleared then
        state.mode = "pause"
        state.timer = config.pause_time
      elseif state.mode == "pause" then
        state.timer = state.timer - dt
        if state.timer <= 0 then
          if state.next_wave then
            state.next_wave = false
            new_wave(state, state.wave + 1)
          end
          state.mode = "playing"
          changed = true
        end
      end
    end
    if changed then
      announce(state)
      if state.mode == "over" then
        ona.audio.music(nil, { fade = 2 })
      elseif state.mode == "playing" and not state.music_on then
        ona.audio.music("music.ogg", { loop = true, fade = 1, volume = 0.35 })
      end
      state.music_on = state.mode ~= "over"
    end
  end,
}
