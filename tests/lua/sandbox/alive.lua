-- Not sandboxed: every turn, whether its string methods are its own.
return {
  init = function(state, args) state.report = args.report end,
  process = function(state)
    state.n = (state.n or 0) + 1
    ona.send(state.report, "alive " .. state.n .. " " .. ("a"):upper())
  end,
}
