-- Sends the frame number to the system named args.to in every args.every-th frame.
return {
  init = function(state, args)
    state.to, state.every = args.to, args.every
  end,
  process = function(state)
    local f = ona.frame()
    if f % state.every == 0 then
      ona.send(ona.lookup(state.to), "ping", f)
    end
  end,
}
