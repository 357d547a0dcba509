-- Takes at most args.per_frame messages a turn (try_receive) and checks that each tag's numbers
-- come 1, 2, 3... with no gap or repeat (probes, numbered -1, are skipped). Once it has
-- args.total numbered messages it reports ("consumed", got, bad).
return {
  init = function(state, args)
    state.args = args
    state.last = {}
    state.got = 0
    state.bad = 0
  end,
  process = function(state)
    local a = state.args
    for _ = 1, a.per_frame do
      local from, tag, i = ona.try_receive()
      if not from then
        break
      end
      if i ~= -1 then
        if i ~= (state.last[tag] or 0) + 1 then
          state.bad = state.bad + 1
        end
        state.last[tag] = i
        state.got = state.got + 1
        if state.got == a.total then
          ona.send(a.report, "consumed", state.got, state.bad)
        end
      end
    end
  end,
}
