-- A system with a fixed amount of work per turn: a loop of args.iterations floating-point
-- additions (bench_frames calibrates the count so that a turn takes about 1 us).
return {
  init = function(state, args)
    state.iterations = args.iterations
    state.x = 0
  end,
  process = function(state)
    local x = state.x
    for i = 1, state.iterations do
      x = x + i * 0.5
    end
    state.x = x % 1000
  end,
}
