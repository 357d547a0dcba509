-- A 200 x 200 map of 8-pixel tiles (1600 x 1600 pixels) under a camera that scrolls 8 pixels a
-- frame: reports how many tiles map:draw drew each frame.
return {
  init = function(state, args)
    state.report = args.report
    state.map = ona.gfx.tilemap(ona.gfx.texture(args.tex), 8, 8, 200, 200)
    for y = 0, 199 do
      for x = 0, 199 do
        state.map:set(x, y, (x + y) % 4 + 1)
      end
    end
    state.map:set(0, 0, 0)
    state.x = args.x or 800
  end,
  process = function(state)
    ona.gfx.clear(0, 0, 0)
    ona.gfx.camera(state.x, 804)
    local drawn = state.map:draw(0, 0)
    ona.send(state.report, "tiles", drawn, state.x, state.map:get(5, 7), state.map:get(0, 0))
    state.x = state.x + 8
  end,
}
