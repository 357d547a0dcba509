-- ona.inbox: the frame-stamped message protocol, which makes a seeded game with scripted input
-- replay exactly, whatever the threads do, when messages are delivered immediately. Shipped
-- inside the runtime (scripts/inbox.lua, embedded like the prelude):
-- `local inbox = require("ona.inbox")`.
--
-- Under ordered delivery (the default) it is unnecessary: what a system receives in a turn is
-- already the same on any thread count, and along the declared order (`after`) it arrives in
-- the frame it was sent, where this module holds every message to the next frame. It is kept for
-- games run with immediate delivery (`--delivery immediate`, ona_runtime_desc.delivery) and for
-- games written before delivery was ordered; it works the same under both.
--
-- Every message a game system sends goes through inbox.send, which adds the frame it was sent
-- in. Every system reads its mailbox once a turn, first thing, with inbox.dispatch, and handles
-- exactly the messages sent in earlier frames: one sent this frame is kept for the next turn.
-- So each frame reads what the frames before it sent, never what this frame is sending, however
-- the turns interleave. (Under immediate delivery, reading until ona.receive returns nil is not
-- enough on its own: with several threads the runtime hands out the quiescence nils one system
-- at a time, and a system already released can send to one still waiting, which then reads that
-- message a frame early.) Messages from different senders may arrive in any order, so the batch
-- is sorted by sender handle (handles follow the spawn order, the same in every run), keeping
-- each sender's own order. Each system has its own Lua state, so each has its own copy of this
-- module and its state.
local M = {}

local select, unpack, sort, type = select, unpack, table.sort, type

local held = {} -- received, but sent in the frame that was running: for the next turn
local count = 0 -- messages received so far: each one's place in arrival order

local function pack(...)
  return { n = select("#", ...), ... }
end

local function before(a, b)
  local fa, fb = a[1] or 0, b[1] or 0 -- `false`: sent from C outside any system
  if fa ~= fb then
    return fa < fb
  end
  return a.seq < b.seq
end

-- ona.send(to, ...) with this frame's number in front.
function M.send(to, ...)
  return ona.send(to, ona.frame(), ...)
end

-- The turn's messages, sorted: a list of {from, frame, what, ...; n = count}. A message without
-- a frame number (sent with plain ona.send, or from C) is handled at once.
function M.drain()
  local now = ona.frame()
  local ready, keep = {}, {}
  for _, m in ipairs(held) do
    if m[2] < now then
      ready[#ready + 1] = m
    else
      keep[#keep + 1] = m
    end
  end
  while true do
    local m = pack(ona.receive())
    if m[1] == nil then
      break
    end
    count = count + 1
    m.seq = count
    if type(m[2]) == "number" and m[2] >= now then
      keep[#keep + 1] = m
    else
      ready[#ready + 1] = m
    end
  end
  held = keep
  sort(ready, before)
  return ready
end

-- Drains the mailbox and calls handlers[what](state, from, ...) for each message
-- (frame, what, ...). A message nobody handles is logged, not raised: a newer peer must not
-- crash an older one.
function M.dispatch(state, handlers)
  for _, m in ipairs(M.drain()) do
    local first = type(m[2]) == "number" and 3 or 2
    local what = m[first]
    local f = handlers[what]
    if f then
      f(state, m[1], unpack(m, first + 1, m.n))
    else
      ona.log("warn", ("unexpected message %s from %s"):format(tostring(what),
        m[1] and ona.name(m[1]) or "C"))
    end
  end
end

-- The handles of the named systems, which main.lua spawned before any turn ran.
function M.peers(...)
  local t = {}
  for _, name in ipairs({ ... }) do
    t[name] = ona.lookup(name) or error("no system named " .. name, 2)
  end
  return t
end

return M
