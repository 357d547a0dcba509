/*
 * l_ona.c: the `ona` Lua module: spawning and addressing systems, sending and receiving
 * messages, quitting, logging.
 *
 * Design note. Every function finds its system through the lua_State's allocator user pointer
 * (system.c). ona.receive() and ona.send() wait by yielding the system's turn coroutine with a
 * park reason; the scheduler resumes it with the received values, or with the send's outcome
 * (the prelude's ona.send wrapper raises when that is `false, reason`). They can wait only in
 * the system's own turn coroutine: in the script's main chunk, or inside a coroutine the script
 * made itself, they do not wait (receive returns nil when empty; send raises when full).
 *
 * Errors: misuse (a wrong argument type, an unencodable value) raises with luaL_argerror or
 * luaL_error; expected failures return nil (or false), reason. Nothing that can raise runs while
 * a lock is held or a C resource is unowned: messages live in the system struct, not on the C
 * stack, when Lua calls that may raise follow.
 */
#include "l_ona.h"

#include "l_gfx.h"
#include "l_message.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

static ona__lua *self(lua_State *L) {
    return ona__lua_of(L);
}

/* True when L is the running turn's coroutine, the only place a system can wait. */
static bool can_wait(ona__lua *lua, lua_State *L) {
    return lua->co == L && ona__actor_in_turn(lua->sys);
}

/* Handles are integers below 2^53, so a Lua number holds them exactly. */
static uint64_t check_handle(lua_State *L, int idx) {
    lua_Number n = luaL_checknumber(L, idx);
    if (!(n >= 1 && n < 9007199254740992.0) || n != (lua_Number)(uint64_t)n)
        luaL_argerror(L, idx, "not a system handle");
    return (uint64_t)n;
}

/* Encodes the values from `first` to the top into sys->outgoing; raises on an unencodable value
 * (the message is left empty, nothing leaks). */
static void encode_outgoing(lua_State *L, ona__system *sys, int first, const char *fn) {
    char err[256];
    ona_message_release(&sys->outgoing);
    int rc = ona__message_encode_lua(&sys->outgoing, L, first, lua_gettop(L), &sys->moves, err,
                                     sizeof err);
    if (rc) {
        ona_message_release(&sys->outgoing);
        luaL_error(L, "%s: %s", fn, err);
    }
}

/* Encodes the arguments after the handle and sends them without waiting: the actor's result. */
static int send_args(lua_State *L, ona__system *sys, const char *fn, uint64_t *to, char *why,
                     size_t whysize) {
    *to = check_handle(L, 1);
    why[0] = '\0';
    encode_outgoing(L, sys, 2, fn);
    return ona__actor_send(sys->core, sys, *to, &sys->outgoing, &sys->moves, why, whysize);
}

/* raw.send(to, ...): true; false, reason; or yields until room (resumed with true or
 * false, reason). */
static int l_ona_send_raw(lua_State *L) {
    ona__lua *lua = self(L);
    ona__system *sys = lua->sys;
    uint64_t to;
    char why[160];
    int rc = send_args(L, sys, "ona.send", &to, why, sizeof why);
    if (rc == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    if (rc != ONA_EFULL || !can_wait(lua, L)) {
        ona_message_release(&sys->outgoing);
        lua_pushboolean(L, 0);
        ona__system *target = rc == ONA_EFULL ? ona__actor_resolve(sys->core, to) : NULL;
        if (target)
            lua_pushfstring(L,
                            "ona.send: the mailbox of '%s' is full (capacity %d) and this code "
                            "cannot wait (main chunk or a nested coroutine); use ona.try_send",
                            target->name, (int)ona__mailbox_capacity(target->mailbox));
        else
            lua_pushfstring(L, "ona.send: %s", why);
        return 2;
    }
    sys->send_target = to;
    lua->park = ONA__PARK_SEND;
    return lua_yield(L, 0);
}

/* ona.try_send(to, ...) -> true | false, "full" | reason */
static int l_ona_try_send(lua_State *L) {
    ona__system *sys = self(L)->sys;
    uint64_t to;
    char why[160];
    int rc = send_args(L, sys, "ona.try_send", &to, why, sizeof why);
    if (rc == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    ona_message_release(&sys->outgoing);
    lua_pushboolean(L, 0);
    if (rc == ONA_EFULL)
        lua_pushliteral(L, "full");
    else
        lua_pushstring(L, why);
    return 2;
}

/* Takes one message and pushes `from, values...` onto L. Returns the number of values pushed, or
 * -1 when the mailbox is empty. */
static int receive_into(ona__system *sys, lua_State *L) {
    if (ona__actor_receive(sys) != 0)
        return -1;
    char err[256];
    int n = ona__lua_push_inbox(sys, L, err, sizeof err);
    if (n < 0)
        luaL_error(L, "%s", err);
    return n;
}

/* raw.receive() -> true, from, ... when a message is there; true alone where it cannot wait or
 * already had its nil this frame; otherwise the turn parks and is resumed with the message
 * handed over (true, from, ...), with true at quiescence, or false, reason. */
static int l_ona_receive_raw(lua_State *L) {
    ona__lua *lua = self(L);
    ona__system *sys = lua->sys;
    lua_pushboolean(L, 1);
    int n = receive_into(sys, L);
    if (n >= 0)
        return n + 1;
    if (sys->nil_this_frame || !can_wait(lua, L))
        return 1;
    lua_pop(L, 1);
    lua->park = ONA__PARK_RECV;
    return lua_yield(L, 0);
}

/* raw.watch(path): the runtime watches this file for hot reload (a required module). */
static int l_ona_watch_raw(lua_State *L) {
    ona__lua *lua = self(L);
    char resolved[4096];
    const char *path = luaL_checkstring(L, 1);
    ona__hot_reload_watch(&lua->rt->hot, realpath(path, resolved) ? resolved : path);
    return 0;
}

/* ona.try_receive() -> from, ... | nil, "empty" */
static int l_ona_try_receive(lua_State *L) {
    int n = receive_into(self(L)->sys, L);
    if (n >= 0)
        return n;
    lua_pushnil(L);
    lua_pushliteral(L, "empty");
    return 2;
}

static ona_failure_policy check_policy(lua_State *L, int opts) {
    lua_getfield(L, opts, "policy");
    ona_failure_policy policy = ONA_POLICY_DEFAULT;
    if (!lua_isnil(L, -1)) {
        const char *p = lua_tostring(L, -1);
        if (p && strcmp(p, "restart") == 0)
            policy = ONA_POLICY_RESTART;
        else if (p && strcmp(p, "stop") == 0)
            policy = ONA_POLICY_STOP;
        else
            luaL_argerror(L, opts, "opts.policy must be \"restart\" or \"stop\"");
    }
    lua_pop(L, 1);
    return policy;
}

static lua_Number opt_number_field(lua_State *L, int idx, const char *field, lua_Number lo,
                                   lua_Number hi) {
    lua_getfield(L, idx, field);
    lua_Number v = 0;
    if (!lua_isnil(L, -1)) {
        if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < lo || lua_tonumber(L, -1) > hi) {
            lua_pushfstring(L, "opts.%s must be a number from %f to %f", field, lo, hi);
            luaL_argerror(L, idx, lua_tostring(L, -1));
        }
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* ona.spawn(script, args, opts) -> handle | nil, reason
 * opts: name, mailbox (capacity), memory (cap in bytes), policy ("restart"/"stop"), restarts,
 * budget (turn budget in ms; 0 = none). */
static int l_ona_spawn(lua_State *L) {
    ona__lua *lua = self(L);
    ona__system *sys = lua->sys;
    const char *script = luaL_checkstring(L, 1);
    int nargs = lua_gettop(L);
    if (nargs >= 3 && !lua_isnil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    ona_spawn_desc desc = {.script = script};
    char name[64] = {0};
    if (nargs >= 3 && lua_istable(L, 3)) {
        lua_getfield(L, 3, "name");
        if (!lua_isnil(L, -1)) {
            if (!lua_isstring(L, -1))
                luaL_argerror(L, 3, "opts.name must be a string");
            snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
            desc.name = name;
        }
        lua_pop(L, 1);
        desc.mailbox_capacity = (uint32_t)opt_number_field(L, 3, "mailbox", 1, 1 << 24);
        desc.memory_cap = (size_t)opt_number_field(L, 3, "memory", 0, 1e15);
        desc.restart_limit = (uint32_t)opt_number_field(L, 3, "restarts", 0, 1e6);
        lua_getfield(L, 3, "budget");
        bool has_budget = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (has_budget) {
            lua_Number ms = opt_number_field(L, 3, "budget", 0, 1e9);
            desc.budget_ms = ms == 0 ? ONA_BUDGET_OFF : (uint32_t)ONA_MAX(ms, 1);
        }
        desc.policy = check_policy(L, 3);
    }
    /* The args value is encoded into a message owned by the system struct while Lua may raise. */
    char err[1024];
    ona_message *args = &sys->outgoing;
    ona_message_release(args);
    if (nargs >= 2) {
        int rc = ona__message_encode_lua(args, L, 2, 2, &sys->moves, err, sizeof err);
        if (rc) {
            ona_message_release(args);
            return luaL_error(L, "ona.spawn: args: %s", err);
        }
        desc.args = args;
    }
    ona_system out;
    int rc = ona__lua_spawn(lua->rt, &desc, &out, err, sizeof err);
    ona_message_release(args);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushnumber(L, (lua_Number)out.id);
    return 1;
}

static int l_ona_self(lua_State *L) {
    lua_pushnumber(L, (lua_Number)self(L)->sys->id);
    return 1;
}

/* ona.name([handle]) -> name | nil */
static int l_ona_name(lua_State *L) {
    ona__system *sys = self(L)->sys;
    if (lua_isnoneornil(L, 1)) {
        lua_pushstring(L, sys->name);
        return 1;
    }
    ona__system *other = ona__actor_resolve(sys->core, check_handle(L, 1));
    if (!other)
        return 0;
    lua_pushstring(L, other->name);
    return 1;
}

/* ona.lookup(name) -> handle | nil */
static int l_ona_lookup(lua_State *L) {
    ona_system h;
    if (ona_runtime_lookup(self(L)->rt, luaL_checkstring(L, 1), &h) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, (lua_Number)h.id);
    return 1;
}

/* ona.kill(handle) -> true | nil, reason. Takes effect at the end of the frame. */
static int l_ona_kill(lua_State *L) {
    if (ona__actor_kill(self(L)->sys->core, check_handle(L, 1)) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, "no such system (the handle is stale or was never valid)");
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_ona_quit(lua_State *L) {
    ona_runtime_quit(self(L)->rt);
    return 0;
}

static int l_ona_frame(lua_State *L) {
    lua_pushnumber(L, (lua_Number)self(L)->rt->core.frame);
    return 1;
}

/* ona.memory() -> bytes in use by this system's Lua heap, cap (or nil) */
static int l_ona_memory(lua_State *L) {
    ona__lua *lua = self(L);
    lua_pushnumber(L, (lua_Number)lua->mem_used);
    if (lua->mem_cap)
        lua_pushnumber(L, (lua_Number)lua->mem_cap);
    else
        lua_pushnil(L);
    return 2;
}

/* Joins the arguments like print() does, with tostring. */
static const char *join_args(lua_State *L, int first) {
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_getglobal(L, "tostring");
    int tostring = lua_gettop(L);
    for (int i = first; i <= n; i++) {
        lua_pushvalue(L, tostring);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        if (!lua_isstring(L, -1))
            luaL_error(L, "tostring must return a string to be logged");
        if (i > first)
            luaL_addchar(&b, '\t');
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

/* print(...) logs at info level, naming the system. */
static int l_ona_print(lua_State *L) {
    ona_log(ONA_LOG_INFO, self(L)->sys->name, "%s", join_args(L, 1));
    return 0;
}

/* ona.log(level, ...) with level "debug" | "info" | "warn" | "error". */
static int l_ona_log(lua_State *L) {
    static const char *const levels[] = {"debug", "info", "warn", "error", NULL};
    int level = luaL_checkoption(L, 1, NULL, levels);
    ona_log((ona_log_level)level, self(L)->sys->name, "%s", join_args(L, 2));
    return 0;
}

void ona__lua_open_ona(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"try_send", l_ona_try_send},
        {"try_receive", l_ona_try_receive},
        {"spawn", l_ona_spawn},
        {"self", l_ona_self},
        {"name", l_ona_name},
        {"lookup", l_ona_lookup},
        {"kill", l_ona_kill},
        {"quit", l_ona_quit},
        {"frame", l_ona_frame},
        {"memory", l_ona_memory},
        {"log", l_ona_log},
        {"string", l_string_new},
        {"buffer", l_buffer_new},
        {NULL, NULL},
    };
    lua_newtable(L);
    luaL_register(L, NULL, functions);
    ona__lua_open_gfx(L);
    lua_pushcfunction(L, l_ona_print);
    lua_setglobal(L, "print");
    lua_newtable(L);
    lua_pushcfunction(L, l_ona_send_raw);
    lua_setfield(L, -2, "send");
    lua_pushcfunction(L, l_ona_receive_raw);
    lua_setfield(L, -2, "receive");
    lua_pushcfunction(L, l_ona_watch_raw);
    lua_setfield(L, -2, "watch");
}
