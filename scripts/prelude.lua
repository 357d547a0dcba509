-- prelude.lua: runs first in every Lua system's state, before the system's own script.
--
-- It receives the `ona` module table, the raw C functions that need a Lua wrapper, and the
-- package.path built from the runtime's script roots. It returns the turn trampoline the
-- scheduler resumes for each new turn.
local ona, raw, path = ...

local error, select = error, select

-- require() searches the project's script roots only: no C modules, no system paths.
package.path = path
package.cpath = ""
package.loadlib = nil
local loaders = package.loaders
for i = #loaders, 3, -1 do
  loaders[i] = nil
end

-- ona.send(to, ...) waits while the target's mailbox is full. The C side yields the turn and is
-- resumed with `true`, or with `false, reason` when the send cannot complete (the target died,
-- or the wait is part of a deadlock); the error is raised here, at the caller's line.
local send_raw = raw.send
function ona.send(to, ...)
  local ok, err = send_raw(to, ...)
  if not ok then
    error(err, 2)
  end
  return true
end

-- ona.receive() -> from, values... ; nil once the frame is quiet.
-- The C side returns `true, from, ...` with a message, or parks the turn and is resumed with
-- nothing (a message may be there now: ask again) or with `true` alone (quiescence: nil).
local receive_raw = raw.receive
local function received(ok, ...)
  if ok then
    return ...
  end
  return received(receive_raw())
end
function ona.receive()
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

-- ona.gfx.sprites(n): an ona.buffer of n zeroed ona_sprite, the layout the GPU reads, for
-- ona.gfx.draw_sprites (the fast path for thousands of sprites). A zeroed sprite is invisible:
-- set scale_x, scale_y and tint (0xAABBGGRR, 0xFFFFFFFF for as-is).
local sprite_cdef = false
function ona.gfx.sprites(n)
  if not sprite_cdef then
    require("ffi").cdef([[
      typedef struct ona_sprite {
        float x, y, origin_x, origin_y, scale_x, scale_y, rotation;
        float src_x, src_y, src_w, src_h;
        uint32_t tint;
      } ona_sprite;
    ]])
    sprite_cdef = true
  end
  return ona.buffer("ona_sprite", n)
end

-- The turn trampoline: the first turn calls init(state, args), every turn calls
-- process(state, events, dt).
return function(module, state, events, dt, init, args)
  if init then
    local f = module.init
    if f then
      f(state, args)
    end
  end
  local process = module.process
  if process then
    process(state, events, dt)
  end
end
