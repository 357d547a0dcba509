-- conf.lua: the LÖVE bunnymark peer's window: 1280x720, vsync off, no audio (benchmarks/bunnymark.c).
function love.conf(t)
  t.identity = "ona-bunnymark-peer"
  t.window.title = "bunnymark (LÖVE peer)"
  t.window.width = 1280
  t.window.height = 720
  t.window.vsync = 0
  t.window.msaa = 0
  t.window.highdpi = false
  t.window.resizable = false
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
  t.modules.touch = false
end
