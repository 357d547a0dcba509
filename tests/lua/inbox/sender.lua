-- Sends ("tick", <its index>, <frame>) to the receiver with inbox.send every frame for 6 frames,
-- and in frame 3 one plain ona.send ("now", <index>, <frame>) with no frame stamp.
local inbox = require("ona.inbox")
return {
  init = function(state, args)
    state.index = args.index
  end,
  process = function(state)
    local f = ona.frame()
    if f > 6 then
      return
    end
    local receiver = ona.lookup("receiver") or error("no receiver")
    inbox.send(receiver, "tick", state.index, f)
    if f == 3 then
      ona.send(receiver, "now", state.index, f)
    end
  end,
}
