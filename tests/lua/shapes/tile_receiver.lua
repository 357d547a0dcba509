-- Wraps the received tile buffer in a map of its own, reads it back and draws it.
return {
  init = function(state, args)
    state.report = args.report
    state.tex = ona.gfx.texture(args.tex)
  end,
  process = function(state)
    for _, buf in ona.messages() do
      state.map = ona.gfx.tilemap(state.tex, 8, 8, 4, 3, buf)
      local sum = 0
      for y = 0, 2 do
        for x = 0, 3 do
          sum = sum + state.map:get(x, y)
        end
      end
      ona.send(state.report, "receiver", sum, buf:type(), buf:count(), state.map:get(3, 2))
    end
    if state.map then
      ona.send(state.report, "drawn", state.map:draw(0, 0, { scale = 1 }))
    end
  end,
}
