-- map.lua (bunnymark "tilemap" mode): a 1024 x 1024 map of 8-pixel tiles cut from bunny.png
-- (16 cells), 8192 x 8192 pixels, drawn under the bunnies (layer -1) scrolled diagonally a few
-- pixels a frame. map:draw emits only the tiles overlapping the screen.
return {
  init = function(state)
    local tex = ona.gfx.texture("bunny.png")
    state.map = ona.gfx.tilemap(tex, 8, 8, 1024, 1024)
    local p = state.map:buffer():ptr() -- uint16_t ids, row by row
    for y = 0, 1023 do
      for x = 0, 1023 do
        p[y * 1024 + x] = (x * 7 + y * 3) % 16 + 1
      end
    end
    state.x, state.y = 0, 0
  end,
  process = function(state)
    state.x = (state.x + 3) % (8192 - 1280)
    state.y = (state.y + 2) % (8192 - 720)
    state.map:draw(-state.x, -state.y, { layer = -1 })
  end,
}
