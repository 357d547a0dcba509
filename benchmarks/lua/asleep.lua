-- A system with nothing to do each frame: no process, only a handler for messages, so it sleeps
-- until one comes (the frame gives it no turn). Used for idle frames of sleeping systems.
return {
  receive = function(state, from, v)
    state.got = (state.got or 0) + 1
  end,
}
