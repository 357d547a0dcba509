-- Floods args.peer without ever receiving: two of these with small mailboxes deadlock.
return {
  init = function(state, args)
    state.peer = args.peer
  end,
  process = function(state)
    local peer = ona.lookup(state.peer)
    for i = 1, 10 do
      ona.send(peer, i)
    end
  end,
}
