-- A game with one runaway system: `spinner` spins forever in its third turn, `alive` keeps
-- counting. tests/test_signals.c runs it with the launcher and sends SIGINT.
assert(ona.spawn("alive.lua", nil, {name = "alive"}))
assert(ona.spawn("spin.lua", nil, {name = "spinner"}))
