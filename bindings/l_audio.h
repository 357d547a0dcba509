/*
 * l_audio.h: the `ona.audio` Lua module (bindings/l_audio.c; issue 10).
 */
#ifndef ONA_L_AUDIO_H
#define ONA_L_AUDIO_H

#include <lua.h>

/* Fills the `ona.audio` table on top of the stack (l_ona.c, on the group's first use). */
void ona__lua_open_audio(lua_State *L);

#endif
