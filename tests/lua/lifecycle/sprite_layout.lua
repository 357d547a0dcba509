-- Reports how the prelude's FFI declaration of ona_sprite (made by ona.gfx.sprites) lays the
-- struct out, for the fields named in args.fields ("name:value,name:value,..."):
-- ("size", ffi.sizeof), ("align", ffi.alignof), then ("field", name, ffi.offsetof) for each.
-- Then fills a one-sprite buffer with each field's value and sends the buffer to the system
-- named args.sink, which reads it as the C struct.
local ffi = require("ffi")
return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local a = state.args
    local buf = ona.gfx.sprites(1)
    ona.send(a.report, "size", ffi.sizeof("ona_sprite"))
    ona.send(a.report, "align", ffi.alignof("ona_sprite"))
    local s = buf:ptr()
    for name, value in a.fields:gmatch("([%w_]+):([%d.]+)") do
      local offset = ffi.offsetof("ona_sprite", name)
      ona.send(a.report, "field", name, offset or -1)
      if offset then
        s[0][name] = tonumber(value)
      end
    end
    ona.send(ona.lookup(a.sink), buf)
  end,
}
