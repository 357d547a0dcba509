-- camera.lua: follows the player over the world layers and draws the sky behind them.
--
--   in:  ("bounds", w, h) from level; ("player", x, y, vx, vy) from player;
--        ("canvas", canvas) from post
--
-- The world camera covers layers 0..config.layers.world_last only; the HUD's layers keep the
-- screen-space default, so the score stays put while the world scrolls. The camera leads the
-- player a little in the direction it runs and stays inside the level.
local config = require("config")
local messages = require("messages")

local handlers = {
  bounds = function(state, _, w, h)
    state.bw, state.bh = w, h
  end,
  player = function(state, _, x, y, vx)
    state.px, state.py, state.pvx = x, y, vx
  end,
  canvas = function(state, _, canvas)
    state.canvas = canvas
  end,
}

local function clamp(v, lo, hi)
  return math.max(lo, math.min(hi, v))
end

return {
  init = function(state, args)
    state.probe = args.probe
    state.sky = ona.gfx.texture("sky.png")
    state.x, state.y = nil, nil
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    local sw, sh = ona.gfx.size()
    local vw, vh = sw / config.zoom, sh / config.zoom -- the world units on screen
    if state.px then
      local tx = state.px + (state.pvx or 0) * 0.4
      local ty = state.py - vh * 0.1
      if not state.x then
        state.x, state.y = tx, ty
      end
      local k = 1 - math.exp(-6 * math.min(dt, 1 / 30)) -- smooth, frame-rate independent
      state.x = state.x + (tx - state.x) * k
      state.y = state.y + (ty - state.y) * k
    end
    if state.probe and state.px and ona.frame() % 10 == 0 then -- whom this frame's camera follows
      ona.send(state.probe, "camera", state.px, state.py, ona.frame())
    end
    local x, y = state.x or vw / 2, state.y or vh / 2
    if state.bw then
      x = clamp(x, vw / 2, math.max(vw / 2, state.bw - vw / 2))
      y = clamp(y, vh / 2, math.max(vh / 2, state.bh - vh / 2))
    end
    -- Whole world pixels: tiles do not shimmer as the camera glides.
    x, y = math.floor(x * config.zoom + 0.5) / config.zoom, math.floor(y * config.zoom + 0.5) / config.zoom
    ona.gfx.camera(x, y, config.zoom, { layers = { 0, config.layers.world_last } })
    ona.gfx.clear(0, 0, 0, 1)
    -- The sky fills the view (a 1x64 gradient stretched over it).
    ona.gfx.draw(state.sky, x - vw / 2, y - vh / 2, {
      sx = vw, sy = vh / 64, layer = config.layers.sky, target = state.canvas,
    })
  end,
}
