-- physics_bench.lua: bench_physics's Lua system: builds the scene (N dynamic 10 x 10 boxes in a
-- grid of 40 columns, 14 px apart, falling into a static container of edges, 32 px a meter,
-- gravity 900 px/s^2) and steps it once a turn by 1/60 s; after args.steps turns it sends
-- ("awake", bodies awake) to args.report, when there is one.
return {
  init = function(state, args)
    state.n, state.steps, state.report = args.n, args.steps, args.report
    local w = ona.physics.world({ gravity = { 0, 900 }, meter = 32 })
    state.world = w
    local rows = math.ceil(args.n / 40)
    local width, height = 40 * 14 + 40, rows * 14 + 140
    w:body({ shape = "edge", points = { 0, height, width, height } })
    w:body({ shape = "edge", points = { 0, 0, 0, height } })
    w:body({ shape = "edge", points = { width, 0, width, height } })
    state.bodies = {}
    for i = 0, args.n - 1 do
      state.bodies[#state.bodies + 1] = w:body({ type = "dynamic", shape = "box",
        x = 27 + (i % 40) * 14, y = 20 + math.floor(i / 40) * 14, width = 10, height = 10,
        density = 1, friction = 0.5 })
    end
    state.done = 0
  end,
  process = function(state)
    if state.done == state.steps then
      return
    end
    state.world:step(1 / 60)
    state.done = state.done + 1
    if state.done == state.steps and state.report then
      local awake = 0
      for _, b in ipairs(state.bodies) do
        if b:awake() then
          awake = awake + 1
        end
      end
      ona.send(state.report, "awake", awake)
    end
  end,
}
