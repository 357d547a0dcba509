-- greeter.lua: answers the C host's requests. A request is ("greet", id, name); the reply is
-- ("greeting", id, "<greeting>, <name>!") sent back to whoever asked. With video on, it also
-- shows the last greeting.
return {
  init = function(state, args)
    state.greeting = args and args.greeting or "Hello"
    state.greeted = 0
    state.last = "waiting for the host..."
  end,

  process = function(state, events, dt)
    -- ona.messages() receives until the frame is quiet: the host's request of this frame
    -- arrives while this turn waits for it.
    for from, kind, id, name in ona.messages() do
      if kind == "greet" then
        state.greeted = state.greeted + 1
        state.last = ("%s, %s!"):format(state.greeting, name)
        ona.send(from, "greeting", id, state.last)
      else
        ona.log("warn", "unexpected message: " .. tostring(kind))
      end
    end
    ona.gfx.clear(0.1, 0.1, 0.2)
    ona.gfx.text(16, 16, state.last, { scale = 3 })
    ona.gfx.text(16, 48, ("%d greeted"):format(state.greeted), { scale = 2, tint = 0xFFFF60FF })
  end,
}
