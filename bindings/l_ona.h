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

/* Sets the global print (it logs, naming the system) and pushes the table of raw functions the
 * prelude wraps. */
void ona__lua_push_raw(lua_State *L);

/* ona.spawn(script, args, opts) -> handle | nil, reason (l_spawn.c); registered by l_ona.c. */
int l_ona_spawn(lua_State *L);

struct ona__lua;
/* Pops the error value at the top of `lua`'s main state and writes it as text: a string or a
 * number as it is; anything else by its __tostring, run under the system's turn budget (one that
 * raises or returns something else is described), or described by type, "a table error value
 * (no __tostring)"; such a text is prefixed with the author's line in `co` (where the value was
 * raised) unless it has a "file:line:" already. May raise (out of memory): call it protected. */
void ona__lua_error_text(struct ona__lua *lua, lua_State *co, char *buf, size_t size);

#endif
