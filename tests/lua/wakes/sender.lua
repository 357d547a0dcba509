-- Deferred wakes (test_wakes): sends args.value to the system named args.target in its first
-- turn, then ends that turn as args.how says: "error" raises, "kill" asks for its own end and
-- returns, "hog" loops until the watchdog interrupts it. The send's wake is deferred to the end
-- of the turn; however the turn ends, the receiver must get the value in the same frame.
return {
  process = function(state)
    if state.done then
      return
    end
    state.done = true
    local a = state.args
    ona.send(ona.lookup(a.target), a.value)
    if a.how == "error" then
      error("raised after a send")
    elseif a.how == "kill" then
      ona.kill(ona.self())
    elseif a.how == "hog" then
      local x = 0
      while true do
        x = x + 1
      end
    end
  end,
  init = function(state, args)
    state.args = args
  end,
}
