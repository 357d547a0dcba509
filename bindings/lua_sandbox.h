/*
 * lua_sandbox.h: where a Lua system's code may come from, and what a sandboxed system may touch.
 * Internal to the Lua host.
 *
 * lua_files.c: every system's `require` finds its modules inside the game folder only (the
 * rules of ona__paths_resolve_game) and reads them without blocking; a sandboxed system's
 * loadfile, dofile and package.searchpath follow the same rules. lua_sandbox.c: the sandbox
 * itself, applied to one system's state after its prelude ran and before its script's chunk,
 * per spawn (a state made ahead of time is never sandboxed until it is given to a spawn).
 */
#ifndef ONA_LUA_SANDBOX_H
#define ONA_LUA_SANDBOX_H

#include <lua.h>
#include <stdbool.h>

/* The largest source file a system's code may come from (its script, a module, a loadfile). */
#define ONA__LUA_SOURCE_MAX_BYTES (64u << 20)

/* lua_sandbox.c. Takes away from the state of the sandboxed system being loaded everything
 * ona_spawn_desc.sandbox lists, and switches its JIT compiler off. Runs inside the load's
 * protected call (it may raise out of memory). */
void ona__lua_sandbox(lua_State *L);

/* lua_sandbox.c. Pushes the ffi module for the runtime's own use (the prelude's fast paths,
 * ona.Buffer): opened once per state, kept in the registry, and in a sandboxed system removed
 * from package.loaded so that its scripts can never require it. */
void ona__lua_push_ffi(lua_State *L);

/* lua_files.c. Adds to the table on top of the stack (the prelude's `raw`) `module`, the
 * confined search and load of `require`, and `ffi` (ona__lua_push_ffi). */
void ona__lua_open_files(lua_State *L);

/* lua_files.c. Reads the source file at `path` (already resolved) without blocking and loads it
 * as chunk "@path", through the bytecode every state shares (lua_chunks.h): 0 with the function
 * pushed, or a LUA_ERR* code with the message pushed. `text_only` refuses a binary chunk
 * (bytecode) with words that say so. */
int ona__lua_load_source(lua_State *L, const char *path, bool text_only);

/* lua_files.c, for the sandbox's base library: loadfile(name [, mode [, env]]), dofile(name) and
 * package.searchpath(name, path) inside the game folder, source only. */
int ona__lua_sandbox_loadfile(lua_State *L);
int ona__lua_sandbox_dofile(lua_State *L);
int ona__lua_sandbox_searchpath(lua_State *L);

#endif
