-- Each turn sends the frame number to each of the systems named w1 .. w<args.n>.
return {
  init = function(state, args)
    state.to = {}
    for i = 1, args.n do
      state.to[i] = ona.lookup("w" .. i)
    end
  end,
  process = function(state)
    for _, to in ipairs(state.to) do
      ona.send(to, ona.frame())
    end
  end,
}
