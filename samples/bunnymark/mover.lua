-- mover.lua: moves its bunnies every frame, then draws them itself (args.send == nil), sends
-- each bunny's position to args.to as its own message ("each"), or sends all of them in one
-- moved buffer ("buffer"). args.shapes: draws each bunny as a rect or a circle instead;
-- args.each: one ona.gfx.draw a bunny ("draw"), or each inside push/translate/pop ("transform").
local bunnies = require("bunnies")

return {
  init = function(state, args)
    state.n = args.bunnies
    state.size = args.size
    state.send = args.send
    state.to = args.to
    state.b = bunnies.new(state.n, args.seed)
    state.texture = ona.gfx.texture("bunny.png")
    state.pool = {}
    state.each = args.each
    if state.each then
      state.opts = { scale = state.size / 32, ox = 16, oy = 32 }
    elseif args.shapes then
      local half = state.size / 2
      state.shapes = { rect = { tint = 0xF08080FF }, circle = { tint = 0x80C0F0FF }, half = half }
    elseif not state.send then
      state.sprites = bunnies.sprites(state.n, state.size)
      state.p = state.sprites:ptr()
    end
  end,

  process = function(state)
    local n = state.n
    if state.send == "each" then
      bunnies.step(state.b, n)
      local to, b = state.to, state.b
      for i = 0, n - 1 do
        ona.send(to, i, b[i].x, b[i].y)
      end
    elseif state.send == "buffer" then
      -- Buffers come back from the drawer after it drew them; reuse one, or make one.
      for _, returned in ona.messages() do
        state.pool[#state.pool + 1] = returned
      end
      local buf = table.remove(state.pool) or bunnies.sprites(n, state.size)
      bunnies.step(state.b, n, buf:ptr())
      ona.send(state.to, buf) -- moved: `buf` is dead here
    elseif state.each then
      bunnies.step(state.b, n)
      local b, texture, opts, gfx = state.b, state.texture, state.opts, ona.gfx
      if state.each == "transform" then
        for i = 0, n - 1 do
          gfx.push()
          gfx.translate(b[i].x, b[i].y)
          gfx.draw(texture, 0, 0, opts)
          gfx.pop()
        end
      else
        for i = 0, n - 1 do
          gfx.draw(texture, b[i].x, b[i].y, opts)
        end
      end
    elseif state.shapes then
      bunnies.step(state.b, n)
      local b, sh = state.b, state.shapes
      local half, size, rect, circle = sh.half, state.size, ona.gfx.rect, ona.gfx.circle
      for i = 0, n - 1, 2 do
        rect(b[i].x - half, b[i].y - size, size, size, sh.rect)
      end
      for i = 1, n - 1, 2 do
        circle(b[i].x, b[i].y - half, half, sh.circle)
      end
    else
      bunnies.step(state.b, n, state.p)
      ona.gfx.draw_sprites(state.texture, state.sprites, n)
    end
  end,
}
