-- Measures the wall time from its last turn's start to this one's: the frame time it lives in.
-- Prints, per phase (frames 11..60 before the spin; the first second after the spin began, the
-- spinner's budget; after), the frames it got a turn in and their median, 90th percentile and
-- longest time, at frame 399.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } ona_bench_timespec;
int clock_gettime(int clk, ona_bench_timespec *ts);
]]
local ts = ffi.new("ona_bench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local function summary(name, t)
  if #t == 0 then return name .. ": 0 frames" end
  table.sort(t)
  return string.format("%s: %d frames, median %.2f ms, p90 %.2f ms, max %.2f ms", name, #t,
    t[math.floor((#t + 1) / 2)], t[math.max(1, math.floor(#t * 0.9))], t[#t])
end

return {
  init = function(state, args)
    state.id = args.id
    state.phases = {before = {}, during = {}, after = {}}
    state.first_during, state.last_during = nil, nil
  end,
  process = function(state)
    local t = now_ms()
    local frame = ona.frame()
    if state.last then
      local phase = frame > 10 and "before" or nil
      if frame == 61 then state.spin_start = state.last end
      if frame > 60 then phase = t - state.spin_start <= 1000 and "during" or "after" end
      local list = state.phases[phase] or {}
      list[#list + 1] = t - state.last
      if phase == "during" then
        state.first_during = state.first_during or frame
        state.last_during = frame
      end
    end
    state.last = t
    if frame == 399 and state.id == 1 then
      local p = state.phases
      print(summary("before", p.before))
      print(summary("during", p.during) .. string.format(" (frames %s..%s)", tostring(state.first_during), tostring(state.last_during)))
      print(summary("after", p.after))
    end
  end,
}
