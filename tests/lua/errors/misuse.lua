-- Misuses one public function, chosen by args.case, on a line marked "[case]" (one case a
-- line): tests/test_errors_lua.c finds the line by its mark and checks that the system's logged
-- error names this file, that line and the function, and nothing of the prelude. The case runs
-- in the first turn (process), or in the script's main chunk when args.chunk is set.
local A = ...
local cases = {}
local function self() return ona.self() end

cases.send_handle = function() ona.send("nope", 1) end -- [send_handle]
cases.send_nil = function() ona.send(nil, 1) end -- [send_nil]
cases.send_fraction = function() ona.send(1.5, 1) end -- [send_fraction]
cases.send_value = function() ona.send(self(), { f = print }) end -- [send_value]
cases.send_pcall = function() local _, e = pcall(ona.send, {}, 1); error(e, 0) end -- [send_pcall]
cases.send_coroutine = function() coroutine.wrap(function() ona.send(nil) end)() end -- [send_coroutine]
cases.send_ended = function() ona.send(A.victim, 1) end -- [send_ended]
cases.send_killed = function() ona.kill(A.victim); ona.send(A.victim, 1) end -- [send_killed]
cases.send_parked = function() for i = 1, 64 do ona.send(A.victim, i) end end -- [send_parked]
cases.try_send_handle = function() ona.try_send(true, 1) end -- [try_send_handle]
cases.try_send_value = function() ona.try_send(self(), coroutine.create(print)) end -- [try_send_value]
cases.receive_big = function() ona.receive() end -- [receive_big]
cases.messages_big = function() for _ in ona.messages() do end end -- [messages_big]
cases.try_receive_big = function() ona.try_receive() end -- [try_receive_big]
cases.spawn_script = function() ona.spawn({}) end -- [spawn_script]
cases.spawn_opts = function() ona.spawn("lifecycle/idle.lua", nil, 5) end -- [spawn_opts]
cases.spawn_policy = function() ona.spawn("lifecycle/idle.lua", nil, { policy = "retry" }) end -- [spawn_policy]
cases.spawn_args = function() ona.spawn("lifecycle/idle.lua", { print }) end -- [spawn_args]
cases.kill_handle = function() ona.kill(-3) end -- [kill_handle]
cases.kill_ended = function() local _, why = ona.kill(A.victim); error(why) end -- [kill_ended]
cases.lookup_name = function() ona.lookup() end -- [lookup_name]
cases.name_handle = function() ona.name(0) end -- [name_handle]
cases.log_level = function() ona.log("loud", "x") end -- [log_level]
cases.texture = function() ona.gfx.texture() end -- [texture]
cases.texture_size = function() ona.gfx.texture_size("x") end -- [texture_size]
cases.draw = function() ona.gfx.draw(1, "left", 0) end -- [draw]
cases.draw_opts = function() ona.gfx.draw(1, 0, 0, { scale = "big" }) end -- [draw_opts]
cases.draw_tint = function() ona.gfx.draw(1, 0, 0, { tint = "red" }) end -- [draw_tint]
cases.draw_sprites = function() ona.gfx.draw_sprites(1, {}) end -- [draw_sprites]
cases.sprites = function() ona.gfx.sprites(-1) end -- [sprites]
cases.sprites_big = function() ona.gfx.sprites(2 ^ 40) end -- [sprites_big]
cases.text = function() ona.gfx.text(0, 0) end -- [text]
cases.camera = function() ona.gfx.camera(0, 0, 0) end -- [camera]
cases.clear = function() ona.gfx.clear() end -- [clear]
cases.screenshot = function() ona.gfx.screenshot() end -- [screenshot]
cases.window = function() ona.gfx.window("big") end -- [window]
cases.window_zero = function() ona.gfx.window({ width = 0 }) end -- [window_zero]
cases.buffer_count = function() ona.buffer("float", 2^40) end -- [buffer_count]
cases.buffer_type = function() ona.buffer("no_such_type_t", 4) end -- [buffer_type]
cases.buffer_freed = function() local b = ona.buffer("float", 4); b:free(); b:ptr() end -- [buffer_freed]
cases.buffer_self = function() local b = ona.buffer("float", 4); b.count(5) end -- [buffer_self]
cases.circle_radius = function() ona.gfx.circle(0, 0, 1e30) end -- [circle_radius]
cases.line_width = function() ona.gfx.line(0, 0, 1, 1, { width = 1e30 }) end -- [line_width]
cases.key_down = function() ona.input.key_down("no such key") end -- [key_down]
cases.key_down_type = function() ona.input.key_down({}) end -- [key_down_type]
cases.draw_chunk = function() ona.gfx.draw(1, 0, 0) end -- [draw_chunk]

if A.chunk then
  cases[A.case]()
end

return {
  process = function(state)
    if not state.done then
      state.done = true
      cases[A.case]()
    end
  end,
}
