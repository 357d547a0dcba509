-- sized.lua: a system the size of a sample's (bench_actor's 'game-sized script' row): a
-- state machine, helpers and a module, about 200 lines of code the spawn must load.
local util = require('sized_util')
local M = {}

local function step_1(state, dt)
  local v = state.v1 or 0
  v = util.clamp(v + dt * 1, 0, 10)
  if v > 5 then state.mode = 'fast_1' else state.mode = 'slow_1' end
  state.v1 = v
  return v
end

local function step_2(state, dt)
  local v = state.v2 or 0
  v = util.clamp(v + dt * 2, 0, 20)
  if v > 10 then state.mode = 'fast_2' else state.mode = 'slow_2' end
  state.v2 = v
  return v
end

local function step_3(state, dt)
  local v = state.v3 or 0
  v = util.clamp(v + dt * 3, 0, 30)
  if v > 15 then state.mode = 'fast_3' else state.mode = 'slow_3' end
  state.v3 = v
  return v
end

local function step_4(state, dt)
  local v = state.v4 or 0
  v = util.clamp(v + dt * 4, 0, 40)
  if v > 20 then state.mode = 'fast_4' else state.mode = 'slow_4' end
  state.v4 = v
  return v
end

local function step_5(state, dt)
  local v = state.v5 or 0
  v = util.clamp(v + dt * 5, 0, 50)
  if v > 25 then state.mode = 'fast_5' else state.mode = 'slow_5' end
  state.v5 = v
  return v
end

local function step_6(state, dt)
  local v = state.v6 or 0
  v = util.clamp(v + dt * 6, 0, 60)
  if v > 30 then state.mode = 'fast_6' else state.mode = 'slow_6' end
  state.v6 = v
  return v
end

local function step_7(state, dt)
  local v = state.v7 or 0
  v = util.clamp(v + dt * 7, 0, 70)
  if v > 35 then state.mode = 'fast_7' else state.mode = 'slow_7' end
  state.v7 = v
  return v
end

local function step_8(state, dt)
  local v = state.v8 or 0
  v = util.clamp(v + dt * 8, 0, 80)
  if v > 40 then state.mode = 'fast_8' else state.mode = 'slow_8' end
  state.v8 = v
  return v
end

local function step_9(state, dt)
  local v = state.v9 or 0
  v = util.clamp(v + dt * 9, 0, 90)
  if v > 45 then state.mode = 'fast_9' else state.mode = 'slow_9' end
  state.v9 = v
  return v
end

local function step_10(state, dt)
  local v = state.v10 or 0
  v = util.clamp(v + dt * 10, 0, 100)
  if v > 50 then state.mode = 'fast_10' else state.mode = 'slow_10' end
  state.v10 = v
  return v
end

local function step_11(state, dt)
  local v = state.v11 or 0
  v = util.clamp(v + dt * 11, 0, 110)
  if v > 55 then state.mode = 'fast_11' else state.mode = 'slow_11' end
  state.v11 = v
  return v
end

local function step_12(state, dt)
  local v = state.v12 or 0
  v = util.clamp(v + dt * 12, 0, 120)
  if v > 60 then state.mode = 'fast_12' else state.mode = 'slow_12' end
  state.v12 = v
  return v
end

local function step_13(state, dt)
  local v = state.v13 or 0
  v = util.clamp(v + dt * 13, 0, 130)
  if v > 65 then state.mode = 'fast_13' else state.mode = 'slow_13' end
  state.v13 = v
  return v
end

local function step_14(state, dt)
  local v = state.v14 or 0
  v = util.clamp(v + dt * 14, 0, 140)
  if v > 70 then state.mode = 'fast_14' else state.mode = 'slow_14' end
  state.v14 = v
  return v
end

local function step_15(state, dt)
  local v = state.v15 or 0
  v = util.clamp(v + dt * 15, 0, 150)
  if v > 75 then state.mode = 'fast_15' else state.mode = 'slow_15' end
  state.v15 = v
  return v
end

local function step_16(state, dt)
  local v = state.v16 or 0
  v = util.clamp(v + dt * 16, 0, 160)
  if v > 80 then state.mode = 'fast_16' else state.mode = 'slow_16' end
  state.v16 = v
  return v
end

local function step_17(state, dt)
  local v = state.v17 or 0
  v = util.clamp(v + dt * 17, 0, 170)
  if v > 85 then state.mode = 'fast_17' else state.mode = 'slow_17' end
  state.v17 = v
  return v
end

local function step_18(state, dt)
  local v = state.v18 or 0
  v = util.clamp(v + dt * 18, 0, 180)
  if v > 90 then state.mode = 'fast_18' else state.mode = 'slow_18' end
  state.v18 = v
  return v
end

local function step_19(state, dt)
  local v = state.v19 or 0
  v = util.clamp(v + dt * 19, 0, 190)
  if v > 95 then state.mode = 'fast_19' else state.mode = 'slow_19' end
  state.v19 = v
  return v
end

local function step_20(state, dt)
  local v = state.v20 or 0
  v = util.clamp(v + dt * 20, 0, 200)
  if v > 100 then state.mode = 'fast_20' else state.mode = 'slow_20' end
  state.v20 = v
  return v
end

local function step_21(state, dt)
  local v = state.v21 or 0
  v = util.clamp(v + dt * 21, 0, 210)
  if v > 105 then state.mode = 'fast_21' else state.mode = 'slow_21' end
  state.v21 = v
  return v
end

local function step_22(state, dt)
  local v = state.v22 or 0
  v = util.clamp(v + dt * 22, 0, 220)
  if v > 110 then state.mode = 'fast_22' else state.mode = 'slow_22' end
  state.v22 = v
  return v
end

local function step_23(state, dt)
  local v = state.v23 or 0
  v = util.clamp(v + dt * 23, 0, 230)
  if v > 115 then state.mode = 'fast_23' else state.mode = 'slow_23' end
  state.v23 = v
  return v
end

local function step_24(state, dt)
  local v = state.v24 or 0
  v = util.clamp(v + dt * 24, 0, 240)
  if v > 120 then state.mode = 'fast_24' else state.mode = 'slow_24' end
  state.v24 = v
  return v
end

local function step_25(state, dt)
  local v = state.v25 or 0
  v = util.clamp(v + dt * 25, 0, 250)
  if v > 125 then state.mode = 'fast_25' else state.mode = 'slow_25' end
  state.v25 = v
  return v
end

local function step_26(state, dt)
  local v = state.v26 or 0
  v = util.clamp(v + dt * 26, 0, 260)
  if v > 130 then state.mode = 'fast_26' else state.mode = 'slow_26' end
  state.v26 = v
  return v
end

local function step_27(state, dt)
  local v = state.v27 or 0
  v = util.clamp(v + dt * 27, 0, 270)
  if v > 135 then state.mode = 'fast_27' else state.mode = 'slow_27' end
  state.v27 = v
  return v
end

local function step_28(state, dt)
  local v = state.v28 or 0
  v = util.clamp(v + dt * 28, 0, 280)
  if v > 140 then state.mode = 'fast_28' else state.mode = 'slow_28' end
  state.v28 = v
  return v
end

local function step_29(state, dt)
  local v = state.v29 or 0
  v = util.clamp(v + dt * 29, 0, 290)
  if v > 145 then state.mode = 'fast_29' else state.mode = 'slow_29' end
  state.v29 = v
  return v
end

local function step_30(state, dt)
  local v = state.v30 or 0
  v = util.clamp(v + dt * 30, 0, 300)
  if v > 150 then state.mode = 'fast_30' else state.mode = 'slow_30' end
  state.v30 = v
  return v
end

function M.init(state, args)
  state.t = 0
end

function M.process(state, events, dt)
  state.t = state.t + dt
  step_1(state, dt)
  step_2(state, dt)
  step_3(state, dt)
  step_4(state, dt)
  step_5(state, dt)
  step_6(state, dt)
  step_7(state, dt)
  step_8(state, dt)
  step_9(state, dt)
  step_10(state, dt)
  step_11(state, dt)
  step_12(state, dt)
  step_13(state, dt)
  step_14(state, dt)
  step_15(state, dt)
  step_16(state, dt)
  step_17(state, dt)
  step_18(state, dt)
  step_19(state, dt)
  step_20(state, dt)
  step_21(state, dt)
  step_22(state, dt)
  step_23(state, dt)
  step_24(state, dt)
  step_25(state, dt)
  step_26(state, dt)
  step_27(state, dt)
  step_28(state, dt)
  step_29(state, dt)
  step_30(state, dt)
end

return M
