-- particles.lua: sparks where a coin was taken and dust where the player lands, drawn with
-- additive blending (overlapping sparks add up to a glow).
--
--   in:  ("burst", x, y) from coins; ("dust", x, y) from player; ("canvas", canvas) from post
--
-- The sparks' directions come from a seeded generator, so a replay looks the same.
local config = require("config")
local messages = require("messages")

local function add(state, x, y, n, speed, life, tint)
  for _ = 1, n do
    local a = state.rng:float(0, 2 * math.pi)
    local v = state.rng:float(0.3, 1) * speed
    state.list[#state.list + 1] = {
      x = x, y = y, vx = math.cos(a) * v, vy = math.sin(a) * v - speed * 0.3,
      life = life, max = life, tint = tint,
    }
  end
end

local handlers = {
  burst = function(state, _, x, y)
    add(state, x, y, 24, 140, 0.6, { 1, 0.8, 0.3 })
    if state.probe then -- drawn from this frame on
      ona.send(state.probe, "burst", ona.frame())
    end
  end,
  dust = function(state, _, x, y)
    add(state, x, y, 8, 50, 0.35, { 0.8, 0.7, 0.6 })
  end,
  canvas = function(state, _, canvas)
    state.canvas = canvas
  end,
}

return {
  init = function(state, args)
    state.probe = args.probe
    state.rng = ona.random(tonumber(args.seed) or 1)
    state.list = {}
    state.spark = ona.gfx.texture("spark.png")
  end,

  process = function(state, events, dt)
    messages.dispatch(state, handlers)
    local keep = {}
    for _, p in ipairs(state.list) do
      p.life = p.life - dt
      if p.life > 0 then
        p.vy = p.vy + 300 * dt
        p.x, p.y = p.x + p.vx * dt, p.y + p.vy * dt
        local k = p.life / p.max
        ona.gfx.draw(state.spark, p.x, p.y, {
          ox = 4, oy = 4, scale = 0.5 + k, layer = config.layers.sparks, blend = "add",
          tint = { p.tint[1], p.tint[2], p.tint[3], k }, target = state.canvas,
        })
        keep[#keep + 1] = p
      end
    end
    state.list = keep
  end,
}
