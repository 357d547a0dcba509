-- A one-shot main.lua that configures the window before the first frame.
ona.gfx.window({ title = "configured", width = 96, height = 80 })
