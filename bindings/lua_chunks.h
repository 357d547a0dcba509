/*
 * lua_chunks.h: Lua source compiled once and loaded as the same bytecode by every state
 * (lua_chunks.c). Any thread; the kept chunks are process-wide and bounded.
 */
#ifndef ONA_LUA_CHUNKS_H
#define ONA_LUA_CHUNKS_H

#include <lua.h>
#include <stddef.h>

/* Loads `size` bytes of `source` as the chunk `name` ("@path") onto L's stack, as
 * luaL_loadbufferx would (`mode` "t" refuses bytecode, NULL takes either), but through the
 * bytecode kept for those exact bytes, compiling them in a scratch state the first time: 0 with
 * the function pushed, or a LUA_ERR* code with the compiler's message pushed. */
int ona__lua_chunk_load(lua_State *L, const char *source, size_t size, const char *name,
                        const char *mode);

#endif
