-- Sandboxed: at its second turn, allocates until its memory cap stops it (the collector asked
-- to stop first, which a sandbox refuses).
return {
  init = function(state, args) state.report = args.report end,
  process = function(state)
    state.n = (state.n or 0) + 1
    ona.send(state.report, "bomb turn " .. state.n .. " " .. tostring(pcall(collectgarbage, "stop")))
    if state.n == 2 then
      local t = {}
      for i = 1, 1e9 do t[i] = string.rep("x", 4096) .. i end
    end
  end,
}
