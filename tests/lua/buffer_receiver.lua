-- Receives a buffer and strings, checks them, reports the sum of the floats.
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    for from, buf, name, t in ona.messages() do
      local p, sum = buf:ptr(), 0
      for i = 0, buf:count() - 1 do
        sum = sum + p[i]
      end
      ona.send(state.report, "receiver", sum, buf:count(), buf:type(), tostring(name), #name,
        t.nested[1] == name, from == ona.lookup("buffer_sender"))
    end
  end,
}
