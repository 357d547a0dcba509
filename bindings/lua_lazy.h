/*
 * lua_lazy.h: tables filled on their first use. The `ona` groups (gfx, input, audio:
 * bindings/l_modules.c) and the standard libraries a script may never touch (io, os, math, debug,
 * bit: bindings/lua_host.c) are made this way at every spawn, so a state pays for what its
 * script uses. Internal to the runtime; any thread running the state's code.
 */
#ifndef ONA_LUA_LAZY_H
#define ONA_LUA_LAZY_H

#include <lua.h>

/* Pushes the two metamethods (__index, __newindex) that every lazy table of a state can share:
 * call once, make the tables with ona__lua_lazy_table, then pop them (lua_pop(L, 2)). */
void ona__lua_lazy_push_methods(lua_State *L);

/* Pushes an empty table whose metatable fills it on the first read or write of any field:
 * `fill`, the function at stack index `fill_idx` (shared between tables: pushed once), is
 * called protected as fill(table, arg) with the metatable already removed, so its stores are
 * plain; if it fails (out of memory under the system's cap) the metatable is put back and the
 * error goes on, so the next use tries again. The read or write then happens on the filled
 * table. `methods` is the stack index of the first of the two values pushed by
 * ona__lua_lazy_push_methods. From the first use on the table is plain (the JIT sees no
 * metamethod); before it, a raw look (pairs, next, rawget) finds it empty, and getmetatable
 * returns false: the metatable is protected, since its filler called with another argument
 * would open any library (io, debug) into any table, a sandboxed system's included. */
void ona__lua_lazy_table(lua_State *L, int methods, int fill_idx, lua_Integer arg);

#endif
