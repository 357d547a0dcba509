/*
 * lua_watchdog.h: the Lua half of the turn budget (lua_watchdog.c; the watchdog itself is
 * runtime/watchdog.c). Internal to the library.
 */
#ifndef ONA_LUA_WATCHDOG_H
#define ONA_LUA_WATCHDOG_H

#include "lua_host.h"
#include "watchdog.h"

/* Publishes a run of `lua`'s code on the calling thread under its budget: `what` is "turn",
 * "chunk", "exit" or "reload". Past the budget the watchdog sets a count hook in the state that
 * raises "runaway <what>: <ms> ms [in <callback>] at <file>:<line>" at every instruction until
 * the run ends, so a pcall inside the run cannot swallow it. End with ona__watchdog_end. */
void ona__lua_watch_begin(ona__lua *lua, const char *what, ona__watch_scope *scope);

/* A turn that has run a quarter of its budget in one go (its budget share, at least this long),
 * and then this long of CPU time (watchdog.c), is asked to step aside, and once it has, after
 * this long in each later frame: the watchdog sets a count hook that, at the next instruction
 * where it can yield (in a coroutine the script resumed too), suspends the turn (lua->park = ONA__PARK_SLICE)
 * to be continued next frame. Its budget keeps counting from the turn's first run
 * (lua->turn_since_ns). */
#define ONA__LUA_TURN_SLICE_NS (10ull * 1000000ull)

/* The prelude's raw.slice_of (the hook's suspension of a nested coroutine, passed up), into
 * the raw table at the top of L. */
void ona__lua_open_watchdog(lua_State *L);

#endif
