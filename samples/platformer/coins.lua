-- coins.lua: the coins to collect, spinning (a sprite-sheet animation).
--
--   in:  ("coins", {x1, y1, ...}) from level; ("player", x, y) from player;
--        ("canvas", canvas) from post
--   out: ("coins", count) to hud and ("burst", x, y) to particles when one is taken;
--        ("coins", count, frame) to `report` (tests) when the count changes
local config = require("config")
local messages = require("messages")

local handlers = {
  coins = function(state, _, list)
    for i = 1, #list, 2 do
      state.left[#state.left + 1] = { x = list[i], y = list[i + 1] }
    end
  end,
  player = function(state, _, x, y)
    state.px, state.py = x, y
  end,
  canvas = function(state, _, canvas)
    state.canvas = canvas
  end,
}

return {
  init = function(state, args)
    state.report = args.report
    state.probe = args.probe
    state.peers = messages.peers
    state.left = {}
    state.taken = 0
    local sheet = ona.gfx.sheet(ona.gfx.texture("coin.png"), 8, 8, {
      animations = { spin = { frames = { 1, 2, 3, 4 }, fps = 8, loop = true } },
    })
    state.spin = sheet:animation("spin")
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    if state.px then
      local keep = {}
      local cx, cy = state.px, state.py - config.body_h / 2
      for _, c in ipairs(state.left) do
        if math.abs(c.x - cx) < 10 and math.abs(c.y - cy) < 12 then
          state.taken = state.taken + 1
          if state.probe then -- the player's position it was taken at
            ona.send(state.probe, "took", state.px, state.py, ona.frame())
          end
          ona.send(state.peers.hud, "coins", state.taken)
          ona.send(state.peers.particles, "burst", c.x, c.y)
        else
          keep[#keep + 1] = c
        end
      end
      state.left = keep
    end
    state.spin:update(dt)
    for _, c in ipairs(state.left) do
      state.spin:draw(c.x, c.y, { ox = 4, oy = 4, layer = config.layers.coins, target = state.canvas })
    end
    if state.report and state.taken ~= state.reported then
      state.reported = state.taken
      ona.send(state.report, "coins", state.taken, ona.frame())
    end
  end,
}
