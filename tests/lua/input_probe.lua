-- Reports the key and mouse events it sees, with what ona.input says at the time.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state, events)
    for _, e in ipairs(events) do
      if e.type == "key_down" then
        ona.send(state.report, ona.name(), "key", e.key, ona.input.key_down(e.key))
      elseif e.type == "mouse_down" then
        local x, y, buttons = ona.input.mouse()
        ona.send(state.report, ona.name(), "mouse", e.x, e.y, buttons)
      end
    end
  end,
}
