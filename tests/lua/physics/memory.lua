-- Under a small memory cap, bodies are made until the cap refuses one: reports ("grew", bytes
-- the world held before) and the refusal's message, then whether the world raises after it;
-- with args.uncaught, the refusal is left to fail the system.
return {
  init = function(state, args)
    local w = ona.physics.world{ gravity = {0, 900} }
    local function grow()
      for i = 1, 1000000 do
        w:body{ type = "dynamic", x = (i % 100) * 20, y = math.floor(i / 100) * 20,
                shape = "box", width = 10, height = 10 }
        if i % 50 == 0 then
          w:step(1 / 60)
        end
      end
    end
    if args.uncaught then
      grow()
      return
    end
    local before = w:memory()
    local ok, err = pcall(grow)
    ona.send(args.report, "grew", before, ok and "no error" or tostring(err))
    local ok2, err2 = pcall(function() return w:count() end)
    ona.send(args.report, "after", ok2 and "no error" or tostring(err2))
    -- The system goes on: a new, small world fits again once the old one was freed.
    collectgarbage()
    local w2 = ona.physics.world{}
    w2:body{ shape = "box", width = 10, height = 10 }
    ona.send(args.report, "again", w2:count())
  end,
}
