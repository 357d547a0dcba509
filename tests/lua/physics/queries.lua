-- Filters, kinematic bodies, rays, boxes and the debug draw from Lua; sends one line per check:
-- "filter <contacts between the ghosts> <contacts of a ghost with the ground>",
-- "kinematic <x> <y>", "ray <user> <x> <fraction>", "rays <users...>", "query <users...>",
-- "drawn <n>", "polygon <vertex count>".
return {
  init = function(state, args)
    local report = args.report
    local w = ona.physics.world{ gravity = {0, 900}, meter = 50 }
    w:body{ x = 200, y = 300, shape = "box", width = 400, height = 20, user = "ground" }
    -- Two ghosts: category 2, masking out category 2: they fall through each other, not the ground.
    w:body{ type = "dynamic", x = 100, y = 200, shape = "circle", radius = 10, category = 2,
            mask = 0xFFFD, user = "ghost1" }
    w:body{ type = "dynamic", x = 100, y = 180, shape = "circle", radius = 10, category = 2,
            mask = 0xFFFD, user = "ghost2" }
    local k = w:body{ type = "kinematic", x = 300, y = 100, shape = "polygon",
                      points = {-10, -10, 10, -10, 0, 10}, user = "arrow" }
    k:set_velocity(60, 0)
    local ghosts, ground = 0, 0
    for _ = 1, 60 do
      for _, c in ipairs(w:step(1 / 60)) do
        if c.type == "begin" then
          if c.a == "ghost1" and c.b == "ghost2" then
            ghosts = ghosts + 1
          elseif c.a == "ground" then
            ground = ground + 1
          end
        end
      end
    end
    ona.send(report, string.format("filter %d %d", ghosts, ground))
    local kx, ky = k:position()
    ona.send(report, string.format("kinematic %.2f %.2f", kx, ky))
    local hit = w:raycast(-50, 295, 400, 295)
    ona.send(report, string.format("ray %s %.2f %.3f %s", tostring(hit.user), hit.x, hit.fraction,
                                   tostring(hit.body == w:bodies()[1])))
    local users = {}
    for _, h in ipairs(w:raycast(100, 0, 100, 400, { all = true })) do
      users[#users + 1] = tostring(h.user)
    end
    ona.send(report, "rays " .. table.concat(users, " "))
    users = {}
    for _, b in ipairs(w:query(0, 0, 400, 400)) do
      users[#users + 1] = tostring(b:user())
    end
    ona.send(report, "query " .. table.concat(users, " "))
    ona.send(report, "drawn " .. w:debug_draw{ width = 2, layer = 3 })
    ona.send(report, "mass " .. string.format("%.4f", k:mass()))
  end,
}
