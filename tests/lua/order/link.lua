-- A configurable link: each turn it sends ona.frame() to every system named in args.to (a
-- comma-separated list, looked up each turn, so late systems are found), and reports each message
-- it takes as (its name, its frame, sender's name, value) when args.report is set. args.fail_at: raise in
-- that turn; args.spawn_at: in that turn spawn a link named args.spawn_name after args.spawn_after.
return {
  init = function(state, args)
    state.args = args
    state.turn = 0
  end,
  process = function(state)
    local a = state.args
    state.turn = state.turn + 1
    if a.fail_at and state.turn == a.fail_at then error("failing on purpose") end
    for from, v in ona.messages() do
      if a.report then ona.send(a.report, ona.name(ona.self()), ona.frame(), ona.name(from) or "?", v) end
    end
    if a.spawn_at and state.turn == a.spawn_at then
      ona.spawn("link.lua", { report = a.report }, { name = a.spawn_name, after = { a.spawn_after } })
    end
    for name in string.gmatch(a.to or "", "[^,]+") do
      local h = ona.lookup(name)
      if h then ona.send(h, ona.frame()) end
    end
  end,
}
