-- Raises an error value that is not a string, chosen by args.kind, on a line marked "[kind]"
-- (see tests/test_errors_lua.c). The JIT is off so that the turn budget's hook can interrupt
-- the runaway __tostring's loop.
jit.off()
local A = ...
local function obj(tostring) return setmetatable({}, { __tostring = tostring }) end
local kinds = {}

kinds.table = function() error({ code = 1 }) end -- [table]
kinds["nil"] = function() error(nil) end -- [nil]
kinds.boolean = function() error(false) end -- [boolean]
kinds.userdata = function() error(newproxy(false)) end -- [userdata]
kinds.tostring = function() error(obj(function() return "custom error object" end)) end -- [tostring]
kinds.tostring_raises = function() error(obj(function() error("tostring raised") end)) end -- [tostring_raises]
kinds.tostring_number = function() error(obj(function() return 42 end)) end -- [tostring_number]
kinds.located = function() error(obj(function() return "elsewhere.lua:7: located" end)) end
kinds.runaway = function() error(obj(function() local x = 0; while true do x = x + 1 end end)) end -- [runaway]
kinds.wrapped = function() coroutine.wrap(function() error({}) end)() end -- [wrapped]

return {
  process = function(state)
    if not state.done then
      state.done = true
      kinds[A.kind]()
    end
  end,
}
