-- Reports each callback it gets to args.report.
local report
return {
  init = function(state, args)
    report = args.report
    ona.send(report, "init")
  end,
  process = function(state)
    ona.send(report, "process")
  end,
  exit = function(state)
    ona.send(report, "exit")
  end,
}
