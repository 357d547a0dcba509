/*
 * l_gfx.h: the `ona.gfx` and `ona.input` Lua modules (bindings/l_gfx.c).
 */
#ifndef ONA_L_GFX_H
#define ONA_L_GFX_H

#include <lua.h>

struct ona__video;

/* Adds `gfx` and `input` to the `ona` table on top of the stack. */
void ona__lua_open_gfx(lua_State *L);
/* Pushes a new array of the frame's events (tables with `type` and the event's fields). */
void ona__lua_push_events(lua_State *L, const struct ona__video *v);

#endif
