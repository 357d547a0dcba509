-- bunnies.lua: the bunnies' physics, shared by the bunnymark's systems (required per state).
local ffi = require("ffi")
-- ffi.cdef is not idempotent: guard it, so that a hot reload (which requires this module again
-- in the same Lua state) does not fail with "attempt to redefine 'bunny'".
if not pcall(ffi.typeof, "bunny") then
  ffi.cdef([[ typedef struct bunny { float x, y, vx, vy; } bunny; ]])
end

local M = { gravity = 0.5, width = 1280, height = 720 }

-- n bunnies at random places and speeds; the same seed gives the same bunnies.
function M.new(n, seed)
  math.randomseed(seed)
  local b = ffi.new("bunny[?]", math.max(n, 1))
  for i = 0, n - 1 do
    b[i].x = math.random() * M.width
    b[i].y = math.random() * M.height * 0.5
    b[i].vx = math.random() * 10 - 5
    b[i].vy = math.random() * 10 - 5
  end
  return b
end

-- One frame of bouncing; with `p` (sprites), also copies each bunny's new position into its
-- sprite in the same pass, so each bunny's cache line is touched once a frame.
function M.step(b, n, p)
  local w, h, g = M.width, M.height, M.gravity
  for i = 0, n - 1 do
    local s = b[i]
    local x, y, vx, vy = s.x + s.vx, s.y + s.vy, s.vx, s.vy
    vy = vy + g
    if x > w then
      vx = -vx
      x = w
    elseif x < 0 then
      vx = -vx
      x = 0
    end
    if y > h then
      vy = -0.85 * vy
      y = h
      if math.random() > 0.5 then
        vy = vy - math.random() * 6
      end
    elseif y < 0 then
      vy = 0
      y = 0
    end
    s.x, s.y, s.vx, s.vy = x, y, vx, vy
    if p then
      local q = p[i]
      q.x, q.y = x, y
    end
  end
end

-- Sets up n sprites of a `size`-pixel bunny (the texture is 32x32).
function M.sprites(n, size)
  local buf = ona.gfx.sprites(math.max(n, 1))
  local p = buf:ptr()
  for i = 0, n - 1 do
    p[i].scale_x = size / 32
    p[i].scale_y = size / 32
    p[i].origin_x = 16
    p[i].origin_y = 32
    p[i].tint = 0xFFFFFFFF
  end
  return buf
end

return M
