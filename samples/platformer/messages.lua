-- messages.lua: the two helpers every system uses to talk. There is no protocol on top of
-- ona.send: main.lua declares who runs after whom, and the runtime delivers in that order, so a
-- plain send is all a message needs. (Each sample keeps its own copy: a game folder is all a
-- game loads.)
local M = {}

-- Calls handlers[what](state, from, ...) for each message of this turn: what the systems before
-- this one sent it this frame, and what the others sent it since its last turn, in the runtime's
-- canonical order (by the frame it was sent in, then the sender's place in the spawn order, then
-- the sender's own order). A message nobody handles is logged, not raised: a newer peer must
-- not crash an older one.
function M.dispatch(state, handlers)
  for from, what, a, b, c, d in ona.messages() do
    local f = handlers[what]
    if f then
      f(state, from, a, b, c, d)
    else
      ona.log("warn", ("unexpected message %s from %s"):format(tostring(what), ona.name(from)))
    end
  end
end

-- peers.name: the handle of the system called name (main.lua spawned them all before any
-- turn ran), looked up at the first use and kept.
M.peers = setmetatable({}, {
  __index = function(t, name)
    local h = ona.lookup(name) or error("no system named " .. name, 2)
    t[name] = h
    return h
  end,
})

return M
