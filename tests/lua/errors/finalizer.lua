-- Sends from __gc finalizers are refused (test_errors_lua.c): in a collection step, through the
-- FFI fast path, and at the state's close. Each case is on a line marked "[case]".
local ffi = require("ffi")

return {
  init = function(state, args)
    local report = args.report
    local seen = {}
    local p = newproxy(true)
    getmetatable(p).__gc = function()
      seen[#seen + 1] = select(2, pcall(ona.try_send, report, "from gc")) -- [try_send]
    end
    p = nil
    local c = ffi.gc(ffi.new("int[1]"), function()
      seen[#seen + 1] = select(2, pcall(ona.send, report, 5)) -- [fast]
    end)
    c = nil
    collectgarbage()
    collectgarbage()
    for _, text in ipairs(seen) do
      ona.send(report, text)
    end
    -- Alive to the end: its finalizer runs when the system's state closes.
    state.kept = newproxy(true)
    getmetatable(state.kept).__gc = function()
      ona.send(report, "at close") -- [close]
    end
    if args.raise then
      local r = newproxy(true)
      getmetatable(r).__gc = function()
        ona.send(report, "raised") -- [raise]
      end
      r = nil
      collectgarbage()
    end
  end,
  process = function() end,
}
