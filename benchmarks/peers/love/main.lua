-- main.lua: the LÖVE 11.4 bunnymark peer of samples/bunnymark (run by benchmarks/bunnymark.c).
--
--   SDL_VIDEODRIVER=offscreen love benchmarks/peers/love bunnies=N size=32 warmup=W frames=F \
--       [texture=path/to/bunny.png]
--
-- The same physics as samples/bunnymark/bunnies.lua (the same LuaJIT code on FFI structs, the
-- same seed, so the same bunnies) and the same bunny.png, drawn with one SpriteBatch ("stream"
-- usage, every sprite's position set each frame: LÖVE's fastest idiom for many moving sprites)
-- plus a one-line text HUD like the sample's. love.run is LÖVE 11.4's default loop without its
-- 1 ms love.timer.sleep per frame (the sample's runtime does not sleep either). After `warmup`
-- frames it times `frames` frames (update, draw, present) and prints one line:
--   bunnymark-love fps=<frames/s> frames=<F> seconds=<s> cpu_s=<process CPU s in the window>
--     update_cpu_s=<this thread's CPU s in love.update in the window: the physics and the
--     SpriteBatch:set calls, LÖVE's own cost per sprite without the GL driver's>
-- then quits. stdout carries only that line (and `renderer=...`); LÖVE's audio noise is stderr.
local ffi = require("ffi")
ffi.cdef([[
  typedef struct bunny { float x, y, vx, vy; } bunny;
  typedef struct bm_timespec { long tv_sec; long tv_nsec; } bm_timespec;
  int clock_gettime(int clock, bm_timespec *ts);
]])

local W, H, GRAVITY = 1280, 720, 0.5

local function new_bunnies(n, seed)
  math.randomseed(seed)
  local b = ffi.new("bunny[?]", math.max(n, 1))
  for i = 0, n - 1 do
    b[i].x = math.random() * W
    b[i].y = math.random() * H * 0.5
    b[i].vx = math.random() * 10 - 5
    b[i].vy = math.random() * 10 - 5
  end
  return b
end

local function step(b, n)
  local w, h, g = W, H, GRAVITY
  for i = 0, n - 1 do
    local s = b[i]
    s.x = s.x + s.vx
    s.y = s.y + s.vy
    s.vy = s.vy + g
    if s.x > w then
      s.vx = -s.vx
      s.x = w
    elseif s.x < 0 then
      s.vx = -s.vx
      s.x = 0
    end
    if s.y > h then
      s.vy = -0.85 * s.vy
      s.y = h
      if math.random() > 0.5 then
        s.vy = s.vy - math.random() * 6
      end
    elseif s.y < 0 then
      s.vy = 0
      s.y = 0
    end
  end
end

local CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID = 2, 3
local ts = ffi.new("bm_timespec")
local function cpu_seconds(clock)
  ffi.C.clock_gettime(clock or CLOCK_PROCESS_CPUTIME_ID, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local opts = { bunnies = 20000, size = 32, warmup = 10, frames = 100 }
local n, size, scale, bunnies, batch, texture, label
local frame, t0, c0 = 0, nil, nil
local update_cpu = 0 -- thread CPU in love.update since the clock started

function love.load(args)
  for _, a in ipairs(args) do
    local k, v = a:match("^(%w+)=(.*)$")
    if k then
      opts[k] = tonumber(v) or v
    end
  end
  n = math.floor(opts.bunnies)
  size = opts.size
  scale = size / 32
  local path = opts.texture or (love.filesystem.getSource() .. "/../../../samples/bunnymark/bunny.png")
  local f = assert(io.open(path, "rb"), "cannot open " .. path)
  local bytes = f:read("*a")
  f:close()
  texture = love.graphics.newImage(love.filesystem.newFileData(bytes, "bunny.png"))
  texture:setFilter("nearest", "nearest")
  bunnies = new_bunnies(n, 1)
  batch = love.graphics.newSpriteBatch(texture, math.max(n, 1), "stream")
  for i = 0, n - 1 do
    batch:add(bunnies[i].x, bunnies[i].y, 0, scale, scale, 16, 32)
  end
  label = ("%d bunnies, love"):format(n)
  local name, version, vendor, device = love.graphics.getRendererInfo()
  io.write(("renderer=%s %s; %s; %s\n"):format(name, version, vendor, device))
  io.flush()
end

function love.update()
  local u0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID)
  step(bunnies, n)
  local set, b = batch.set, bunnies
  for i = 0, n - 1 do
    set(batch, i + 1, b[i].x, b[i].y, 0, scale, scale, 16, 32)
  end
  if t0 then
    update_cpu = update_cpu + cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - u0
  end
end

function love.draw()
  love.graphics.draw(batch)
  love.graphics.print(label, 8, 8, 0, 2, 2)
end

-- Called after each presented frame: starts the clock after the warm-up, stops it after F more.
local function frame_done()
  frame = frame + 1
  if frame == opts.warmup then
    t0, c0 = love.timer.getTime(), cpu_seconds()
  end
  if frame == opts.warmup + opts.frames then
    local seconds = love.timer.getTime() - t0
    local cpu = cpu_seconds() - c0
    io.write(("bunnymark-love fps=%.4f frames=%d seconds=%.6f cpu_s=%.6f update_cpu_s=%.6f\n"):format(
      seconds > 0 and opts.frames / seconds or 0, opts.frames, seconds, cpu, update_cpu))
    io.flush()
    return true
  end
  return false
end

-- LÖVE 11.4's default love.run, less the love.timer.sleep(0.001) at the end of each frame.
function love.run()
  if love.load then
    love.load(love.arg.parseGameArguments(arg), arg)
  end
  if love.timer then
    love.timer.step()
  end
  if opts.warmup <= 0 then
    t0, c0 = love.timer.getTime(), cpu_seconds()
  end
  local dt = 0
  return function()
    if love.event then
      love.event.pump()
      for name, a, b, c, d, e, f in love.event.poll() do
        if name == "quit" then
          if not love.quit or not love.quit() then
            return a or 0
          end
        end
        love.handlers[name](a, b, c, d, e, f)
      end
    end
    if love.timer then
      dt = love.timer.step()
    end
    if love.update then
      love.update(dt)
    end
    if love.graphics and love.graphics.isActive() then
      love.graphics.origin()
      love.graphics.clear(love.graphics.getBackgroundColor())
      if love.draw then
        love.draw()
      end
      love.graphics.present()
    end
    if frame_done() then
      return 0
    end
  end
end
