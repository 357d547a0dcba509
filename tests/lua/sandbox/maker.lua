-- Not sandboxed: makes what the sandboxed probe needs (bytecode, as a string and as a module
-- file), shows that it has the whole library itself, and spawns the probe with sandbox = true.
return {
  init = function(state, args)
    local report = args.report
    local dump = string.dump(function() return "escaped" end)
    local f = assert(io.open(args.dir .. "/bcmod.lua", "wb"))
    f:write(dump)
    f:close()
    ona.send(report, "maker: " .. table.concat({type(io), type(os.execute), type(debug),
      type(require("ffi").C), type(jit.off), tostring(require("bcmod"))}, " "))
    assert(ona.spawn("probe.lua", {report = report, dir = args.dir, bc = dump},
      {name = "probe", sandbox = true, policy = "stop"}))
  end,
  process = function() end,
}
