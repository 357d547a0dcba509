-- Recurses without end through one shape of nesting (args.shape): coroutine resumes, wrapped
-- coroutines, gsub callbacks, plain Lua calls, __index metamethods, pcall chains, or gsub and
-- coroutines alternating. Each must end in a Lua error ("C stack overflow" or "stack overflow"),
-- never a fault. With args.catch the turn catches it and sends the message to args.report, so the
-- system lives on; without, the error fails the system.
local shapes = {}

function shapes.co(n)
  local co = coroutine.create(function() return shapes.co(n + 1) end)
  local ok, err = coroutine.resume(co)
  if not ok then
    error(err, 0)
  end
end

function shapes.wrap(n)
  local co = coroutine.wrap(function() return shapes.wrap(n + 1) end)
  return co()
end

function shapes.gsub(n)
  return (("ab"):gsub(".", function() return shapes.gsub(n + 1) end))
end

function shapes.lua(n)
  return 1 + shapes.lua(n + 1)
end

function shapes.meta()
  local t = setmetatable({}, {})
  getmetatable(t).__index = function(t, k) return t[k .. "x"] end
  return t.a
end

function shapes.pcall(n)
  local ok, err = pcall(shapes.pcall, n + 1)
  if not ok then
    error(err, 0)
  end
end

function shapes.mixed(n)
  if n % 2 == 0 then
    return (("a"):gsub(".", function() return shapes.mixed(n + 1) end))
  end
  return coroutine.wrap(function() return shapes.mixed(n + 1) end)()
end

return {
  init = function(state, args)
    state.shape = shapes[args.shape]
    state.catch = args.catch
    state.report = args.report
  end,
  process = function(state)
    if not state.catch then
      state.shape(1)
      return
    end
    local ok, err = pcall(state.shape, 1)
    ona.send(state.report, ok and "no error" or tostring(err))
  end,
}
