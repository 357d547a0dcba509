-- prelude.lua: runs first in every Lua system's state, before the system's own script.
--
-- It receives the `ona` module table, the raw C functions that need a Lua wrapper, and the
-- package.path built from the runtime's script roots. It returns the turn trampoline the
-- scheduler resumes for each new turn, and the hot-reload function.
local ona, raw, path = ...

local error, select, str_find = error, select, string.find
-- The library tables themselves (still unopened: lua_host.c), for what the prelude takes from
-- them at its first use.
local math_lib, debug_lib = math, debug

-- require() searches the project's script roots only (raw.module, lua_files.c: inside the game
-- folder, no working directory, regular files read without blocking): no C modules, no system
-- paths.
package.path = path
package.cpath = ""
package.loadlib = nil

-- os.exit would end the whole game, every other system with it, from one script: it asks the
-- runtime to quit at the end of the frame instead (ona.quit), says so at the caller's line, and
-- returns, so the rest of the turn runs as for any other call. `os` (like io, math, debug and
-- bit) opens on first use (lua_host.c): the function is stored raw, so that setting it does not
-- open the library, and the opening keeps it.
local quit, log, where = ona.quit, ona.log, nil
rawset(os, "exit", function(code)
  where = where or require("debug").getinfo
  local info = where(2, "Sl")
  local at = info and info.currentline and info.currentline > 0
      and (info.short_src .. ":" .. info.currentline) or "?"
  log("warn", ("%s: os.exit(%s) ends no process here: the game quits at the end of this frame "
    .. "(ona.quit)"):format(at, tostring(code)))
  quit()
end)
local loaders = package.loaders
for i = #loaders, 3, -1 do
  loaders[i] = nil
end

-- Project modules are loaded by this loader, which remembers each module's file (and has the
-- runtime watch it), so that a hot reload can load them again. A module that is not found has
-- its candidate files watched (`missing`), so that creating it reloads the systems that wanted
-- it. During a hot reload an empty module file is refused: it is a save caught mid-write.
local modules = {} -- module name -> file
local missing = {} -- candidate file of a module a require missed -> module name
local requirers = {} -- module name -> { file that required it first in this state = true }
local reloading = false
local watch, find_module, requirer, pairs = raw.watch, raw.module, raw.requirer, pairs
-- Who required `name` (the first file above require and this loader, raw.requirer): a reload
-- of the module re-runs that file's module too.
local function note_requirer(name)
  local source = requirer()
  if source then
    local set = requirers[name] or {}
    set[source] = true
    requirers[name] = set
  end
end
loaders[2] = function(name)
  note_requirer(name)
  -- The file and its chunk; or nil, Lua's "no file" lines and the candidates. A file that does
  -- not compile (or, while reloading, is empty) raises its own message, a path outside the game
  -- folder or a FIFO raises at the require's line.
  local file, chunk, candidates = find_module(name, package.path, reloading)
  if not file then
    for i = 1, #candidates do
      local candidate = candidates[i]
      if not missing[candidate] then
        missing[candidate] = name
        watch(candidate)
      end
    end
    return chunk
  end
  for candidate, wanted in pairs(missing) do
    if wanted == name then
      missing[candidate] = nil
    end
  end
  if modules[name] ~= file then -- a reload finds the file it found before, watched since
    modules[name] = file
    watch(file)
  end
  return chunk
end

-- Errors at the author's line: `raise(text)` raises text prefixed with the position of the
-- innermost caller outside this file (a pcall in between is passed over), as the C functions
-- do for their own misuse: "ball.lua:12: ona.send: system 'paddle' is stopped".
local raise = raw.raise

-- LuaJIT's require reads its name as a C string, so "helper\0x" would load and store "helper":
-- a name with a NUL byte is refused at the caller's line instead.
local require_raw = require
function require(name)
  if type(name) == "string" and str_find(name, "\0", 1, true) then
    raise("require: bad argument #1 (the module name holds a NUL byte)")
  end
  return require_raw(name)
end

-- ona.send(to, ...) waits while the target's mailbox is full. The C side yields the turn and is
-- resumed with `true`, or with `false, reason` when the send cannot complete (the target died,
-- or the wait is part of a deadlock); the error is raised here, at the caller's line.
--
-- The FFI fast path: a send of one number or string, and a receive of a message that
-- is one number, call plain C functions through the FFI (raw.ffi_*, cast on first use so that a
-- system that never sends pays nothing at spawn), which the JIT compiles into the caller's loop.
-- They
-- never raise or wait; anything else (another message, a bad handle, a full or dead target, an
-- empty mailbox) takes the C path below, which does the whole operation and raises or parks.
local send_raw = raw.send
local ffi_self, ffi_send_ptr, ffi_receive_ptr = raw.self, raw.ffi_send_number, raw.ffi_receive
local ffi_send_string_ptr = raw.ffi_send_string
local fast_send, fast_send_string, fast_receive, fast_box, fast_self = nil, nil, nil, nil, nil
local raw_ffi = raw.ffi -- the runtime's own ffi (lua_sandbox.c: a sandboxed script has none)
local function fast_init()
  local ffi = raw_ffi()
  fast_self = ffi.cast("void *", ffi_self) -- a cdata: the JIT cannot pass light userdata
  fast_send = ffi.cast("int (*)(void *, double, double)", ffi_send_ptr)
  fast_send_string = ffi.cast("int (*)(void *, double, const char *, size_t)",
    ffi_send_string_ptr)
  fast_receive = ffi.cast("int (*)(void *, double *)", ffi_receive_ptr)
  fast_box = ffi.new("double[2]")
end
function ona.send(to, ...)
  if select("#", ...) == 1 and type(to) == "number" then
    local v = ...
    local tv = type(v)
    if tv == "number" then
      if not fast_send then
        fast_init()
      end
      if fast_send(fast_self, to, v) == 0 then
        return true
      end
    elseif tv == "string" then
      if not fast_send then
        fast_init()
      end
      if fast_send_string(fast_self, to, v, #v) == 0 then
        return true
      end
    end
  end
  local ok, err = send_raw(to, ...)
  if not ok then
    raise(err)
  end
  return true
end

-- ona.receive() -> from, values... ; nil once the frame is quiet.
-- The C side returns `true, from, ...` with a message and `true` alone for nil; when it must wait
-- it parks the turn, and the runtime resumes it with the same answer (the message is handed over
-- by the wake), or with `false, reason` for a message that would not decode.
local receive_raw, receive_inbox = raw.receive, raw.receive_inbox
local function received(ok, ...)
  if ok then
    return ...
  end
  raise((...))
end
function ona.receive()
  if not fast_receive then
    fast_init()
  end
  local got = fast_receive(fast_self, fast_box)
  if got == 1 then
    return fast_box[0], fast_box[1]
  elseif got == 2 then
    return received(receive_inbox())
  end
  return received(receive_raw())
end
local receive = ona.receive

-- for from, a, b in ona.messages() do ... end
-- Receives until the frame reaches quiescence (ona.receive() returns nil).
local function next_message()
  return receive()
end
function ona.messages()
  return next_message
end

-- C nesting. Each coroutine resume and each string.gsub with a function (or table) replacement
-- nests C frames on the thread's stack (gsub's buffer alone is 8 KB), and LuaJIT bounds neither:
-- ~950 nested gsub callbacks or ~100,000 nested resumes overflow an 8 MB stack and take the whole
-- process down. Past MAX_CLEVELS (Lua 5.1's own limit) they raise "C stack overflow" at the
-- caller's line instead: an error of that system. `clevel` counts them along the running chain;
-- each wrapper puts it back when its call returns (resume also when the coroutine failed). An
-- error caught by pcall inside a gsub callback leaves it too high, so at the limit it is counted
-- again exactly (the coroutine's level when resumed, plus the gsub frames on its stack).
local MAX_CLEVELS = 200
local clevel = 0
local entry_level = setmetatable({}, { __mode = "k" }) -- coroutine -> its clevel when resumed
local co_create, co_resume, co_status, co_running = coroutine.create, coroutine.resume,
  coroutine.status, coroutine.running
local co_wrap, gsub_raw, getinfo, type = coroutine.wrap, string.gsub, nil, type

local function enter()
  local level = clevel
  if level >= MAX_CLEVELS then
    getinfo = getinfo or debug_lib.getinfo -- taken at the first use
    level = entry_level[co_running() or 0] or 0
    local i, info = 2, getinfo(2, "f")
    while info do
      if info.func == gsub_raw then
        level = level + 1
      end
      i = i + 1
      info = getinfo(i, "f")
    end
    if level >= MAX_CLEVELS then
      error("C stack overflow", 3)
    end
  end
  clevel = level + 1
  return level
end

local function left(level, ...)
  clevel = level
  return ...
end

-- What a resume of `co` returned, unless the budget's slice hook suspended it (a runaway loop
-- inside it, lua_watchdog.c): then the suspension goes up to the turn's coroutine (each resumer
-- on the chain does the same) and `co` goes on where it stopped when the turn next runs, or at
-- once where this coroutine cannot yield. The script sees only `co`'s own yields and returns.
local slice_of, co_yield = raw.slice_of, coroutine.yield
local function resumed(co, ok, ...)
  if ok then
    local how = slice_of()
    if how ~= 0 then
      if how == 1 then
        co_yield()
      end
      return resumed(co, co_resume(co))
    end
  end
  return ok, ...
end

function coroutine.resume(co, ...)
  if type(co) ~= "thread" or co_status(co) ~= "suspended" then
    return co_resume(co, ...) -- its own error or `false, reason`
  end
  local level = enter()
  entry_level[co] = level + 1
  return left(level, resumed(co, co_resume(co, ...)))
end

-- As coroutine.wrap, a failed coroutine's error is raised again in the caller, and a message gets
-- the caller's line, unless it has a "file:line:" already (so that one error from deep in nested
-- wraps reads as it was raised, not with one position per level).
local function wrap_left(level, ok, ...)
  clevel = level
  if ok then
    return ...
  end
  local err = ...
  local located = type(err) == "string" and str_find(err, "^[^\n:]+:%d+: ") ~= nil
  error(err, (type(err) ~= "string" or located) and 0 or 2)
end

function coroutine.wrap(f)
  if type(f) ~= "function" then
    return co_wrap(f) -- its own error
  end
  local co = co_create(f)
  return function(...)
    if co_status(co) ~= "suspended" then
      return wrap_left(clevel, co_resume(co, ...))
    end
    local level = enter()
    entry_level[co] = level + 1
    return wrap_left(level, resumed(co, co_resume(co, ...)))
  end
end

function string.gsub(s, pattern, repl, n)
  local tr, ts, tp, tn = type(repl), type(s), type(pattern), type(n)
  if (tr ~= "function" and tr ~= "table") or (ts ~= "string" and ts ~= "number")
    or (tp ~= "string" and tp ~= "number") or (n ~= nil and tn ~= "number") then
    return gsub_raw(s, pattern, repl, n) -- no callback, or its own argument error
  end
  return left(enter(), gsub_raw(s, pattern, repl, n))
end

-- ona.gfx.sprites(n): an ona.buffer of n zeroed ona_sprite, the layout the GPU reads, for
-- ona.gfx.draw_sprites (the fast path for thousands of sprites). A zeroed sprite is invisible:
-- set scale_x, scale_y and tint (0xAABBGGRR, 0xFFFFFFFF for as-is).
local sprite_cdef = false
-- ona.gfx is opened on first use (l_ona.c): the function is stored raw, so that defining it
-- does not open the group, and the opening keeps it.
local buffer, floor, pcall, tostring = ona.buffer, nil, pcall, tostring
rawset(ona.gfx, "sprites", function(n)
  floor = floor or math_lib.floor -- taken at the first call: math opens on first use
  if type(n) ~= "number" or n < 0 or n ~= floor(n) then
    raise("ona.gfx.sprites: bad argument #1 (a count of sprites expected, got "
      .. (type(n) == "number" and tostring(n) or type(n)) .. ")")
  end
  if not sprite_cdef then
    raw_ffi().cdef([[
      typedef struct ona_sprite {
        float x, y, origin_x, origin_y, scale_x, scale_y, rotation;
        float src_x, src_y, src_w, src_h;
        uint32_t tint;
      } ona_sprite;
    ]])
    sprite_cdef = true
  end
  local ok, sprites = pcall(buffer, "ona_sprite", n)
  if not ok then
    -- "bad argument #2 to 'buffer' (count is too large (...))" from ona.buffer, said as ours
    local why = type(sprites) == "string" and sprites:match("^[^(]*%((.*)%)$")
    if not why then
      error(sprites, 0)
    end
    raise("ona.gfx.sprites: bad argument #1 (" .. why .. ")")
  end
  return sprites
end)

-- The hot reload, called by the runtime at a frame boundary when `changed` (a file) changed:
-- returns nil when neither the system's script nor a project module it required (or a module a
-- require missed) is that file, true when the new code is in, or false, reason when it is not
-- (the old code keeps running).
--  1. The changed module and every module that required it (directly or through others) are
--     forgotten, so that running the script again requires fresh copies of them (the old ones
--     are kept to be put back if anything fails); other modules stay loaded, their module-level
--     data kept. A change of the script itself forgets no module.
--  2. The script runs again with its spawn args and must return a table of callbacks; a module
--     it requires again must return a value of the same type as before, and must not be empty
--     (an editor that truncates then writes is caught between the two): otherwise the reload
--     is refused, "config.lua returned nil; it returned a table before: keeping the old module".
--  3. Each old function is paired with the new function of the same name (in the script's
--     table and in each module's table, and one level of nested tables).
--  4. The new reload(state) hook, if any, migrates the state.
--  5. Commit: functions stored anywhere in the state table are replaced by their new versions,
--     and the old module tables are updated in place (keeping their identity), so code holding a
--     reference to them or to their functions runs the new code from its next call.
--
-- Steps 1-5 are compiled at the system's first reload of one of its own files (lua_host.c,
-- reload_chunk: the text at the end of this file), not at every spawn: they were a tenth of a
-- spawn's instructions and 5 KB of every state's heap. The test of whether the file
-- is the system's stays here, so that a change to another system's file compiles nothing.
local reload_chunk, load_script, do_reload = raw.reload_chunk, raw.load_script, nil
local function set_reloading(on)
  reloading = on
end
local function reload(module, state, script, args, changed)
  local mine = changed == script or missing[changed] ~= nil
  for _, file in pairs(modules) do
    mine = mine or file == changed
  end
  if not mine then
    return nil
  end
  if not do_reload then
    do_reload = reload_chunk()(modules, missing, requirers, set_reloading, pcall, tostring,
      type, load_script)
  end
  return do_reload(module, state, script, args, changed)
end

-- The turn trampoline: the first turn calls init(state, args), every turn calls
-- receive(state, from, ...) for each of its messages and then process(state, events, dt). An
-- init that raised is called again (with the same args) by the next turn, which only happens
-- after a paused system is resumed by a fix (a restart makes a new state, and a new prelude).
-- It returns whether the module has no process: such a system sleeps, and the runtime gives it
-- a turn only in a frame where a message waits for it.
local init_args, init_pending = nil, false
local try_receive = ona.try_receive
local function handle(receive, state, from, ...)
  if from == nil then
    return false
  end
  receive(state, from, ...)
  return true
end
local function turn(module, state, events, dt, first, args)
  if first then
    init_args, init_pending = args, true
  end
  if init_pending then
    local init = module.init -- named so that a traceback says "in function 'init'"
    if init then
      init(state, init_args)
    end
    init_args, init_pending = nil, false
  end
  local receive = module.receive
  if receive then
    while handle(receive, state, try_receive()) do
    end
  end
  local process = module.process
  if process then
    process(state, events, dt)
  end
  return process == nil
end

return turn, reload

-- Steps 1-5 of the hot reload (see `reload` above). lua_host.c compiles the text from the marker
-- line to the end of this comment, as "=prelude.lua" with its lines where they are here, so
-- errors and tracebacks read as before; it gets the require loader's tables, the setter of its
-- `reloading` flag and the functions the prelude took at its start, and returns the function
-- that does the reload.
--[==[
--@reload
local modules, missing, requirers, set_reloading, pcall, tostring, type, loadfile = ...
-- The modules to load afresh when `changed` changed: its own, then every module that required
-- one of those (the script is always re-run). The others stay loaded, their data kept.
local function affected(changed)
  local set, grew = {}, false
  for name, file in pairs(modules) do
    if file == changed then
      set[name], grew = true, true
    end
  end
  if missing[changed] then -- a module a require missed, now created
    set[missing[changed]], grew = true, true
  end
  while grew do
    grew = false
    for name, file in pairs(modules) do
      if not set[name] then
        for wanted in pairs(set) do
          if requirers[wanted] and requirers[wanted][file] then
            set[name], grew = true, true
            break
          end
        end
      end
    end
  end
  return set
end
return function(module, state, script, args, changed)
  local saved = {}
  for name in pairs(affected(changed)) do
    saved[name] = package.loaded[name]
    package.loaded[name] = nil
  end
  local function fail(reason)
    for name, m in pairs(saved) do
      package.loaded[name] = m
    end
    return false, tostring(reason)
  end
  local chunk, err = loadfile(script)
  if not chunk then
    return fail(err)
  end
  set_reloading(true)
  local ok, new = pcall(chunk, args)
  set_reloading(false)
  if not ok then
    return fail(new)
  end
  if type(new) ~= "table" then
    return fail(script .. " returned " .. type(new) .. "; it returned a table before: keeping "
      .. "the old code (a system script returns a table of callbacks)")
  end
  -- require stores `true` for a module that returned nothing.
  local function kind(v)
    return v == true and "nil" or type(v)
  end
  for name, old_m in pairs(saved) do
    local new_m = package.loaded[name]
    if new_m ~= nil and kind(new_m) ~= kind(old_m) then
      return fail((modules[name] or name) .. " returned " .. kind(new_m) .. "; it returned a "
        .. kind(old_m) .. " before: keeping the old module")
    end
  end
  local map = {}
  local function pair(old_t, new_t, depth)
    for k, v in pairs(old_t) do
      local w = rawget(new_t, k)
      if type(v) == "function" and type(w) == "function" then
        map[v] = w
      elseif type(v) == "table" and type(w) == "table" and depth < 1 then
        pair(v, w, depth + 1)
      end
    end
  end
  pair(module, new, 0)
  for name, old_m in pairs(saved) do
    local new_m = package.loaded[name]
    if type(old_m) == "table" and type(new_m) == "table" then
      pair(old_m, new_m, 0)
    end
  end
  if type(new.reload) == "function" then
    local hook_ok, hook_err = pcall(new.reload, state)
    if not hook_ok then
      return fail(hook_err)
    end
  end
  local seen = {}
  local function swap(t, depth)
    if seen[t] or depth > 16 then
      return
    end
    seen[t] = true
    for k, v in pairs(t) do
      if type(v) == "function" and map[v] then
        t[k] = map[v]
      elseif type(v) == "table" then
        swap(v, depth + 1)
      end
    end
  end
  swap(state, 0)
  local function update(old_t, new_t)
    for k in pairs(old_t) do
      if rawget(new_t, k) == nil then
        old_t[k] = nil
      end
    end
    for k, v in pairs(new_t) do
      old_t[k] = v
    end
  end
  update(module, new)
  for name, old_m in pairs(saved) do
    local new_m = package.loaded[name]
    if type(old_m) == "table" and type(new_m) == "table" and old_m ~= new_m then
      update(old_m, new_m)
      package.loaded[name] = old_m
    end
  end
  return true
end
]==]
