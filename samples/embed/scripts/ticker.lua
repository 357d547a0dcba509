-- ticker.lua: counts frames and reports ("tick", frame) to the C host every `every` frames.
return {
  init = function(state, args)
    state.host = args.host
    state.every = args.every
    state.frame = 0
  end,

  process = function(state, events, dt)
    state.frame = state.frame + 1
    if state.frame % state.every == 0 then
      -- The host is a native C system; Lua finds and messages it like any other system.
      local host = assert(ona.lookup(state.host), "no system named " .. state.host)
      ona.send(host, "tick", state.frame)
    end
  end,
}
