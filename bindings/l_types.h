/*
 * l_types.h: the Lua userdata types that messages carry: ona.String (an ona_string shared by
 * reference count) and ona.Buffer (a typed array moved by send). Internal to the runtime.
 */
#ifndef ONA_L_TYPES_H
#define ONA_L_TYPES_H

#include "ona/message.h"

#include <lua.h>

#define ONA_STRING_MT "ona.String"
#define ONA_BUFFER_MT "ona.Buffer"

/* The ona.Buffer userdata: `buffer` is NULL once the buffer was moved by a send or freed. */
typedef struct l_buffer {
    ona_buffer *buffer;
} l_buffer;

/* Registers both metatables in L's registry. Called once per lua_State, before any push. */
void ona__lua_register_types(lua_State *L);
/* Added: the halves of ona__lua_register_types, one per file (l_string.c, l_buffer.c). */
void ona__lua_register_string(lua_State *L);
void ona__lua_register_buffer(lua_State *L);

/* Pushes a new ona.String userdata that takes over `*s` (which is reset to empty). */
void ona__lua_push_string(lua_State *L, ona_string *s);
/* The ona_string in the ona.String at idx, or NULL when idx is not one. */
ona_string *ona__lua_to_string(lua_State *L, int idx);

/* Pushes a new ona.Buffer userdata that owns `buffer`. */
void ona__lua_push_buffer(lua_State *L, ona_buffer *buffer);
/* The ona.Buffer userdata at idx, or NULL when idx is not one. */
l_buffer *ona__lua_to_buffer(lua_State *L, int idx);

/* `ona.string(text)`: a Lua string (or ona.String) to an ona.String. */
int l_string_new(lua_State *L);
/* `ona.buffer(ctype, count)`: a zeroed typed array; the element size comes from ffi.sizeof. */
int l_buffer_new(lua_State *L);

#endif
