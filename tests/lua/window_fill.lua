-- Fills the window, whatever its size, with red inside a 2-pixel blue border.
return {
  process = function()
    local w, h = ona.gfx.size()
    ona.gfx.clear(0, 0, 1)
    ona.gfx.rect(2, 2, w - 4, h - 4, { tint = { 1, 0, 0, 1 } })
  end,
}
