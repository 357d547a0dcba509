-- inbox.lua: a turn's messages, read in an order that does not depend on threads.
--
-- Every system of the game reads its mailbox once a turn, first thing, with inbox.dispatch. That
-- loop ends only when the frame is quiet (ona.receive returns nil once no system can send
-- anything more this frame), so everything a system sends after its own read lands in the next
-- frame, for every system alike: each frame reads what the last one sent, whichever thread ran
-- whom first. Messages from different senders can arrive in any order, so the batch is sorted by
-- sender handle (handles follow the spawn order, the same in every run), keeping each sender's
-- own order. That is what makes a seeded game with scripted input replay exactly.
local M = {}

local select, unpack, sort = select, unpack, table.sort

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

-- The turn's messages, sorted: a list of {from, what, ...; n = count}.
function M.drain()
  local list, n = {}, 0
  while true do
    local m = pack(ona.receive())
    if m[1] == nil then
      break
    end
    n = n + 1
    m.seq = n
    list[n] = m
  end
  sort(list, before)
  return list
end

-- Drains the mailbox and calls handlers[what](state, from, ...) for each message `what, ...`.
-- A message nobody handles is logged, not raised: a newer peer must not crash an older one.
function M.dispatch(state, handlers)
  for _, m in ipairs(M.drain()) do
    local f = handlers[m[2]]
    if f then
      f(state, m[1], unpack(m, 3, m.n))
    else
      ona.log("warn", ("%s: unexpected message %s from %s"):format(ona.name(), tostring(m[2]),
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
