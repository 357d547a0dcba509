-- Spawned by C without a sandbox of its own, in a runtime made with sandbox = true.
return {
  init = function(state, args)
    ona.send(args.report, "whole: " .. type(io) .. " " .. type(debug) .. " "
      .. tostring(pcall(ona.spawn, "child.lua", {report = args.report}, {sandbox = false})))
    ona.send(args.report, "whole child: " .. tostring(ona.spawn("child.lua", {report = args.report})))
  end,
  process = function() end,
}
