-- A memory bomb of one kind (args.kind): a table growing without end, a string doubled past any
-- cap, or string.rep asking for 1 GB at once. Each must fail this system alone with an error,
-- never abort the process.
local kinds = {}

function kinds.table(state)
  local t = state.t
  for i = 1, 1e6 do
    t[#t + 1] = { i, tostring(i) }
  end
end

function kinds.double()
  local s = "x"
  for _ = 1, 40 do
    s = s .. s
  end
  return #s
end

function kinds.rep()
  return #string.rep("x", 2 ^ 30)
end

return {
  init = function(state, args)
    state.t = {}
    state.kind = kinds[args.kind]
  end,
  process = function(state)
    state.kind(state)
  end,
}
