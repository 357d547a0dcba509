-- conf.lua: the LÖVE physics peer (main.lua) needs love.physics and love.timer only: no window.
function love.conf(t)
  t.identity = "ona-physics-peer"
  t.window = false
  for _, m in ipairs({"audio", "sound", "joystick", "video", "touch", "graphics", "window",
                      "font", "image", "mouse", "keyboard", "thread"}) do
    t.modules[m] = false
  end
end
