-- hud.lua: the coin count and the time, in screen space over the scrolling world.
--
--   in:  ("coins", count) from coins
--
-- The HUD's layers are outside the world camera's layer range, so they keep the screen-space
-- default: (0, 0) is the window's top-left corner whatever the world camera does.
local config = require("config")
local messages = require("messages")

local handlers = {
  coins = function(state, _, count)
    state.coins = count
  end,
}

return {
  init = function(state, args)
    state.probe = args.probe
    state.coins = 0
    state.font = ona.gfx.font(28) -- the runtime's default font
    state.coin = ona.gfx.texture("coin.png")
  end,

  process = function(state)
    messages.dispatch(state, handlers)
    if state.probe and state.coins ~= state.probed then
      state.probed = state.coins -- printed from this frame on
      ona.send(state.probe, "shown", state.coins, ona.frame())
    end
    local layer = config.layers.hud
    ona.gfx.rect(12, 12, 300, 48, { tint = { 0, 0, 0, 0.45 }, layer = layer })
    ona.gfx.rect(12, 12, 300, 48, { mode = "line", width = 2, tint = { 1, 0.85, 0.3, 0.9 }, layer = layer })
    ona.gfx.draw(state.coin, 24, 20, { src = { 0, 0, 8, 8 }, scale = 4, layer = layer + 1 })
    ona.gfx.print(state.font, ("x %d"):format(state.coins), 64, 20, { layer = layer + 1 })
    ona.gfx.print(state.font, ("%.1f s"):format(ona.time()), 190, 20, {
      align = "right", width = 110, layer = layer + 1, tint = { 0.9, 0.9, 1, 1 },
    })
  end,
}
