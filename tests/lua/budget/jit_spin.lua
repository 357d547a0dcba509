-- Its first turn spins for args.ms milliseconds of wall time in a loop the JIT compiles (an FFI
-- call to clock_gettime is compiled into the trace), then reports ("done", ms). With a LuaJIT
-- built without LUAJIT_ENABLE_CHECKHOOK the budget's hook never fires inside the trace.
local ffi = require("ffi")
ffi.cdef [[
struct ona_budget_timespec { long tv_sec; long tv_nsec; };
int clock_gettime(int clock, struct ona_budget_timespec *ts);
]]
local ts = ffi.new("struct ona_budget_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
return {
  init = function(state, args) state.args = args end,
  process = function(state)
    if state.finished then return end
    local stop = now_ms() + state.args.ms
    while now_ms() < stop do end
    state.finished = true
    ona.send(state.args.report, "done", state.args.ms)
  end,
}
