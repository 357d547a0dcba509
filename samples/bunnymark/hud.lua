-- hud.lua: the bunny count, mode and frame rate, top left, above the bunnies.
return {
  init = function(state, args)
    state.label = ("%d bunnies, %s"):format(args.bunnies, args.mode)
    state.fps = 0
  end,
  process = function(state, events, dt)
    if dt > 0 then
      state.fps = state.fps * 0.95 + (1 / dt) * 0.05
    end
    ona.gfx.text(8, 8, ("%s  %3.0f fps"):format(state.label, state.fps),
      { scale = 2, layer = 100, tint = 0xFFFF60FF })
    for _, e in ipairs(events) do
      if e.type == "key_down" and e.key == "escape" then
        ona.quit()
      end
    end
  end,
}
