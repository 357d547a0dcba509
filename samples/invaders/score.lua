-- score.lua: the score and the high score, which is saved (ona.save) in the player's data
-- folder when a game ends with a new one, and loaded at start.
--
--   in:  ("invader", kind) from collisions; ("reset") and ("mode", mode) from game
--   out: ("score", score, hi) to ui when either changes;
--        ("score", score, frame) to args.report (optional) when the score changes
local config = require("config")
local messages = require("messages")

local handlers = {
  invader = function(state, _, kind)
    state.score = state.score + (config.points[kind] or 0)
    state.hi = math.max(state.hi, state.score)
  end,
  reset = function(state)
    state.score = 0
  end,
  mode = function(state, _, mode)
    if mode == "over" and state.hi > state.saved_hi then
      local ok, err = ona.save("highscore", { hi = state.hi })
      if ok then
        state.saved_hi = state.hi
      else
        ona.log("warn", err)
      end
    end
  end,
}

return {
  init = function(state, args)
    state.peers = messages.peers
    state.report = args.report
    state.score, state.hi = 0, 0
    local saved, err = ona.load("highscore")
    if type(saved) == "table" and type(saved.hi) == "number" then
      state.hi = math.floor(saved.hi)
    elseif err and not err:find("no such save", 1, true) then
      ona.log("warn", err) -- a broken save is reported and ignored, not fatal
    end
    state.saved_hi = state.hi
  end,

  process = function(state)
    local before, before_hi = state.shown, state.shown_hi
    messages.dispatch(state, handlers)
    if state.score ~= before or state.hi ~= before_hi then
      state.shown, state.shown_hi = state.score, state.hi
      ona.send(state.peers.ui, "score", state.score, state.hi)
      if state.report and before ~= nil and state.score ~= before then
        ona.send(state.report, "score", state.score, ona.frame())
      end
    end
  end,
}
