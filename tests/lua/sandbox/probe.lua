-- Sandboxed: tries every escape it knows and reports each result as "label: ok ..." or
-- "label: ERR message" (the game folder's path cut out of messages).
local report, dir
local function say(text) ona.send(report, text) end
local function short(v)
  local s = tostring(v)
  local i, j = s:find(dir, 1, true)
  while i do
    s = s:sub(1, i - 1) .. s:sub(j + 2)
    i, j = s:find(dir, 1, true)
  end
  return s
end
local function try(label, f, ...)
  local ok, a, b = pcall(f, ...)
  if ok then
    say(label .. ": ok " .. short(a) .. (b ~= nil and (" " .. short(b)) or ""))
  else
    say(label .. ": ERR " .. short(a))
  end
end
local function types(...)
  local t = {}
  for i = 1, select("#", ...) do t[i] = type((select(i, ...))) end
  return table.concat(t, " ")
end
return {
  init = function(state, args)
    report, dir = args.report, args.dir
    try("globals", function() return types(io, debug, ffi, os.execute, os.getenv, os.exit,
      os.remove, string.dump, package.loadlib, jit.off, jit.opt, jit.util) end)
    try("kept", function() return types(os.clock, os.time, os.date, jit.version, print,
      string.rep, math.floor, coroutine.wrap, require, load) end)
    try("require ffi", function() local a, b = require("ffi") return a, b end)
    try("require io", function() local a, b = require("io") return a, b end)
    try("require debug", function() local a, b = require("debug") return a, b end)
    try("require jit.util", function() local a, b = require("jit.util") return a, b end)
    try("loaded", function() return types(package.loaded.io, package.loaded.debug,
      package.loaded.ffi, package.preload.ffi, package.loaded.os.execute) end)
    try("require socket", function() local a, b = require("socket") return a, b end)
    try("cpath", function() return "'" .. package.cpath .. "' " .. #package.loaders end)
    try("load bytecode", function() return load(args.bc) end)
    try("loadstring bytecode", function() return loadstring(args.bc) end)
    try("load reader bytecode", function()
      local pieces = {args.bc:sub(1, 3), args.bc:sub(4)}
      local i = 0
      return load(function() i = i + 1; return pieces[i] end)
    end)
    try("load source", function() return loadstring("return 1 + 1")() end)
    try("load env", function() return load("return x", "=env", "t", {x = 5})() end)
    try("require bytecode", function() local a, b = require("bcmod") return a, b end)
    try("dofile bytecode", function() local a, b = dofile("bcmod.lua") return a, b end)
    try("getfenv", function() return types(getfenv(0).io, getfenv(1).io, getfenv(print).io,
      getfenv(ona.send).io, getfenv(require).debug) end)
    try("setfenv 0", function() local a, b = setfenv(0, {}) return a, b end)
    try("setfenv runtime", function() local a, b = setfenv(ona.send, {}) return a, b end)
    try("setfenv C", function() local a, b = setfenv(print, {}) return a, b end)
    try("setfenv own", function()
      local function f() return marker end
      setfenv(f, {marker = "own env"})
      return f()
    end)
    try("coroutine", function()
      return coroutine.wrap(function()
        return types(io, getfenv(0).io, debug, loadstring("return io")(), require)
      end)()
    end)
    try("string methods", function() return ("x"):upper() .. " " .. type(("").dump)
      .. " " .. type(getmetatable("").__index.dump) .. " " .. type(("").x) end)
    getmetatable("").__index.upper = function() return "pwned" end
    try("string tampered", function() return ("a"):upper() end)
    try("searchpath outside", function() local a, b = package.searchpath("passwd", "/etc/?") return a, b end)
    local path = package.path
    package.path = "/etc/?"
    try("require absolute", function() local a, b = require("passwd") return a, b end)
    package.path = "../?.lua"
    try("require dotdot", function() local a, b = require("probe") return a, b end)
    package.path = path
    try("require nul", function() local a, b = require("helper\0x") return a, b end)
    try("require fifo", function() local a, b = require("pipe") return a, b end)
    try("require helper", function() return require("helper").answer end)
    try("loadfile outside", function() local a, b = loadfile("/etc/passwd") return a, b end)
    try("loadfile dotdot", function() local a, b = loadfile("../probe.lua") return a, b end)
    try("loadfile stdin", function() local a, b = loadfile() return a, b end)
    try("loadfile missing", function() local a, b = loadfile("missing.lua") return a, b end)
    try("loadfile own", function() return loadfile("helper.lua")().answer end)
    try("dofile outside", function() local a, b = dofile("/etc/hostname") return a, b end)
    try("dofile nul", function() local a, b = dofile("helper.lua\0.txt") return a, b end)
    try("spawn outside", function() local a, b = ona.spawn("/etc/passwd") return a, b end)
    try("spawn dotdot", function() local a, b = ona.spawn("../probe.lua") return a, b end)
    try("spawn nul", function() local a, b = ona.spawn("child.lua\0x") return a, b end)
    try("spawn fifo", function() local a, b = ona.spawn("pipe.lua") return a, b end)
    try("spawn unsandboxed", function() local a, b = ona.spawn("child.lua", {report = report}, {sandbox = false}) return a, b end)
    try("spawn child", function() return type(ona.spawn("child.lua", {report = report})) end)
    try("collectgarbage stop", function() local a, b = collectgarbage("stop") return a, b end)
    try("collectgarbage count", function() return type(collectgarbage("count")) end)
    try("save", function() local a, b = ona.save("slot", 1) return a, b end)
    try("load save", function() local a, b = ona.load("slot") return a, b end)
    try("buffer ptr", function() local p = ona.buffer("int", 4):ptr() return p end)
    try("lazy openers", function() return type(getmetatable(bit)) .. " "
      .. type(getmetatable(ona.audio)) end)
    say("probe done")
  end,
  process = function() end,
}
