-- Handles its messages with inbox.dispatch each turn and reports each one to `report` as
-- (what, sender index, frame sent, frame handled), in the order handled.
local inbox = require("ona.inbox")
local handlers = {}
function handlers.tick(state, from, index, sent)
  ona.send(state.report, "tick", index, sent, ona.frame())
end
function handlers.now(state, from, index, sent)
  ona.send(state.report, "now", index, sent, ona.frame())
end
return {
  init = function(state, args)
    state.report = args.report
    assert(require("ona.inbox") == inbox, "one module per system state")
  end,
  process = function(state)
    inbox.dispatch(state, handlers)
  end,
}
