-- Reports what it sees of gamepads to args.report, one message per fact (tests/test_gamepad.c):
--   ("event", type, index, button or axis or "", value or 0) for each gamepad event;
--   ("state", connected, a, dpleft, leftx, lefty, righttrigger, count, name) once a frame.
-- On frame args.rumble_at it calls ona.input.rumble(args.slot or 1, args.low, args.high, 30)
-- and reports ("rumble", result); on frame args.deadzone_at, ona.input.deadzone(1, args.stick,
-- args.trigger).
return {
  init = function(state, args)
    state.args = args
    state.frame = 0
  end,
  process = function(state, events)
    local A = state.args
    state.frame = state.frame + 1
    for _, e in ipairs(events) do
      if e.type:sub(1, 8) == "gamepad_" then
        ona.send(A.report, "event", e.type, e.index, e.button or e.axis or "", e.value or 0)
      end
    end
    local pad = ona.input.gamepad(1)
    if pad then
      ona.send(A.report, "state", pad.connected, pad.buttons.a == true, pad.buttons.dpleft == true,
        pad.axes.leftx, pad.axes.lefty, pad.axes.righttrigger, #ona.input.gamepads(),
        ona.input.gamepads()[1].name)
    else
      ona.send(A.report, "state", false, false, false, 0, 0, 0, #ona.input.gamepads(), "")
    end
    if state.frame == A.rumble_at then
      ona.send(A.report, "rumble", ona.input.rumble(A.slot or 1, A.low, A.high, 30))
    end
    if state.frame == A.deadzone_at then
      ona.input.deadzone(1, A.stick, A.trigger)
    end
  end,
}
