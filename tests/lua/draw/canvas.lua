-- The canvas scene (test_draw_state.c): one system draws a 64x64 canvas to the screen through a
-- game shader (a post effect) BEFORE, in its own submission order and on a lower layer, it
-- draws into that canvas; the merge must still draw the canvas's pass first, in the same frame.
-- A second system (spawned later) draws into the same canvas, which it gets by message.
return {
  init = function(state, args)
    state.part = args.part
    state.checker = ona.gfx.texture(args.checker)
    if args.part == "post" then
      state.canvas = ona.gfx.canvas(64, 64)
      state.invert = assert(ona.gfx.shader("invert.frag"))
      ona.send(ona.lookup("painter"), state.canvas)
    end
  end,
  process = function(state)
    if state.part == "post" then
      ona.gfx.clear(0.2, 0.2, 0.2)
      ona.gfx.canvas_clear(state.canvas, 0, 0, 0.5, 1)
      ona.gfx.draw(state.canvas, 0, 0, { scale = 2, layer = 0, shader = state.invert })
      ona.gfx.uniform(state.invert, "u_amount", 1.0)
      ona.gfx.draw(state.checker, 4, 4, { scale = 3, layer = 5, target = state.canvas })
    else
      local from, canvas = ona.try_receive()
      state.canvas = from and canvas or state.canvas
      if state.canvas then
        ona.gfx.text(4, 40, "CV", { scale = 2, target = state.canvas, tint = { 1, 1, 0, 1 } })
      end
    end
  end,
}
