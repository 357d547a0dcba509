/*
 * l_input.h: what the ona.input module (bindings/l_input.c) gives the Lua host: the frame's
 * events as Lua values, for the turn's process(state, events, dt) call.
 */
#ifndef ONA_L_INPUT_H
#define ONA_L_INPUT_H

#include "services.h"

#include <lua.h>

/* Pushes a new array of the frame's events (tables with `type` and the event's fields). Any
 * thread, inside a turn: the list is main's, immutable during the frame. */
void ona__lua_push_events(lua_State *L, const ona__video *v);

#endif
