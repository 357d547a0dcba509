-- Raises a table with a __tostring from exit: the log describes it.
return {
  process = function() end,
  exit = function()
    error(setmetatable({}, { __tostring = function() return "custom exit error" end }))
  end,
}
