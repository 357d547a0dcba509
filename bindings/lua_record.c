/*
 * lua_record.c: while a session is recorded, the Lua functions whose answers a recording cannot
 * hold (os.time, os.clock, os.date, os.getenv, io.open, io.read, io.lines, io.popen) warn once
 * per system and function where a script first calls them, then do their work.
 *
 * Design note. A recording holds a session's inputs (runtime/services/record.c); a script that
 * reads the wall clock, the environment or a file directly gets an answer that a replay will not
 * get again, so the replay may diverge without the recording saying why. Each such function is
 * replaced in the system's state by a C closure over the original, its name and a "warned"
 * flag: the first call logs the script's file and line (luaL_where) and what to use instead.
 * Only while recording (`digesting` without `detailing`); a replay and a plain run keep the
 * originals. The FFI's calls cannot be watched one by one, so the library itself is: a
 * recording puts a loader in package.preload.ffi that warns (once per system, at the game's
 * line that asked for it) and then gives the runtime's ffi module, and takes ffi out of
 * package.loaded until then (lua_sandbox.c's ona__lua_push_ffi leaves it out too), so
 * require("ffi") and package.preload.ffi() both reach the warning. A sandboxed system has no
 * ffi at all.
 *
 * A replay of a system that is not sandboxed loads its script's file, at a hot reload, with the
 * runtime's reader (lua_files.c) instead of LuaJIT's loadfile, so that the recorded content of
 * the reload stands in for the file on disk (paths_overlay.c); a sandboxed system's loadfile is
 * that reader already.
 */
#include "lua_host.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <lualib.h>

/* True when the caller is the runtime's own Lua (the prelude's require looks for files with
 * io.open): its chunk names start with '='; a game's start with '@'. */
static bool called_by_runtime(lua_State *L) {
    lua_Debug ar;
    return lua_getstack(L, 1, &ar) && lua_getinfo(L, "S", &ar) && ar.source[0] == '=';
}

static int warn_then_call(lua_State *L) {
    if (!lua_toboolean(L, lua_upvalueindex(3)) && !called_by_runtime(L)) {
        lua_pushboolean(L, 1);
        lua_replace(L, lua_upvalueindex(3));
        luaL_where(L, 1);
        ona__lua *lua = ona__lua_of(L);
        ona_log(ONA_LOG_WARN, "record",
                "%s'%s' called %s while recording: its answer is not recorded, so a replay may "
                "diverge here (use ona.time(), ona.random() or ona.save instead)",
                lua_tostring(L, -1), lua->sys->name, lua_tostring(L, lua_upvalueindex(2)));
        lua_pop(L, 1);
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* The innermost caller that is a game's file ("@path"), as "path:line:", pushed; false (nothing
 * pushed) when the runtime's own code asked. */
static bool push_game_where(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.source[0] != '@' || ar.currentline <= 0)
            continue;
        lua_pushfstring(L, "%s:%d:", ar.short_src, ar.currentline);
        return true;
    }
    return false;
}

/* package.preload.ffi while recording: warns once, then returns the runtime's ffi. */
static int ffi_loader(lua_State *L) {
    if (!lua_toboolean(L, lua_upvalueindex(1)) && push_game_where(L)) {
        lua_pushboolean(L, 1);
        lua_replace(L, lua_upvalueindex(1));
        ona_log(ONA_LOG_WARN, "record",
                "%s '%s' loads the ffi library while recording: FFI calls are not recorded, so a "
                "replay may diverge where their results are used",
                lua_tostring(L, -1), ona__lua_of(L)->sys->name);
        lua_pop(L, 1);
    }
    ona__lua_push_ffi(L);
    return 1;
}

static void watch_ffi(lua_State *L) {
    ona__lua_of(L)->ffi_watched = true;
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_pushnil(L);
    lua_setfield(L, -2, LUA_FFILIBNAME);
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "_PRELOAD");
    if (lua_istable(L, -1)) {
        lua_pushboolean(L, 0);
        lua_pushcclosure(L, ffi_loader, 1);
        lua_setfield(L, -2, LUA_FFILIBNAME);
    }
    lua_pop(L, 1);
}

/* loadfile(path) in a replayed system that is not sandboxed: the runtime's reader for a path,
 * LuaJIT's own loadfile (upvalue 1) for anything else (stdin). */
static int replay_loadfile(lua_State *L) {
    if (lua_type(L, 1) != LUA_TSTRING) {
        int n = lua_gettop(L);
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, n, LUA_MULTRET);
        return lua_gettop(L);
    }
    if (ona__lua_load_source(L, lua_tostring(L, 1), false) != 0) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

/* Replaces library `lib`'s function `name` (when the state has it) with the warning closure. */
static void wrap(lua_State *L, const char *lib, const char *name) {
    lua_getglobal(L, lib);
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, name);
        if (lua_isfunction(L, -1)) {
            lua_pushfstring(L, "%s.%s", lib, name);
            lua_pushboolean(L, 0);
            lua_pushcclosure(L, warn_then_call, 3);
            lua_setfield(L, -2, name);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

void ona__lua_record_warnings(lua_State *L, const ona__core *core) {
    bool sandboxed = ona__lua_of(L)->sandboxed;
    if (core->detailing && !sandboxed) {
        lua_getglobal(L, "loadfile");
        lua_pushcclosure(L, replay_loadfile, 1);
        lua_setglobal(L, "loadfile");
    }
    if (!core->digesting || core->detailing)
        return;
    if (!sandboxed)
        watch_ffi(L);
    static const char *const os_fns[] = {"time", "clock", "date", "getenv"};
    static const char *const io_fns[] = {"open", "read", "lines", "popen"};
    for (size_t i = 0; i < sizeof os_fns / sizeof *os_fns; i++)
        wrap(L, "os", os_fns[i]);
    for (size_t i = 0; i < sizeof io_fns / sizeof *io_fns; i++)
        wrap(L, "io", io_fns[i]);
}
