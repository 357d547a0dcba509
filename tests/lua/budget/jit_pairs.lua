-- Its first turn sums a 64-entry table with pairs() 1000 times (the JIT compiles the loop) and
-- reports ("done", sum). A LuaJIT built with LUAJIT_ENABLE_CHECKHOOK but without the fix in
-- cmake/luajit-checkhook-itern.patch compiles that loop into a trace that never ends.
return {
  init = function(state, args) state.args = args end,
  process = function(state)
    if state.finished then return end
    local t = {}
    for i = 1, 64 do t["k" .. i] = i end
    local sum = 0
    for _ = 1, 1000 do
      for _, v in pairs(t) do sum = sum + v end
    end
    state.finished = true
    ona.send(state.args.report, "done", sum)
  end,
}
