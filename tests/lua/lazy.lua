-- The `ona` groups opened on first use (bindings/l_ona.c): ona.gfx, ona.input and
-- ona.audio are empty stubs until a script reads or writes one of their fields. Each check is
-- reported to args.report as (name, passed, detail); the test wants every one passed. The
-- first turn checks a fresh state; the reload hook (ona_runtime_reload re-runs this script in
-- the same state) checks a group nobody touched before the reload.
local function report(state, name, ok, detail)
  ona.send(state.report, name, ok and true or false, tostring(detail))
end

-- "lazy.lua:<line>: " at the start of an error text: the author's line.
local function at_line(err)
  return type(err) == "string" and err:match("^[^:]*lazy%.lua:(%d+): ") ~= nil
end

local function names_of(t)
  local seen = {}
  for k in pairs(t) do
    seen[k] = true
  end
  return seen
end

return {
  init = function(state, args)
    state.report = args.report
    state.reload_line = args.reload_line
    -- Untouched: the groups are listed by pairs(ona) and still closed (no C function yet).
    local seen = names_of(ona)
    report(state, "pairs lists the groups", seen.gfx and seen.input and seen.audio and seen.send
      and seen.spawn and seen.time and seen.save, "")
    report(state, "closed until used", rawget(ona.audio, "play") == nil
      and rawget(ona.input, "key_down") == nil and rawget(ona.gfx, "draw") == nil
      and getmetatable(ona.audio) ~= nil, "")
    -- The standard libraries opened on first use (lua_host.c): in _G and package.loaded, closed,
    -- with the prelude's os.exit stored already.
    state.exit = rawget(os, "exit")
    report(state, "std libs closed until used", rawget(math, "floor") == nil
      and rawget(io, "open") == nil and rawget(debug, "traceback") == nil
      and rawget(bit, "band") == nil and rawget(os, "time") == nil
      and type(state.exit) == "function" and package.loaded.math == math
      and package.loaded.io == io and getmetatable(bit) ~= nil, "")
  end,
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    -- ona.gfx at first use, in a turn: its functions (the prelude's sprites kept), its types.
    local gfx = ona.gfx
    local sprites = gfx.sprites(3)
    local w, h = gfx.size()
    report(state, "gfx at first use", type(gfx.draw) == "function"
      and type(gfx.tilemap) == "function" and type(gfx.sheet) == "function"
      and type(gfx.font) == "function" and type(gfx.layer) == "function"
      and type(gfx.rect) == "function" and sprites:count() == 3
      and type(w) == "number" and type(h) == "number"
      and getmetatable(gfx) == nil and rawget(gfx, "draw") == gfx.draw,
      tostring(sprites:count()))
    -- A write first: the group opens, then the store is kept; the bindings are there.
    ona.input.mine = 42
    report(state, "input opened by a write", ona.input.mine == 42
      and type(ona.input.key_down) == "function" and getmetatable(ona.input) == nil, "")
    -- Misuse at first use raises at the author's line under the public name.
    local ok, err = pcall(function()
      return ona.input.key_down(nil)
    end)
    report(state, "error at first use", not ok and at_line(err)
      and err:find("ona.input.key_down: bad argument #1", 1, true) ~= nil, err)
    -- Unknown names read nil, as before; calling one is Lua's own error at the author's line.
    local ok2, err2 = pcall(function()
      return ona.xyz()
    end)
    report(state, "unknown names", ona.xyz == nil and ona.gfx.xyz == nil and rawget(ona, "xyz") == nil
      and not ok2 and at_line(err2) and err2:find("field 'xyz'", 1, true) ~= nil, err2)
    -- The standard libraries at first use: their functions, the prelude's os.exit kept, unknown
    -- fields nil, the same table through require.
    report(state, "std libs at first use", math.floor(2.5) == 2 and bit.band(3, 5) == 1
      and type(io.write) == "function" and type(debug.traceback) == "function"
      and type(os.time()) == "number" and os.exit == state.exit and math.xyz == nil
      and require("math") == math and getmetatable(math) == nil and getmetatable(os) == nil
      and math.pi > 3.14 and io.stdout ~= nil, "")
    -- ona.random makes the generators' metatable at its first call (l_time.c).
    local gen = ona.random(7)
    local n = gen:int(1, 6)
    local ok3, err3 = pcall(function()
      return gen.int(1, 6)
    end)
    report(state, "random at first use", getmetatable(gen) == "ona.Random"
      and tostring(gen) == "ona.random(7)" and n >= 1 and n <= 6
      and ona.random(7):int(1, 6) == n and not ok3 and at_line(err3), tostring(err3))
    -- The audio group stays closed for the reload to open.
    report(state, "audio still closed", getmetatable(ona.audio) ~= nil, "")
  end,
  reload = function(state)
    -- The reload's steps, compiled at this first reload, keep the prelude's chunk name and the
    -- line numbers of scripts/prelude.lua (the test passes the line of their call of this hook).
    local info = debug.getinfo(3, "Sl")
    report(state, "reload steps at the prelude's lines", info.source == "=prelude.lua"
      and info.currentline == state.reload_line, info.source .. ":" .. info.currentline)
    local audio = ona.audio
    report(state, "audio after a reload", type(audio.play) == "function"
      and type(audio.volume) == "function" and getmetatable(audio) == nil, "")
  end,
}
