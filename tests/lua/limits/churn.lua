-- Allocates in every turn (tables, strings, a closure, a coroutine), so that a failed allocation
-- can be injected at any point of a turn; sends its turn count to args.report when given.
return {
  init = function(state, args)
    state.n = 0
    state.report = args and args.report
  end,
  process = function(state)
    state.n = state.n + 1
    local t = {}
    for i = 1, 50 do
      t[i] = { i, "item" .. i }
    end
    local co = coroutine.wrap(function(x) return x .. "!" end)
    state.last = co(table.concat({ "turn", state.n }, " "))
    state.kept = t
    if state.report then
      ona.send(state.report, state.n)
    end
  end,
}
