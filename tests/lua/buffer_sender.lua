-- Fills a float buffer through the FFI and sends it (moved) with a shared ona.String.
local ffi = require("ffi")
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    if state.sent then
      return
    end
    state.sent = true
    local buf = ona.buffer("float", 100)
    local p = buf:ptr()
    for i = 0, 99 do
      p[i] = i * 2
    end
    local name = ona.string("a heap string that is long enough to be shared")
    ona.send(ona.lookup("buffer_receiver"), buf, name, { nested = { name } })
    -- The buffer moved: the handle is dead and says so.
    local ok, err = pcall(buf.ptr, buf)
    ona.send(state.report, "sender", buf:alive(), ok, err)
  end,
}
