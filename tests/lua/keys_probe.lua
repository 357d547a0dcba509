-- Key names (test_keys.c): reports each key event's SDL and LÖVE names with what
-- ona.input.key_down says under both; at its first turn, checks that every LÖVE KeyConstant is
-- accepted (the shifted characters refused with their own message).
local love_keys = {
  "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s",
  "t", "u", "v", "w", "x", "y", "z", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "space",
  "#", "'", ",", "-", ".", "/", ";", "=", "[", "\\", "]", "`",
  "kp0", "kp1", "kp2", "kp3", "kp4", "kp5", "kp6", "kp7", "kp8", "kp9", "kp.", "kp,", "kp/",
  "kp*", "kp-", "kp+", "kpenter", "kp=",
  "up", "down", "right", "left", "home", "end", "pageup", "pagedown",
  "insert", "backspace", "tab", "clear", "return", "delete",
  "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15",
  "f16", "f17", "f18",
  "numlock", "capslock", "scrolllock", "rshift", "lshift", "rctrl", "lctrl", "ralt", "lalt",
  "rgui", "lgui", "mode",
  "www", "mail", "calculator", "computer", "appsearch", "apphome", "appback", "appforward",
  "apprefresh", "appbookmarks",
  "pause", "escape", "help", "printscreen", "sysreq", "menu", "application", "power",
  "currencyunit", "undo",
}
local shifted = { "!", "\"", "$", "&", "(", ")", "*", "+", ":", "<", ">", "?", "@", "^", "_" }

return {
  init = function(state, args)
    state.report = args.report
    local refused = {}
    for _, name in ipairs(love_keys) do
      local ok, err = pcall(ona.input.key_down, name)
      if not ok then
        refused[#refused + 1] = name .. ": " .. tostring(err)
      end
    end
    for _, name in ipairs(shifted) do
      local ok, err = pcall(ona.input.key_down, name)
      if ok or not tostring(err):find("typed with shift", 1, true) then
        refused[#refused + 1] = name .. " was not refused as a character: " .. tostring(err)
      end
    end
    ona.send(state.report, "love names", #love_keys + #shifted, table.concat(refused, "; "))
  end,
  process = function(state, events)
    for _, e in ipairs(events) do
      if e.type == "key_down" or e.type == "key_up" then
        ona.send(state.report, "key " .. e.key .. " | " .. e.love_key .. " | "
          .. tostring(ona.input.key_down(e.key)) .. " " .. tostring(ona.input.key_down(e.love_key)))
      end
    end
  end,
}
