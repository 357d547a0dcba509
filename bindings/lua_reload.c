/*
 * lua_reload.c: the Lua half of hot reload (lua_host.h): re-running a system's code inside its
 * own lua_State at a frame boundary.
 *
 * Design note. The swap itself is the prelude's `reload` function (scripts/prelude.lua): project
 * modules are forgotten and the script re-run with its spawn args, old functions are paired with
 * new ones by name, the optional reload(state) hook migrates the state, and only then are
 * functions in the state and module tables replaced. This file calls it protected, with the cap
 * lifted (the runtime's own work on the state), and reports the outcome. Mailboxes are not
 * touched, so no queued message is lost or reordered by a reload; a turn suspended in
 * receive/send finishes in the code it started in.
 */
#include "lua_watchdog.h"

#include "lua_sandbox.h"
#include "paths.h"

#include <ctype.h>
#include <lauxlib.h>
#include <lualib.h>
#include <luajit.h>
#include <stdio.h>
#include <string.h>

typedef struct reload_call {
    ona__lua *lua;
    const char *changed;
    int result;
} reload_call;

static int reload_in_state(lua_State *L) {
    reload_call *call = lua_touserdata(L, 1);
    ona__lua *lua = call->lua;
    lua_settop(L, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, ONA__RELOAD_KEY);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lua->module_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lua->state_ref);
    lua_pushstring(L, lua->script_path);
    ona__lua_push_args(lua, L);
    lua_pushstring(L, call->changed);
    lua_call(L, 5, 2);
    if (lua_isnil(L, 1)) {
        call->result = 0;
    } else if (lua_toboolean(L, 1)) {
        call->result = 1;
    } else {
        call->result = -1;
        ona_log(ONA_LOG_ERROR, lua->sys->name,
                "reload of %s failed, the old code keeps running: %s", call->changed,
                lua_tostring(L, 2) ? lua_tostring(L, 2) : "(no message)");
    }
    return 0;
}

/* Whether the state's JIT compiler is on (jit.status()): a script may have switched it off. */
static bool jit_running(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    lua_getfield(L, -1, LUA_JITLIBNAME);
    bool on = false;
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "status");
        if (lua_iscfunction(L, -1) && lua_pcall(L, 0, 1, 0) == 0)
            on = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return on;
}

int ona__lua_reload(ona__system *sys, const char *changed) {
    ona__lua *lua = sys->host_data;
    if (!lua->L || sys->one_shot || lua->module_ref == LUA_NOREF)
        return 0;
    reload_call call = {lua, changed, 0};
    bool jit_on = jit_running(lua->L);
    if (jit_on)
        luaJIT_setmode(lua->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    lua->cap_lifted = true;
    ona__watch_scope watch; /* the new chunk and the reload hook run under the budget */
    ona__lua_watch_begin(lua, "reload", &watch);
    int rc = lua_cpcall(lua->L, reload_in_state, &call);
    ona__watchdog_end(&watch);
    lua->cap_lifted = false;
    if (jit_on)
        luaJIT_setmode(lua->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
    /* The new code may have a process: its next frame gives it a turn, whose end says. */
    sys->sleeps = false;
    if (rc) {
        ona_log(ONA_LOG_ERROR, sys->name, "reload of %s failed, the old code keeps running: %s",
                changed, lua_tostring(lua->L, -1) ? lua_tostring(lua->L, -1) : "(no message)");
        lua_pop(lua->L, 1);
        return -1;
    }
    return call.result;
}

/* Compiled in a scratch state of its own, never run: a file that does not compile is refused
 * before any system re-runs it, once for all of them, so a save caught mid-write (the first
 * half of a function) never runs, whatever its first lines would do. An empty file (an editor
 * between truncating and writing) is refused as ONA_EBUSY: it is not an error of the author's. */
int ona__lua_check(const char *path, char *err, size_t errsize) {
    size_t n = strlen(path);
    if (n < 4 || strcmp(path + n - 4, ".lua") != 0)
        return 0;
    /* Read as every loader reads (a replay's recorded content stands in for the disk's). */
    uint8_t *data = NULL;
    size_t size = 0;
    int read = ona__read_file(path, ONA__LUA_SOURCE_MAX_BYTES, &data, &size);
    bool blank = true; /* a file that cannot be read is taken as one being written */
    for (size_t i = 0; read == 0 && blank && i < size; i++)
        blank = isspace(data[i]) != 0;
    if (blank) {
        ona__free(data);
        snprintf(err, errsize, "%s is empty", path);
        return ONA_EBUSY;
    }
    lua_State *L = luaL_newstate();
    if (!L) {
        ona__free(data);
        snprintf(err, errsize, "%s: out of memory to compile it", path);
        return ONA_ENOMEM;
    }
    char chunkname[4100];
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    int rc = luaL_loadbuffer(L, (const char *)data, size, chunkname);
    ona__free(data);
    if (rc)
        snprintf(err, errsize, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : path);
    lua_close(L);
    return rc ? ONA_ESCRIPT : 0;
}
