-- A one-shot main.lua that configures the window before the first frame, and spawns a system
-- that fills the whole window (but a 2-pixel border) with red: the picture must cover the new
-- size, not the old one (SDL's offscreen driver keeps its first surface; see window.c).
ona.gfx.window({ title = "configured", width = 192, height = 160 })
assert(ona.spawn("window_fill.lua", nil, { name = "fill" }))
