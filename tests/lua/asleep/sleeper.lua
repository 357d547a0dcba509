-- A system with nothing to do each frame: no process, only receive. It reports each message it
-- handles as ("got", the frame it handled it in, the sender, the values...) to args.report.
return {
  init = function(state, args)
    state.report = args.report
  end,
  receive = function(state, from, ...)
    ona.send(state.report, "got", ona.frame(), from, ...)
  end,
}
