-- A paddle: every message is the rally's hit count; send it back one higher until the rally
-- is over. The serving paddle starts a rally each frame and quits after `rallies` of them.
return {
  init = function(state, args)
    state.peer = args.peer
    state.serve = args.serve
    state.rally = args.rally
    state.rallies = args.rallies
    state.hits = 0
    state.served = 0
  end,

  process = function(state, events, dt)
    if state.serve then
      state.served = state.served + 1
      ona.send(ona.lookup(state.peer), 1)
    end
    -- With immediate delivery ona.messages() receives until the frame is quiet: each receive
    -- parks this system's turn until the other paddle's reply arrives, freeing the thread
    -- meanwhile. With ordered delivery it reads the hits sent since this paddle's last turn.
    for from, hit in ona.messages() do
      state.hits = state.hits + 1
      if hit < state.rally then
        ona.send(from, hit + 1)
      end
    end
    if state.serve and state.served % 60 == 0 then
      print(("%d rallies, %d hits on this side"):format(state.served, state.hits))
    end
    if state.serve and state.served == state.rallies then
      ona.quit()
    end
  end,
}
