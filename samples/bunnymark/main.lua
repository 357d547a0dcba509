-- bunnymark: textured bunnies bouncing, new positions every frame (the seed thesis' stress test).
--
--   ona samples/bunnymark [mode=parallel] [bunnies=5000] [size=32] [movers=8]
--
-- mode:
--   sequential  one system moves and draws every bunny (run it with --workers 1)
--   unbatched   a mover sends each bunny's position to a drawer as its own message
--   batched     the mover sends all positions in one moved ona.buffer a frame (and the drawer
--               sends it back, so no buffer is allocated after the first frames)
--   parallel    `movers` systems each move and draw their share: drawing goes to each thread's
--               own render queue, so this is what scales with cores
--   shapes      as parallel, but each bunny is a shape: a tinted rect (even bunnies) or circle
--               (odd) through ona.gfx.rect / ona.gfx.circle
--   tilemap     as parallel, over a 1024 x 1024 map of 8-pixel tiles (8192 x 8192 pixels) that
--               scrolls under the bunnies: only the visible tiles are drawn
--   draw        as parallel, but each bunny is its own ona.gfx.draw call
--   transform   as draw, each call inside push / translate(x, y) / pop, as LÖVE code draws
--               a thing in its own coordinates
-- size: the bunnies' size in pixels (32 = the texture's; 2 makes fill rate negligible).
local args = ... or {}
local mode = args.mode or "parallel"
local n = math.floor(args.bunnies or 5000)
local size = args.size or 32
local common = { bunnies = n, size = size, seed = 1 }

if mode == "sequential" then
  assert(ona.spawn("mover.lua", common, { name = "mover" }))
elseif mode == "unbatched" or mode == "batched" then
  -- The drawer runs after the mover, so it draws this frame's positions; its mailbox holds a
  -- whole frame of them, so the mover's sends never wait for a later frame (backpressure).
  local drawer = assert(ona.spawn("drawer.lua", { bunnies = n, size = size },
    { name = "drawer", mailbox = math.max(4096, n), after = { "mover" } }))
  local send = mode == "unbatched" and "each" or "buffer"
  assert(ona.spawn("mover.lua", { bunnies = n, size = size, seed = 1, send = send, to = drawer },
    { name = "mover", mailbox = 16 }))
elseif mode == "parallel" or mode == "shapes" or mode == "tilemap" or mode == "draw"
    or mode == "transform" then
  if mode == "tilemap" then
    assert(ona.spawn("map.lua", {}, { name = "map" }))
  end
  local movers = math.max(1, math.floor(args.movers or 8))
  for k = 1, movers do
    local share = math.floor(n / movers) + ((k <= n % movers) and 1 or 0)
    assert(ona.spawn("mover.lua", { bunnies = share, size = size, seed = k,
      shapes = mode == "shapes", each = (mode == "draw" or mode == "transform") and mode or nil },
      { name = "mover" .. k }))
  end
else
  error("bunnymark: mode must be sequential, unbatched, batched, parallel, shapes, tilemap, draw "
    .. "or transform, not " .. tostring(mode))
end
assert(ona.spawn("hud.lua", { bunnies = n, mode = mode }, { name = "hud" }))
