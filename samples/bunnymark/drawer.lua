-- drawer.lua: draws the bunnies a mover sends: one message per bunny (i, x, y) into its own
-- sprite buffer, or whole sprite buffers, which it draws and sends back for reuse.
local bunnies = require("bunnies")

return {
  init = function(state, args)
    state.n = args.bunnies
    state.size = args.size
    state.texture = ona.gfx.texture("bunny.png")
  end,

  process = function(state)
    for from, a, x, y in ona.messages() do
      if type(a) == "number" then
        if not state.sprites then
          state.sprites = bunnies.sprites(state.n, state.size)
          state.p = state.sprites:ptr()
        end
        local s = state.p[a]
        s.x, s.y = x, y
        state.got = true
      else
        ona.gfx.draw_sprites(state.texture, a, state.n)
        ona.send(from, a) -- the buffer goes back to the mover, moved again
      end
    end
    if state.got then
      ona.gfx.draw_sprites(state.texture, state.sprites, state.n)
      state.got = false
    end
  end,
}
