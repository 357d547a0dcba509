-- hud.lua: counts the ball's hits on crates from the contacts physics sends, and draws it.
--
--   in:  ("contact", type, a, b) from physics
--   out: ("hits", count, frame) to report when the count changes
return {
  init = function(state, args)
    state.report = args.report
    state.hits = 0
    state.font = ona.gfx.font(20)
  end,

  process = function(state)
    for _, what, type, a, b in ona.messages() do
      if what == "contact" and type == "begin" then
        local other = a == "ball" and b or b == "ball" and a or nil
        if other and tostring(other):sub(1, 5) == "crate" then
          state.hits = state.hits + 1
          if state.report then
            ona.send(state.report, "hits", state.hits, ona.frame())
          end
        end
      end
    end
    ona.gfx.print(state.font, ("crate hits %d"):format(state.hits), 12, 10, { layer = 100 })
  end,
}
