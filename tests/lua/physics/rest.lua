-- A ball of radius 10 dropped from (160, 0) on a 200 x 20 static box centred at (160, 200):
-- after `steps` steps of 1/60 s it reports ("rest", x, y, vx, vy, awake, memory before, memory
-- after the bodies), the numbers the C test compares with the same world built through the C API.
return {
  init = function(state, args)
    local before = ona.memory()
    local world = ona.physics.world{ gravity = {0, 900}, meter = 64 }
    local made = ona.memory()
    world:body{ type = "static", x = 160, y = 200, shape = "box", width = 200, height = 20 }
    local ball = world:body{ type = "dynamic", x = 160, y = 0, shape = "circle", radius = 10,
                             density = 1, friction = 0.3, restitution = 0 }
    for _ = 1, args.steps do
      world:step(1 / 60)
    end
    local x, y = ball:position()
    local vx, vy = ball:velocity()
    ona.send(args.report, "rest", x, y, vx, vy, ball:awake(), made - before, world:memory())
  end,
}
