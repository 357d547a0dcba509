-- main.lua: the LÖVE 11.4 peer of bench_mailbox and bench_actor (it compares Ona's
-- messages with LÖVE's love.thread channels). Run as `love benchmarks/peers/love_channel COUNT`;
-- prints one line per workload and quits:
--   love-channel WORKLOAD per_s=<messages a second> ns=<ns a message or round trip>
-- Workloads, like bench_mailbox's: a sender thread pushes COUNT numbers (or COUNT/2 tables
-- {x = 1, y = 2, id = i}) into a channel, the main thread demands them (1 -> 1); four sender
-- threads push COUNT/4 numbers each into one channel (4 -> 1); and a round trip: main pushes a
-- number to a thread that pushes it back, COUNT/100 times. Timed from before the threads start
-- to the last message received (thread start-up included, as Ona's figures include frames).
-- LÖVE's channels are unbounded (a mutex and a condition variable around a queue).
local count = 2000000
for _, a in ipairs(arg or {}) do
  count = tonumber(a) or count
end

local sender = [[
local ch, n, kind, base = ...
if kind == "table" then
  for i = 1, n do ch:push({x = 1, y = 2, id = base + i}) end
else
  for i = 1, n do ch:push(base + i) end
end
]]

local echo = [[
local req, resp, n = ...
for _ = 1, n do resp:push(req:demand()) end
]]

local now = love.timer.getTime

local function fan_in(senders, n, kind)
  local ch = love.thread.newChannel()
  local per = math.floor(n / senders)
  local t0 = now()
  local threads = {}
  for s = 1, senders do
    threads[s] = love.thread.newThread(sender)
    threads[s]:start(ch, per, kind, (s - 1) * per)
  end
  local sum = 0
  for _ = 1, per * senders do
    local v = ch:demand()
    sum = sum + (kind == "table" and v.id or v)
  end
  local t = now() - t0
  for s = 1, senders do
    threads[s]:wait()
  end
  local total = per * senders
  assert(sum == total * (total + 1) / 2, "lost or changed messages")
  return total / t, t * 1e9 / total
end

local function round_trip(n)
  local req, resp = love.thread.newChannel(), love.thread.newChannel()
  local th = love.thread.newThread(echo)
  th:start(req, resp, n)
  req:push(0)
  resp:demand() -- the thread is running
  local t0 = now()
  for i = 2, n do
    req:push(i)
    assert(resp:demand() == i)
  end
  local t = now() - t0
  th:wait()
  return (n - 1) / t, t * 1e9 / (n - 1)
end

local function report(name, per_s, ns)
  io.write(string.format("love-channel %s per_s=%.0f ns=%.1f\n", name, per_s, ns))
end

function love.load()
  report("1to1_number", fan_in(1, count, "number"))
  report("1to1_table", fan_in(1, math.floor(count / 2), "table"))
  report("4to1_number", fan_in(4, count, "number"))
  report("round_trip", round_trip(math.max(2, math.floor(count / 100))))
  io.flush()
  love.event.quit()
end
