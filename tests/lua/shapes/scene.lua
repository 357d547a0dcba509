-- The shapes golden scene: every shape filled and outlined (args.part 1 or 2: two systems, so
-- the picture is also drawn from two threads).
return {
  process = function(state, events, dt)
    local part = state.part
    if part == 1 then
      ona.gfx.clear(0.1, 0.1, 0.2)
      ona.gfx.rect(4, 4, 36, 20, { tint = 0xFF4040FF })
      ona.gfx.rect(48, 4, 36, 20, { mode = "line", width = 3, tint = 0x40FF40FF })
      ona.gfx.circle(20, 48, 14, { tint = 0x4080FFFF })
      ona.gfx.circle(66, 48, 14, { mode = "line", width = 2, tint = 0xFFFF40FF, layer = 1 })
      ona.gfx.rect(92, 4, 32, 32, { tint = { 1, 1, 1, 0.5 }, layer = 2 })
    else
      -- A concave arrow, filled and outlined.
      local arrow = { 4, 80, 24, 70, 24, 76, 44, 76, 44, 84, 24, 84, 24, 90 }
      ona.gfx.polygon(arrow, { tint = 0xFF80FFFF })
      local shifted = {}
      for i = 1, #arrow, 2 do
        shifted[i], shifted[i + 1] = arrow[i] + 48, arrow[i + 1]
      end
      ona.gfx.polygon(shifted, { mode = "line", width = 2, tint = 0x80FFFFFF })
      ona.gfx.line(4, 104, 60, 124, { width = 4, tint = 0xFFFFFFFF })
      ona.gfx.line(70, 104, 120, 104, { width = 6, cap = "round", tint = 0xFF8000FF })
      ona.gfx.line({ 70, 124, 85, 112, 100, 124, 115, 112 }, { width = 2, tint = 0x00FF80FF })
      ona.gfx.polygon({ 100, 60, 124, 60, 112, 90 }, { tint = 0xC0C0C0FF, layer = 3 })
    end
  end,
  init = function(state, args)
    state.part = args.part
  end,
}
