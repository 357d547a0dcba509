-- Not sandboxed: keeps the whole library, and still finds modules and scripts only inside the
-- game folder.
local report, dir
local function try(label, f, ...)
  local ok, a = pcall(f, ...)
  local s = tostring(a)
  local i, j = s:find(dir, 1, true)
  while i do
    s = s:sub(1, i - 1) .. s:sub(j + 2)
    i, j = s:find(dir, 1, true)
  end
  ona.send(report, label .. ": " .. (ok and "ok " or "ERR ") .. s)
end
return {
  init = function(state, args)
    report, dir = args.report, args.dir
    try("open globals", function()
      return table.concat({type(io.open), type(os.execute), type(debug.getinfo),
        type(require("ffi").cast), type(jit.off), type(string.dump), type(package.searchpath)}, " ")
    end)
    try("open bytecode", function() return load(string.dump(function() return "ran" end))() end)
    local path = package.path
    package.path = "/etc/?"
    try("open require absolute", function() local a, b = require("passwd") return a, b end)
    package.path = path
    try("open require fifo", function() local a, b = require("pipe") return a, b end)
    try("open spawn outside", function() local a, b = ona.spawn("/etc/passwd") return a, b end)
    try("open spawn fifo", function() local a, b = ona.spawn("pipe.lua") return a, b end)
    try("open buffer", function() return type(ona.buffer("int", 4):ptr()) end)
    try("open collectgarbage", function() collectgarbage("stop") collectgarbage("restart") return "ran" end)
  end,
  process = function() end,
}
