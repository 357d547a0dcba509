/*
 * lua_sandbox.c: a sandboxed Lua system (ona_spawn_desc.sandbox, lua_sandbox.h): what its state
 * loses before its script's chunk runs, and the ffi the runtime keeps for its own use.
 *
 * Design note.
 *  - One state, one globals table. A system's state is its own (lua_host.c), so the sandbox
 *    takes the dangerous parts out of that state's globals, package.loaded and package.preload
 *    in place rather than giving the script a second environment: every coroutine, every chunk
 *    that load compiles (LuaJIT gives it the thread's environment), getfenv of any function or
 *    level, and the C functions' own globals all see the one stripped table, so there is no
 *    "real" environment left to reach. What the runtime still needs lives only in the prelude's
 *    locals and in the registry, which a script reaches through neither (no debug library).
 *  - Removed: io, debug, ffi (and jit.util, jit.profile, which hand out raw prototypes), os but
 *    clock/time/date, jit but its version fields, string.dump, package.loadlib and C modules
 *    (package.cpath empty, the C searchers gone: lua_host.c's prelude), ona.save and ona.load
 *    (saves live outside the game folder). Replaced: load and loadstring compile source only;
 *    loadfile, dofile and package.searchpath resolve inside the game folder (lua_files.c);
 *    setfenv refuses the thread's environment and the runtime's own functions; collectgarbage
 *    keeps the runtime's collector settings; buffer:ptr, a raw pointer to any memory, refuses.
 *  - The debug library is opened before it is removed, because the prelude keeps the table for
 *    its C-nesting guard, and an unopened library table would be filled into a new global by
 *    LuaJIT's opener once package.loaded no longer holds it.
 *  - A sandboxed system must keep its turn budget. The bundled LuaJIT checks the watchdog's hook
 *    in compiled traces too (LUAJIT_ENABLE_CHECKHOOK); Debian's does not, so with it the JIT
 *    compiler is switched off in a sandboxed state, where only interpreted code lets the hook
 *    interrupt any loop. Either way the script cannot switch it (no jit.on/off/opt). A long call
 *    inside C (a pathological string pattern) is still not interrupted; the watchdog names it.
 *  - The ffi module is opened by the runtime itself (ona__lua_push_ffi) and kept in the
 *    registry: LuaJIT's opener registers it in package.loaded, from where a sandboxed system's
 *    copy is removed at once.
 */
#include "lua_sandbox.h"

#include "l_types.h"
#include "lua_check.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>
#include <string.h>

#ifndef ONA_LUAJIT_CHECKHOOK
#error "ONA_LUAJIT_CHECKHOOK is a compile definition of the build (cmake/luajit.cmake)"
#endif

#define FFI_KEY "ona.ffi"

void ona__lua_push_ffi(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, FFI_KEY);
    if (lua_istable(L, -1))
        return;
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, LUA_FFILIBNAME); /* a script's require("ffi") came first */
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_pushcfunction(L, luaopen_ffi);
        lua_pushliteral(L, LUA_FFILIBNAME);
        lua_call(L, 1, 1);
    }
    if (ona__lua_of(L)->sandboxed || ona__lua_of(L)->ffi_watched) {
        lua_pushnil(L);
        lua_setfield(L, -3, LUA_FFILIBNAME);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, FFI_KEY);
    lua_remove(L, -2);
}

/* --- load and loadstring: source only -------------------------------------------------------- */

typedef struct reader {
    int fn, slot;
    bool first, binary;
} reader;

/* load's reader function, called for each piece; the piece is kept alive in a reserved slot. */
static const char *read_piece(lua_State *L, void *ud, size_t *size) {
    reader *r = ud;
    lua_pushvalue(L, r->fn);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1))
        luaL_error(L, "reader function must return a string");
    lua_replace(L, r->slot);
    const char *s = lua_tolstring(L, r->slot, size);
    if (r->first && *size > 0) {
        r->first = false;
        r->binary = s[0] == LUA_SIGNATURE[0];
    }
    return s;
}

/* load(chunk [, chunkname [, mode [, env]]]) and loadstring(s [, chunkname]): as LuaJIT's, but
 * text mode always, and a binary chunk refused in words. */
static int sandbox_load(lua_State *L) {
    const char *name = luaL_optstring(L, 2, NULL);
    int status;
    bool binary, from_string = lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER;
    if (from_string) {
        size_t len;
        const char *s = lua_tolstring(L, 1, &len);
        lua_settop(L, 4);
        binary = len > 0 && s[0] == LUA_SIGNATURE[0];
        status = binary ? LUA_ERRSYNTAX : luaL_loadbufferx(L, s, len, name ? name : s, "t");
    } else {
        luaL_checktype(L, 1, LUA_TFUNCTION);
        lua_settop(L, 5);
        reader r = {.fn = 1, .slot = 5, .first = true};
        status = lua_loadx(L, read_piece, &r, name ? name : "=(load)", "t");
        binary = r.binary;
        if (status && binary)
            lua_pop(L, 1); /* LuaJIT's "wrong mode": said better below */
    }
    if (status == 0) {
        if (lua_istable(L, 4)) {
            lua_pushvalue(L, 4);
            lua_setfenv(L, -2);
        }
        return 1;
    }
    if (binary)
        lua_pushliteral(L, "a binary chunk (bytecode) is refused in a sandboxed system: it "
                           "loads Lua source only");
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
}

/* --- setfenv, collectgarbage, refusals ------------------------------------------------------- */

/* setfenv(f | level, table): a sandboxed script may set the environment of its own functions;
 * the thread's (level 0) and those of the runtime's functions (C functions, and the chunks the
 * runtime loads under "=" names: the prelude) stay. */
static int sandbox_setfenv(lua_State *L) {
    static const char fn[] = "setfenv";
    ona__lua_checktable(L, 2, fn);
    if (lua_type(L, 1) == LUA_TNUMBER) {
        lua_Number level = lua_tonumber(L, 1);
        lua_Debug ar;
        if (level == 0)
            return ona__lua_raise(L, fn,
                                  "the thread's environment (level 0) is the runtime's: "
                                  "refused in a sandboxed system");
        if (level < 0 || level > 1e6 || !lua_getstack(L, (int)level, &ar))
            return ona__lua_argerror(L, 1, fn, "invalid level");
        lua_getinfo(L, "f", &ar);
        lua_replace(L, 1);
    }
    if (!lua_isfunction(L, 1))
        return ona__lua_argerror(L, 1, fn, "a function or a stack level expected");
    lua_Debug ar;
    lua_pushvalue(L, 1);
    lua_getinfo(L, ">S", &ar);
    if (lua_iscfunction(L, 1) || ar.source[0] == '=')
        return ona__lua_raise(L, fn,
                              "the runtime's functions keep their environment in a "
                              "sandboxed system");
    lua_settop(L, 2);
    lua_setfenv(L, 1);
    lua_settop(L, 1);
    return 1;
}

/* collectgarbage(opt, ...): what reads or runs the collector; not what changes its settings
 * ("stop", "setpause", "setstepmul"). Upvalue 1: LuaJIT's collectgarbage. */
static int sandbox_collectgarbage(lua_State *L) {
    static const char *const allowed[] = {"collect", "count", "step", "restart"};
    const char *opt = luaL_optstring(L, 1, "collect");
    bool ok = false;
    for (size_t i = 0; i < ONA_ARRAY_COUNT(allowed); i++)
        ok = ok || strcmp(opt, allowed[i]) == 0;
    if (!ok)
        return ona__lua_raise(L, "collectgarbage",
                              "'%s' is refused in a sandboxed system (the collector's settings "
                              "are the runtime's)",
                              opt);
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* A function refused in a sandboxed system: upvalue 1 its public name, 2 the reason. */
static int refused(lua_State *L) {
    return ona__lua_raise(L, lua_tostring(L, lua_upvalueindex(1)),
                          "refused in a sandboxed "
                          "system (%s)",
                          lua_tostring(L, lua_upvalueindex(2)));
}

/* t[field] = a function that raises `reason` under `name`; t on top of the stack. */
static void set_refused(lua_State *L, const char *field, const char *name, const char *reason) {
    lua_pushstring(L, name);
    lua_pushstring(L, reason);
    lua_pushcclosure(L, refused, 2);
    lua_setfield(L, -2, field);
}

/* --- The sandbox ----------------------------------------------------------------------------- */

/* A new table of `from`'s fields named in `keep` (`from` on top of the stack, replaced). */
static void keep_only(lua_State *L, const char *const *keep, size_t count) {
    lua_createtable(L, 0, (int)count);
    for (size_t i = 0; i < count; i++) {
        lua_getfield(L, -2, keep[i]);
        lua_setfield(L, -2, keep[i]);
    }
    lua_remove(L, -2);
}

/* package.loaded[name] and the global `name` become the value on top of the stack (popped). */
static void set_library(lua_State *L, int loaded, const char *name) {
    lua_pushvalue(L, -1);
    lua_setfield(L, loaded, name);
    lua_setglobal(L, name);
}

void ona__lua_sandbox(lua_State *L) {
    static const char *const os_kept[] = {"clock", "time", "date"};
    static const char *const jit_kept[] = {"version", "version_num", "os", "arch"};
    static const char *const gone[] = {LUA_IOLIBNAME, LUA_DBLIBNAME, LUA_FFILIBNAME, "jit.util",
                                       "jit.profile"};
    int top = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    int loaded = top + 1;
    lua_getfield(L, LUA_REGISTRYINDEX, "_PRELOAD");
    int preload = top + 2;

    lua_getfield(L, loaded, LUA_DBLIBNAME); /* opened for the prelude, which keeps it */
    lua_getfield(L, -1, "getinfo");
    lua_pop(L, 2);
    lua_getfield(L, loaded, LUA_FFILIBNAME); /* opened already: the runtime's from now on */
    if (lua_istable(L, -1))
        lua_setfield(L, LUA_REGISTRYINDEX, FFI_KEY);
    else
        lua_pop(L, 1);
    for (size_t i = 0; i < ONA_ARRAY_COUNT(gone); i++) {
        lua_pushnil(L);
        lua_setfield(L, loaded, gone[i]);
        lua_pushnil(L);
        lua_setfield(L, preload, gone[i]);
        if (!strchr(gone[i], '.')) {
            lua_pushnil(L);
            lua_setglobal(L, gone[i]);
        }
    }
    lua_getfield(L, loaded, LUA_OSLIBNAME);
    keep_only(L, os_kept, ONA_ARRAY_COUNT(os_kept));
    set_library(L, loaded, LUA_OSLIBNAME);
    lua_getfield(L, loaded, LUA_JITLIBNAME);
    keep_only(L, jit_kept, ONA_ARRAY_COUNT(jit_kept));
    set_library(L, loaded, LUA_JITLIBNAME);
    lua_getfield(L, loaded, LUA_STRLIBNAME); /* also the string metatable's __index */
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);

    lua_pushcfunction(L, sandbox_load);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "load");
    lua_setglobal(L, "loadstring");
    lua_pushcfunction(L, ona__lua_sandbox_loadfile);
    lua_setglobal(L, "loadfile");
    lua_pushcfunction(L, ona__lua_sandbox_dofile);
    lua_setglobal(L, "dofile");
    lua_pushcfunction(L, sandbox_setfenv);
    lua_setglobal(L, "setfenv");
    lua_getglobal(L, "collectgarbage");
    lua_pushcclosure(L, sandbox_collectgarbage, 1);
    lua_setglobal(L, "collectgarbage");

    lua_getfield(L, loaded, LUA_LOADLIBNAME);
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadlib");
    lua_pushcfunction(L, ona__lua_sandbox_searchpath);
    lua_setfield(L, -2, "searchpath");
    lua_pop(L, 1);

    static const char saves[] = "saves live outside the game folder";
    lua_getglobal(L, "ona");
    set_refused(L, "save", "ona.save", saves);
    set_refused(L, "load", "ona.load", saves);
    lua_pop(L, 1);
    luaL_getmetatable(L, ONA_BUFFER_MT);
    lua_getfield(L, -1, "__index");
    set_refused(L, "ptr", "buffer:ptr", "a raw pointer reaches all of the process's memory");
    lua_pop(L, 2);

#if !ONA_LUAJIT_CHECKHOOK
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_FLUSH);
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#endif
    lua_settop(L, top);
}
