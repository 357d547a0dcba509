-- ui.lua: the text and the frame around the play: score, high score, wave, lives, banners.
-- It also points the camera: the 320 x 240 world centred, at the largest zoom that fits the
-- window (a whole number when it is at least 1, so pixels stay square). The camera covers the
-- world's layers only; the text is printed in the runtime's default TTF font on a screen-space
-- layer, at a size that follows the zoom, so it stays crisp at any window size.
--
--   in:  ("score", score, hi) from score; ("mode", mode, wave, lives, banner) from game
--   out: nothing: it only draws
local config = require("config")
local messages = require("messages")

local C = config

local handlers = {
  score = function(state, _, score, hi)
    state.score, state.hi = score, hi
  end,
  mode = function(state, _, mode, wave, lives, banner)
    state.mode, state.wave, state.lives, state.banner = mode, wave, lives, banner
  end,
}

-- The view of this frame (set in process): world (x, y) is on the screen at
-- (view.x + x * view.zoom, view.y + y * view.zoom).
local view = { x = 0, y = 0, zoom = 1 }
local fonts = {} -- pixel size -> font (the default font at that size)

local function font(size)
  size = math.max(6, math.floor(size + 0.5))
  fonts[size] = fonts[size] or ona.gfx.font(size)
  return fonts[size]
end

-- Text with its top-left at world (x, y) (its top-centre with align "center"), `scale` times the
-- 8-unit line height of the old bitmap font.
local function text(x, y, s, tint, scale, align)
  local z = view.zoom * (scale or 1)
  ona.gfx.print(font(8 * z), s, view.x + x * view.zoom, view.y + y * view.zoom,
    { tint = tint, layer = C.layer.text, align = align })
end

-- Text centred on x = the world's middle.
local function centred(y, s, tint, scale)
  text(C.width / 2, y, s, tint, scale, "center")
end

return {
  init = function(state, args)
    state.autoplay = args.autoplay
    state.probe = args.probe
    state.pixel = ona.gfx.texture("pixel.png")
    state.cannon = ona.gfx.texture("cannon.png")
    state.score, state.hi = 0, 0
    state.mode, state.wave, state.lives, state.banner = "playing", 1, C.lives, ""
    state.time = 0
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    dt = math.min(dt, config.max_dt)
    if state.probe and state.score ~= state.probed_score then
      state.probed_score = state.score -- printed from this frame on
      ona.send(state.probe, "shown", state.score, ona.frame())
    end
    state.time = state.time + dt

    local w, h = ona.gfx.size()
    local zoom = math.min(w / C.width, h / C.height)
    if zoom >= 1 then
      zoom = math.floor(zoom)
    end
    if zoom > 0 then -- not while minimised to nothing
      ona.gfx.camera(C.width / 2, C.height / 2, zoom, { layers = { -1000, C.world_last } })
      view.zoom, view.x, view.y = zoom, w / 2 - C.width / 2 * zoom, h / 2 - C.height / 2 * zoom
    end
    ona.gfx.clear(0, 0, 0)
    ona.gfx.draw(state.pixel, 0, 0, { sx = C.width, sy = C.height, layer = C.layer.backdrop,
      tint = C.tint.backdrop })
    ona.gfx.draw(state.pixel, 0, C.ground_y, { sx = C.width, sy = 1, layer = C.layer.hud,
      tint = C.tint.ground })

    local t, v = C.tint.text, C.tint.value
    text(8, 4, "SCORE", t)
    text(56, 4, ("%05d"):format(state.score), v)
    text(124, 4, "HI", t)
    text(148, 4, ("%05d"):format(state.hi), v)
    text(248, 4, "WAVE", t)
    text(288, 4, tostring(state.wave), v)

    text(8, C.lives_y, tostring(state.lives), v)
    for i = 1, math.min(state.lives - 1, 8) do -- the cannons in reserve
      ona.gfx.draw(state.cannon, 16 + i * 18, C.lives_y, { src = { 0, 0, 16, 8 }, ox = 7.5,
        layer = C.layer.hud, tint = C.tint.cannon })
    end
    if state.autoplay then
      text(C.width - 8 - 8 * 8, C.lives_y, "AUTOPLAY", C.tint.banner)
    end

    if state.banner ~= "" then
      -- A dark panel under the banner, over whatever marches behind it.
      local over = state.mode == "over"
      local height = over and 44 or 32
      ona.gfx.draw(state.pixel, 56, 120, { sx = C.width - 112, sy = height, layer = C.layer.hud - 1,
        tint = C.tint.panel })
      centred(128, state.banner, over and C.tint.over or C.tint.banner, 2)
      if over and math.floor(state.time * 2) % 2 == 0 then
        centred(150, "PRESS R OR ENTER", t)
      end
    end
  end,
}
