-- conf.lua: the LÖVE message peer (main.lua) needs threads and channels only: no window, no GL.
function love.conf(t)
  t.identity = "ona-channel-peer"
  t.window = false
  for _, m in ipairs({"audio", "sound", "joystick", "physics", "video", "touch", "graphics",
                      "window", "font", "image", "mouse", "keyboard"}) do
    t.modules[m] = false
  end
end
