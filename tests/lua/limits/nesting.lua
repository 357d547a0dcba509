-- Nesting that must keep working: gsub callbacks and coroutines args.depth deep (under the limit),
-- first after args.caught errors were raised inside gsub callbacks and caught by pcall (each one
-- leaves the C-nesting count too high until it is counted again). Sends "ok" and the depth
-- reached to args.report each turn.
local function gsub_nest(n, depth)
  if n == depth then
    return n
  end
  local reached
  ("a"):gsub(".", function() reached = gsub_nest(n + 1, depth) end)
  return reached
end

local function co_nest(n, depth)
  if n == depth then
    return n
  end
  return coroutine.wrap(function() return co_nest(n + 1, depth) end)()
end

return {
  init = function(state, args)
    state.args = args
  end,
  process = function(state)
    local args = state.args
    for _ = 1, args.caught do
      assert(not pcall(string.gsub, "a", ".", function() error("caught") end))
    end
    ona.send(args.report, "ok", gsub_nest(0, args.depth), co_nest(0, args.depth))
  end,
}
