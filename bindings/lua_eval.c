/*
 * lua_eval.c: running a line of Lua typed into the inspector inside a system's own lua_State
 * (lua_host.h), between its turns.
 *
 * Design note. The code runs on main at a frame boundary, where main owns every system's state
 * (as a reload does), and only while the system has no turn in progress (the caller checks):
 * never during a turn, so its effect shows in the next one. It is compiled first as an
 * expression (`return <code>`), then as a statement, as a REPL does, with the system's state
 * table as the local `state`, and runs protected under the system's turn budget and memory cap
 * like its own code; an error or a runaway fails the eval alone, never the system. The results
 * are given back as tostring would print them, tab-separated.
 */
#include "lua_watchdog.h"

#include <lauxlib.h>
#include <stdio.h>

typedef struct eval_call {
    ona__lua *lua;
    const char *code;
    size_t len;
    char *out;
    size_t size;
    bool ok;
} eval_call;

/* Pushes the chunk `prefix .. code` compiled, or its error message; 0 when it compiled. */
static int compile(lua_State *L, const eval_call *c, const char *prefix) {
    lua_pushstring(L, prefix);
    lua_pushlstring(L, c->code, c->len);
    lua_concat(L, 2);
    size_t n;
    const char *src = lua_tolstring(L, -1, &n);
    int rc = luaL_loadbuffer(L, src, n, "=eval");
    lua_remove(L, -2);
    return rc;
}

static void copy_out(eval_call *c, const char *s, size_t n) {
    n = n < c->size - 1 ? n : c->size - 1;
    memcpy(c->out, s, n);
    c->out[n] = '\0';
}

static int eval_in_state(lua_State *L) {
    eval_call *c = lua_touserdata(L, 1);
    lua_settop(L, 0);
    /* The same line numbers either way: the prefix adds no line. */
    if (compile(L, c, "local state = ... return ") != 0) {
        lua_pop(L, 1);
        if (compile(L, c, "local state = ... ") != 0) {
            size_t n;
            const char *msg = lua_tolstring(L, -1, &n);
            copy_out(c, msg ? msg : "(no message)", msg ? n : 12);
            return 0;
        }
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->lua->state_ref);
    if (lua_pcall(L, 1, LUA_MULTRET, 0) != 0) {
        const char *msg = lua_tostring(L, -1);
        copy_out(c, msg ? msg : "(an error that is not a string)",
                 strlen(msg ? msg : "(an error that is not a string)"));
        return 0;
    }
    int results = lua_gettop(L);
    lua_getglobal(L, "tostring");
    int tostring = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= results; i++) {
        if (i > 1)
            luaL_addchar(&b, '\t');
        lua_pushvalue(L, tostring);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        if (!lua_isstring(L, -1)) {
            lua_pop(L, 1);
            lua_pushliteral(L, "(tostring returned no string)");
        }
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t n;
    const char *text = lua_tolstring(L, -1, &n);
    copy_out(c, text, n);
    c->ok = true;
    return 0;
}

bool ona__lua_evaluable(const ona__system *sys, char *why, size_t size) {
    const ona__lua *lua = sys->host_data;
    if (!lua->L || sys->one_shot || lua->state_ref == LUA_NOREF || lua->state_ref == LUA_REFNIL) {
        snprintf(why, size, "'%s' has no state to evaluate in (a one-shot script, or ended)",
                 sys->name);
        return false;
    }
    if (lua->sandboxed) {
        snprintf(why, size, "'%s' is sandboxed: the inspector does not evaluate code in it",
                 sys->name);
        return false;
    }
    return true;
}

int ona__lua_eval(ona__system *sys, const char *code, size_t len, char *out, size_t size) {
    ona__lua *lua = sys->host_data;
    if (!ona__lua_evaluable(sys, out, size))
        return ONA_EINVAL;
    eval_call call = {lua, code, len, out, size, false};
    ona__watch_scope watch;
    ona__lua_watch_begin(lua, "eval", &watch);
    int rc = lua_cpcall(lua->L, eval_in_state, &call);
    ona__watchdog_end(&watch);
    if (rc) { /* out of memory while reporting */
        const char *msg = lua_tostring(lua->L, -1);
        snprintf(out, size, "%s", msg ? msg : "(no message)");
        lua_pop(lua->L, 1);
        return ONA_ESCRIPT;
    }
    return call.ok ? 0 : ONA_ESCRIPT;
}
