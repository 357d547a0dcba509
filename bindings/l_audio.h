/*
 * l_audio.h: the `ona.audio` Lua module (bindings/l_audio.c; issue 10).
 */
#ifndef ONA_L_AUDIO_H
#define ONA_L_AUDIO_H

#include <lua.h>

/* Adds `audio` to the `ona` table on top of the stack. */
void ona__lua_open_audio(lua_State *L);

#endif
