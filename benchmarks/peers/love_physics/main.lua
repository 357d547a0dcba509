-- main.lua: the LÖVE 11.4 peer of bench_physics (love.physics, LÖVE's bundled Box2D). Run as
-- `love benchmarks/peers/love_physics N STEPS`; builds bench_physics's scene (N dynamic 10 x 10
-- boxes in a grid of 40 columns, 14 px apart, falling into a static container of edges, 32 px a
-- meter, gravity 900 px/s^2), steps it STEPS times by 1/60 s and prints
--   love-physics N=<bodies> ms=<mean CPU ms a step> awake=<bodies awake at the end>
-- then quits.
local n, steps = 1000, 300
if arg then
  local nums = {}
  for _, a in ipairs(arg) do
    if tonumber(a) then
      nums[#nums + 1] = tonumber(a)
    end
  end
  n, steps = nums[1] or n, nums[2] or steps
end

function love.load()
  love.physics.setMeter(32)
  local world = love.physics.newWorld(0, 900, true)
  local rows = math.ceil(n / 40)
  local w, h = 40 * 14 + 40, rows * 14 + 140
  local ground = love.physics.newBody(world, 0, 0, "static")
  for _, e in ipairs({{0, h, w, h}, {0, 0, 0, h}, {w, 0, w, h}}) do
    love.physics.newFixture(ground, love.physics.newEdgeShape(e[1], e[2], e[3], e[4]))
  end
  local bodies = {}
  local shape = love.physics.newRectangleShape(10, 10)
  for i = 0, n - 1 do
    local b = love.physics.newBody(world, 27 + (i % 40) * 14, 20 + math.floor(i / 40) * 14,
                                   "dynamic")
    local f = love.physics.newFixture(b, shape, 1)
    f:setFriction(0.5)
    bodies[#bodies + 1] = b
  end
  local now = os.clock -- process CPU time, as bench_physics measures Ona's
  local t0 = now()
  for _ = 1, steps do
    world:update(1 / 60)
  end
  local t = now() - t0
  local awake = 0
  for _, b in ipairs(bodies) do
    if b:isAwake() then
      awake = awake + 1
    end
  end
  print(string.format("love-physics N=%d ms=%.4f awake=%d", n, t * 1000 / steps, awake))
  love.event.quit()
end
