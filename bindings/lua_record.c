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
 * originals. The FFI cannot be watched this way: the README says so.
 */
#include "lua_host.h"

#include <lauxlib.h>

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
    if (!core->digesting || core->detailing)
        return;
    static const char *const os_fns[] = {"time", "clock", "date", "getenv"};
    static const char *const io_fns[] = {"open", "read", "lines", "popen"};
    for (size_t i = 0; i < sizeof os_fns / sizeof *os_fns; i++)
        wrap(L, "os", os_fns[i]);
    for (size_t i = 0; i < sizeof io_fns / sizeof *io_fns; i++)
        wrap(L, "io", io_fns[i]);
}
