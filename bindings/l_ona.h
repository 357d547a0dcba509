/*
 * l_ona.h: the `ona` Lua module every system's state gets (bindings/l_ona.c).
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

#endif
