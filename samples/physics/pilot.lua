-- pilot.lua: turns the keyboard (or, with autoplay, a fixed plan) into impulses for the ball.
--
--   in:  ("ball", x, y, on_ground) from physics, a frame late (physics runs after the pilot)
--   out: ("push", ix, iy) and ("jump") to physics
return {
  init = function(state, args)
    state.autoplay = args.autoplay
    state.x, state.on_ground = 0, false
  end,

  process = function(state)
    for _, what, x, _, on_ground in ona.messages() do
      if what == "ball" then
        state.x, state.on_ground = x, on_ground
      end
    end
    local physics = ona.lookup("physics")
    if not physics then
      return
    end
    local left, right, jump
    if state.autoplay then
      -- Run right to the crates, jumping now and then, then back.
      local f = ona.frame()
      right = (f % 240) < 150
      left = not right
      jump = f % 90 == 45
    else
      local key = ona.input.key_down
      if key("escape") then
        ona.quit()
      end
      left, right = key("left") or key("a"), key("right") or key("d")
      jump = key("space") or key("up") or key("w")
    end
    if left then
      ona.send(physics, "push", -12, 0)
    end
    if right then
      ona.send(physics, "push", 12, 0)
    end
    if jump and state.on_ground then
      ona.send(physics, "jump")
    end
  end,
}
