-- Spawned by a sandboxed system: sandboxed too.
return {
  init = function(state, args)
    ona.send(args.report, "child: io " .. type(io) .. " ffi " .. type(package.loaded.ffi)
      .. " debug " .. type(debug))
  end,
  process = function() end,
}
