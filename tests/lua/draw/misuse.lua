-- Misuse of the draw-state, shape, sheet and tile-map functions, one per system (args.case); each must fail at its
-- own line, marked [case] (test_draw_state.c looks the marks up).
return {
  init = function(state, args)
    state.case = args.case
    state.white = ona.gfx.texture(args.white)
    state.canvas = ona.gfx.canvas(8, 8)
  end,
  process = function(state)
    local c = state.case
    if c == 1 then
      ona.gfx.draw(state.white, 0, 0, { blend = "screen" }) -- [blend]
    elseif c == 2 then
      ona.gfx.draw(state.white, 0, 0, { target = state.white }) -- [target]
    elseif c == 3 then
      ona.gfx.draw(state.canvas, 0, 0, { target = state.canvas }) -- [itself]
    elseif c == 4 then
      ona.gfx.camera(0, 0, 1, { layers = { 5, 1 } }) -- [layers]
    elseif c == 5 then
      ona.gfx.uniform(4000, "u_amount", 1) -- [uniform]
    elseif c == 6 then
      ona.gfx.canvas(0, 8) -- [canvas]
    elseif c == 7 then
      ona.gfx.layer(1, { target = state.canvas }) -- [layer]
    elseif c == 8 then
      ona.gfx.to_world(1, 2, 1.5) -- [to_world]
    elseif c == 9 then
      ona.gfx.draw_sprites(state.white, ona.gfx.sprites(1), 1, { blend = "x" }) -- [sprites]
    end
  end,
}
