-- Reports the byte length of every text event it is given, for tests/test_capi.c.
return {
  init = function(state, args) state.report = args.report end,
  process = function(state, events)
    for _, e in ipairs(events) do
      if e.type == "text" then ona.send(state.report, "text " .. #e.text .. " " .. e.text) end
    end
  end,
}
