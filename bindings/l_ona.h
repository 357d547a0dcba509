/*
 * l_ona.h: the `ona` Lua module every system's state gets (bindings/l_ona.c, with ona.spawn in
 * bindings/l_spawn.c).
 */
#ifndef ONA_L_ONA_H
#define ONA_L_ONA_H

#include <lua.h>

#include "l_types.h"

/* Registry key of the turn trampoline returned by the prelude. */
#define ONA__TURN_KEY "ona.turn"
/* Registry key of the hot-reload function returned by the prelude. */
#define ONA__RELOAD_KEY "ona.reload"

/* Pushes the `ona` module table and the table of raw functions the prelude wraps. */
void ona__lua_open_ona(lua_State *L);

/* ona.spawn(script, args, opts) -> handle | nil, reason (l_spawn.c); registered by l_ona.c. */
int l_ona_spawn(lua_State *L);

/* Issue 10: add time, dt, random (l_time.c) and save, load (l_save.c) to the `ona` table on
 * top of the stack. */
void ona__lua_open_time(lua_State *L);
void ona__lua_open_save(lua_State *L);

/* The chunk name the prelude is loaded under (lua_host.c): its frames are never the author's. */
#define ONA__PRELUDE_CHUNK "=prelude.lua"

/* --- Errors at the author's line (l_ona.c) ---------------------------------------------------
 * Every misuse of an `ona`, `ona.gfx` or `ona.input` function raises
 * "<file>:<line>: <public name>: <message>", e.g. "ball.lua:12: ona.send: bad argument #1 (not
 * a system handle)". The position is the innermost Lua frame calling the running C function
 * that is not the prelude's: a wrapper in the prelude and a C caller (pcall) are passed over.
 * luaL_argerror would name the prelude's wrapper or the call site's variable instead. */

/* Writes "<file>:<line>: " of the innermost author frame of L at or below `level` into buf, or
 * "" when there is none. */
void ona__lua_author_line(lua_State *L, int level, char *buf, size_t size);
/* Raises "<author line>: <fn>: <formatted message>" (fn NULL: no name). Never returns. */
int ona__lua_raise(lua_State *L, const char *fn, const char *fmt, ...);
/* Raises "<author line>: <fn>: bad argument #<arg> (<msg>)". Never returns. */
int ona__lua_argerror(lua_State *L, int arg, const char *fn, const char *msg);
/* The luaL_check* family, reporting with ona__lua_argerror ("number expected, got nil"). */
lua_Number ona__lua_checknumber(lua_State *L, int arg, const char *fn);
lua_Number ona__lua_optnumber(lua_State *L, int arg, const char *fn, lua_Number dflt);
const char *ona__lua_checkstring(lua_State *L, int arg, const char *fn, size_t *len);
void ona__lua_checktable(lua_State *L, int arg, const char *fn);

struct ona__lua;
/* Pops the error value at the top of `lua`'s main state and writes it as text: a string or a
 * number as it is; anything else by its __tostring, run under the system's turn budget (one that
 * raises or returns something else is described), or described by type, "a table error value
 * (no __tostring)"; such a text is prefixed with the author's line in `co` (where the value was
 * raised) unless it has a "file:line:" already. May raise (out of memory): call it protected. */
void ona__lua_error_text(struct ona__lua *lua, lua_State *co, char *buf, size_t size);

#endif
