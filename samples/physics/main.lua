-- physics: a ball game built as systems on ona.physics (Box2D).
--
--   ona samples/physics [autoplay=1]
--
-- Left/right or a/d push the ball, space/up/w jumps it, escape quits. autoplay=1 lets a pilot
-- play. A test may pass `report`, a system handle that then gets ("ball", x, y, frame) every
-- 10th frame and ("hits", count, frame) whenever a crate is hit.
--
-- The systems, who runs after whom, and who tells whom what (messages to a system later in the
-- declared order land in the same frame, on any number of threads):
--
--   system   after     tells
--   pilot              reads the keyboard (or plays itself); -> physics: ("push", ix, iy),
--                      ("jump") as impulses
--   physics  pilot     owns the world (only it may step or touch it); steps it, draws it with
--                      world:debug_draw; -> pilot: ("ball", x, y, on_ground); -> hud: every
--                      step's contacts, as the messages ("contact", type, a, b)
--   hud      physics   counts the ball's hits on crates from those contacts; draws the count
--
-- The world never leaves the physics system: a message refuses it. Other systems see only what
-- it sends: positions and contacts, whose a and b are the bodies' `user` values.
local args = ... or {}
local autoplay = args.autoplay ~= nil and args.autoplay ~= 0 and args.autoplay ~= false
  and args.autoplay ~= "0" and args.autoplay ~= "false"

ona.gfx.window({ title = "Ona physics", width = 640, height = 360 })

local function spawn(script, name, spawn_args, after)
  assert(ona.spawn(script, spawn_args, { name = name, after = after }))
end
spawn("pilot.lua", "pilot", { autoplay = autoplay })
spawn("world.lua", "physics", { report = args.report }, { "pilot" })
spawn("hud.lua", "hud", { report = args.report }, { "physics" })
