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
#include "system.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>

static ona__system *self(lua_State *L) {
    return ona__system_from_lua(L);
}

/* True when L is the running turn's coroutine, the only place a system can wait. */
static bool can_wait(ona__system *sys, lua_State *L) {
    return sys->co == L && atomic_load_explicit(&sys->run, memory_order_relaxed) == RUN_RUNNING;
}

static ona_system check_handle(lua_State *L, int idx) {
    lua_Number n = luaL_checknumber(L, idx);
    if (n < 1 || n > 4294967295.0 || n != (lua_Number)(uint32_t)n)
        luaL_argerror(L, idx, "not a system handle");
    return (ona_system){(uint32_t)n};
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
    sys->outgoing.sender = sys->id;
}

static ona__system *live_target(ona__system *sys, ona_system to, const char **why) {
    ona__system *target = ona__runtime_resolve(sys->rt, to);
    if (!target) {
        *why = "no such system (the handle is stale or was never valid)";
        return NULL;
    }
    if (target->status == ONA_SYSTEM_STOPPED ||
        atomic_load_explicit(&target->kill_requested, memory_order_relaxed)) {
        *why = "the system is stopped or killed";
        return NULL;
    }
    return target;
}

/* raw.send(to, ...): true; or yields until room (resumed with true / false, reason). */
static int l_ona_send_raw(lua_State *L) {
    ona__system *sys = self(L);
    ona_system to = check_handle(L, 1);
    const char *why;
    ona__system *target = live_target(sys, to, &why);
    if (!target) {
        lua_pushboolean(L, 0);
        lua_pushfstring(L, "ona.send to %f: %s", (lua_Number)to.id, why);
        return 2;
    }
    encode_outgoing(L, sys, 2, "ona.send");
    int rc = ona__system_deliver(sys, target);
    if (rc == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    if (!can_wait(sys, L)) {
        ona_message_release(&sys->outgoing);
        lua_pushboolean(L, 0);
        lua_pushfstring(L,
                        "ona.send: the mailbox of '%s' is full (capacity %d) and this code "
                        "cannot wait (main chunk or a nested coroutine); use ona.try_send",
                        target->name, (int)ona__mailbox_capacity(target->mailbox));
        return 2;
    }
    sys->send_target = to;
    sys->park = PARK_SEND;
    return lua_yield(L, 0);
}

/* ona.try_send(to, ...) -> true | false, "full" | reason */
static int l_ona_try_send(lua_State *L) {
    ona__system *sys = self(L);
    ona_system to = check_handle(L, 1);
    const char *why;
    ona__system *target = live_target(sys, to, &why);
    if (!target) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, why);
        return 2;
    }
    encode_outgoing(L, sys, 2, "ona.try_send");
    if (ona__system_deliver(sys, target) != 0) {
        ona_message_release(&sys->outgoing);
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "full");
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* Pops one message into the system's inbox and pushes `from, values...` onto co. Returns the
 * number of values pushed, or -1 when the mailbox is empty. */
static int receive_into(ona__system *sys, lua_State *co) {
    ona_message_release(&sys->inbox);
    if (ona__mailbox_pop(sys->mailbox, &sys->inbox) != 0)
        return -1;
    sys->messages_in++;
    ona__scheduler_after_pop(sys->rt, sys);
    uint32_t sender = ona_message_sender(&sys->inbox);
    if (!lua_checkstack(co, 2))
        luaL_error(co, "%s: stack overflow receiving a message", sys->name);
    if (sender)
        lua_pushnumber(co, sender);
    else
        lua_pushboolean(co, 0);
    char err[256];
    int n = ona__message_decode_lua(&sys->inbox, co, err, sizeof err);
    ona_message_release(&sys->inbox);
    if (n < 0)
        luaL_error(co, "%s: received a malformed message: %s", sys->name, err);
    return n + 1;
}

/* raw.receive() -> true, from, ... when a message is there; otherwise waits (the turn yields
 * and is resumed with nothing, and the prelude's loop calls again, or with `true` and no values
 * at quiescence), or returns `true` (no values) where it cannot wait or already got its nil. */
static int l_ona_receive_raw(lua_State *L) {
    ona__system *sys = self(L);
    lua_pushboolean(L, 1);
    int n = receive_into(sys, L);
    if (n >= 0)
        return n + 1;
    if (sys->nil_this_frame || !can_wait(sys, L))
        return 1;
    lua_pop(L, 1);
    sys->park = PARK_RECV;
    return lua_yield(L, 0);
}

/* raw.watch(path): the runtime watches this file for hot reload (a required module). */
static int l_ona_watch_raw(lua_State *L) {
    ona__system *sys = self(L);
    char resolved[4096];
    const char *path = luaL_checkstring(L, 1);
    ona__hot_reload_watch(&sys->rt->hot, realpath(path, resolved) ? resolved : path);
    return 0;
}

/* ona.try_receive() -> from, ... | nil, "empty" */
static int l_ona_try_receive(lua_State *L) {
    ona__system *sys = self(L);
    int n = receive_into(sys, L);
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
 * opts: name, mailbox (capacity), memory (cap in bytes), policy ("restart"/"stop"), restarts. */
static int l_ona_spawn(lua_State *L) {
    ona__system *sys = self(L);
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
    int rc = ona__runtime_spawn_lua(sys->rt, &desc, &out, err, sizeof err);
    ona_message_release(args);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushnumber(L, out.id);
    return 1;
}

static int l_ona_self(lua_State *L) {
    lua_pushnumber(L, self(L)->id);
    return 1;
}

/* ona.name([handle]) -> name | nil */
static int l_ona_name(lua_State *L) {
    ona__system *sys = self(L);
    if (lua_isnoneornil(L, 1)) {
        lua_pushstring(L, sys->name);
        return 1;
    }
    ona__system *other = ona__runtime_resolve(sys->rt, check_handle(L, 1));
    if (!other)
        return 0;
    lua_pushstring(L, other->name);
    return 1;
}

/* ona.lookup(name) -> handle | nil */
static int l_ona_lookup(lua_State *L) {
    ona__system *sys = self(L);
    ona_system h;
    if (ona_runtime_lookup(sys->rt, luaL_checkstring(L, 1), &h) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, h.id);
    return 1;
}

/* ona.kill(handle) -> true | nil, reason. Takes effect at the end of the frame. */
static int l_ona_kill(lua_State *L) {
    ona__system *sys = self(L);
    ona_system h = check_handle(L, 1);
    ona__system *target = ona__runtime_resolve(sys->rt, h);
    if (!target) {
        lua_pushnil(L);
        lua_pushstring(L, "no such system (the handle is stale or was never valid)");
        return 2;
    }
    /* relaxed: read by main at the frame boundary, after the frame's synchronisation. */
    atomic_store_explicit(&target->kill_requested, true, memory_order_relaxed);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_ona_quit(lua_State *L) {
    ona_runtime_quit(self(L)->rt);
    return 0;
}

static int l_ona_frame(lua_State *L) {
    lua_pushnumber(L, (lua_Number)self(L)->rt->frame);
    return 1;
}

/* ona.memory() -> bytes in use by this system's Lua heap, cap (or nil) */
static int l_ona_memory(lua_State *L) {
    ona__system *sys = self(L);
    lua_pushnumber(L, (lua_Number)sys->mem_used);
    if (sys->mem_cap)
        lua_pushnumber(L, (lua_Number)sys->mem_cap);
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
    ona__system *sys = self(L);
    ona_log(ONA_LOG_INFO, sys->name, "%s", join_args(L, 1));
    return 0;
}

/* ona.log(level, ...) with level "debug" | "info" | "warn" | "error". */
static int l_ona_log(lua_State *L) {
    static const char *const levels[] = {"debug", "info", "warn", "error", NULL};
    int level = luaL_checkoption(L, 1, NULL, levels);
    ona__system *sys = self(L);
    ona_log((ona_log_level)level, sys->name, "%s", join_args(L, 2));
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
