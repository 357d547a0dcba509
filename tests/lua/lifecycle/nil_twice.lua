-- Loops on ona.receive() and leaves the loop only after it returned nil twice, then reports
-- ("finished", frame, nils).
return {
  init = function(state, args)
    state.report = args.report
  end,
  process = function(state)
    local nils = 0
    while true do
      local from = ona.receive()
      if from == nil then
        nils = nils + 1
        if nils == 2 then
          break
        end
      end
    end
    ona.send(state.report, "finished", ona.frame(), nils)
  end,
}
