-- Misuse of the draw-state stack and of key names (test_transform.c): args.case picks one; each
-- raises at the marked line.
return {
  init = function(state, args)
    state.case = args.case
  end,
  process = function(state)
    local g, c = ona.gfx, state.case
    if c == 1 then
      g.pop() -- [pop]
    elseif c == 2 then
      for _ = 1, 65 do
        g.push() -- [overflow]
      end
    elseif c == 3 then
      g.push("everything") -- [push]
    elseif c == 4 then
      g.translate("left", 1) -- [translate]
    elseif c == 5 then
      g.scale(2, 0) -- [scale]
    elseif c == 6 then
      g.rotate(math.huge) -- [rotate]
    elseif c == 7 then
      g.set_target(12345) -- [set_target]
    elseif c == 8 then
      local canvas = g.canvas(8, 8)
      g.set_target(canvas)
      g.draw(canvas, 0, 0) -- [itself]
    elseif c == 9 then
      ona.input.key_down("leftshift") -- [key]
    elseif c == 10 then
      ona.input.key_down("!") -- [character]
    end
  end,
}
