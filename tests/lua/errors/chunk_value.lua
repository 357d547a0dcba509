-- Raises a table with a __tostring from its chunk: the spawn fails, and the reason is the
-- value's text, not "(error object is not a string)".
error(setmetatable({}, { __tostring = function() return "custom chunk error" end }))
