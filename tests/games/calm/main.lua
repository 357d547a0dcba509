-- A game that runs until it is stopped: `ticker` says on stderr when it has had a few turns, so
-- that tests/test_signals.c knows the frames are running before it sends SIGTERM.
assert(ona.spawn("ticker.lua", nil, {name = "ticker"}))
