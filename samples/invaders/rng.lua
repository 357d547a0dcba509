-- rng.lua: a seeded pseudo-random generator (Park and Miller's minimal standard,
-- x = x * 16807 mod 2^31 - 1), exact in doubles, so a seed gives the same game everywhere.
local M = {}
M.__index = M

function M.new(seed)
  local x = math.floor(math.abs(seed or 1)) % 2147483647
  if x == 0 then
    x = 1
  end
  return setmetatable({ x = x }, M)
end

-- A number in [0, 1).
function M:next()
  self.x = self.x * 16807 % 2147483647
  return (self.x - 1) / 2147483646
end

-- An integer in [lo, hi].
function M:int(lo, hi)
  return lo + math.floor(self:next() * (hi - lo + 1))
end

-- A number in [lo, hi).
function M:range(lo, hi)
  return lo + self:next() * (hi - lo)
end

return M
