-- score.lua: the score and the high score.
--
--   in:  ("invader", kind) from collisions; ("reset") from game (a new game)
--   out: ("score", score, hi) to ui when either changes;
--        ("score", score, frame) to args.report (optional) when the score changes
local config = require("config")
local inbox = require("inbox")

local handlers = {
  invader = function(state, _, kind)
    state.score = state.score + (config.points[kind] or 0)
    state.hi = math.max(state.hi, state.score)
  end,
  reset = function(state)
    state.score = 0
  end,
}

return {
  init = function(state, args)
    state.peers = inbox.peers("ui")
    state.report = args.report
    state.score, state.hi = 0, 0
  end,

  process = function(state)
    local before, before_hi = state.shown, state.shown_hi
    inbox.dispatch(state, handlers)
    if state.score ~= before or state.hi ~= before_hi then
      state.shown, state.shown_hi = state.score, state.hi
      inbox.send(state.peers.ui, "score", state.score, state.hi)
      if state.report and before ~= nil and state.score ~= before then
        ona.send(state.report, "score", state.score, ona.frame())
      end
    end
  end,
}
