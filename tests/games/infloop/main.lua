-- A game with one runaway system: `spinner` spins forever in its third turn, `alive` keeps
-- counting. tests/test_signals.c runs it with the launcher and sends SIGINT. The spinner's turn
-- budget is off: nothing interrupts it, whichever LuaJIT the build has (with CHECKHOOK the budget
-- would end a compiled loop too).
assert(ona.spawn("alive.lua", nil, {name = "alive"}))
assert(ona.spawn("spin.lua", nil, {name = "spinner", budget = 0}))
