-- Misuses one ona.input function, chosen by args.case, on a line marked "[case]"
-- (tests/test_gamepad.c checks the logged error names this file, that line and the function).
-- Runs in the first turn, or in the main chunk when args.chunk is set.
local A = ...
local cases = {}
cases.slot_type = function() ona.input.gamepad("one") end -- [slot_type]
cases.slot_range = function() ona.input.gamepad(0) end -- [slot_range]
cases.slot_fraction = function() ona.input.rumble(1.5, 0, 0, 1) end -- [slot_fraction]
cases.rumble_low = function() ona.input.rumble(1, 2, 0, 1) end -- [rumble_low]
cases.rumble_seconds = function() ona.input.rumble(1, 0, 0, -1) end -- [rumble_seconds]
cases.rumble_missing = function() ona.input.rumble(1, 0.5) end -- [rumble_missing]
cases.deadzone = function() ona.input.deadzone(1, 1) end -- [deadzone]
cases.deadzone_chunk = function() ona.input.deadzone(1, 0.1) end -- [deadzone_chunk]

if A.chunk then
  cases[A.case]()
end

return {
  process = function()
    cases[A.case]()
  end,
}
