-- In its first turn, after some busy work of its own length, spawns args.n idle systems named
-- <its name>_<1..n>.
return {
  init = function(state, args) state.n, state.work = args.n, args.work end,
  process = function(state)
    if state.done then return end
    state.done = true
    local x = 0
    for i = 1, state.work do x = x + i % 3 end
    for j = 1, state.n do ona.spawn("idle.lua", nil, { name = ona.name(ona.self()) .. "_" .. j }) end
  end,
}
