-- Spawns a child from Lua with args and options, and uses require within the script roots.
local helper = require("helper_module")
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local child, err = ona.spawn("counter.lua", { report = state.report }, { name = "child", mailbox = 8 })
    local missing, why = ona.spawn("nope.lua")
    local ok_c = pcall(require, "socket.core")
    ona.send(state.report, "spawned", child ~= nil, ona.name(child), missing == nil, why,
      helper.twice(21), ok_c)
  end,
}
