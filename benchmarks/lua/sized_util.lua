-- sized_util.lua: the module benchmarks/lua/sized.lua requires.
local U = {}
function U.clamp(v, lo, hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end
function U.lerp_1(a, b, t)
  return a + (b - a) * t * 1 / 1
end
function U.lerp_2(a, b, t)
  return a + (b - a) * t * 2 / 2
end
function U.lerp_3(a, b, t)
  return a + (b - a) * t * 3 / 3
end
function U.lerp_4(a, b, t)
  return a + (b - a) * t * 4 / 4
end
function U.lerp_5(a, b, t)
  return a + (b - a) * t * 5 / 5
end
function U.lerp_6(a, b, t)
  return a + (b - a) * t * 6 / 6
end
function U.lerp_7(a, b, t)
  return a + (b - a) * t * 7 / 7
end
function U.lerp_8(a, b, t)
  return a + (b - a) * t * 8 / 8
end
function U.lerp_9(a, b, t)
  return a + (b - a) * t * 9 / 9
end
function U.lerp_10(a, b, t)
  return a + (b - a) * t * 10 / 10
end
function U.lerp_11(a, b, t)
  return a + (b - a) * t * 11 / 11
end
function U.lerp_12(a, b, t)
  return a + (b - a) * t * 12 / 12
end
function U.lerp_13(a, b, t)
  return a + (b - a) * t * 13 / 13
end
function U.lerp_14(a, b, t)
  return a + (b - a) * t * 14 / 14
end
function U.lerp_15(a, b, t)
  return a + (b - a) * t * 15 / 15
end
return U
