-- Fills a 4 x 3 tile map and sends its buffer (moved) to tile_receiver; the map is then unusable.
return {
  init = function(state, args)
    state.report = args.report
    state.map = ona.gfx.tilemap(ona.gfx.texture(args.tex), 8, 8, 4, 3)
  end,
  process = function(state)
    if state.sent then
      return
    end
    state.sent = true
    for y = 0, 2 do
      for x = 0, 3 do
        state.map:set(x, y, y * 4 + x + 1)
      end
    end
    local buf = state.map:buffer()
    ona.send(ona.lookup("tile_receiver"), buf)
    local ok, err = pcall(state.map.get, state.map, 1, 1)
    ona.send(state.report, "sender", buf:alive(), ok, err)
  end,
}
