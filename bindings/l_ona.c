/*
 * l_ona.c: the `ona` Lua module: addressing systems, sending and receiving messages, quitting,
 * logging; and the text of a system's error. Spawning (ona.spawn and its options) is in
 * l_spawn.c; this file registers it.
 *
 * Design note. Every function finds its system through the lua_State's allocator user pointer
 * (system.c). ona.receive() and ona.send() wait by yielding the system's turn coroutine with a
 * park reason; the scheduler resumes it with the received values, or with the send's outcome
 * (the prelude's ona.send wrapper raises when that is `false, reason`). They can wait only in
 * the system's own turn coroutine: in the script's main chunk, or inside a coroutine the script
 * made itself, they do not wait (receive returns nil when empty; send raises when full).
 *
 * Errors: misuse (a wrong argument type, an unencodable value) raises; expected failures return
 * nil (or false), reason. A raised error reads "<file>:<line>: <public name>: <message>" at the
 * author's line (ona__lua_raise, lua_check.c), never at the prelude's wrapper and never under the
 * name of a raw function or of the caller's variable, which is what luaL_argerror would say.
 * Nothing that can raise runs while a lock is held or a C resource is unowned: messages live in
 * the system struct, not on the C stack, when Lua calls that may raise follow.
 *
 * ona.gfx, ona.input and ona.audio are opened on their first use (l_modules.c, which
 * lists every module): most systems never touch them, and every spawn paid for them.
 */
#include "l_ona.h"
#include "l_modules.h"
#include "lua_check.h"

#include "l_message.h"
#include "lua_host.h"
#include "lua_watchdog.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#if ONA_LUAJIT_FIXED_SEED
#include <luajit.h> /* luaJIT_ona_in_finalizer: cmake/luajit-determinism.patch */
#endif

/* --- Error values ---------------------------------------------------------------------------- */

/* True when text starts with "<something>:<digits>:", the position Lua puts on an error. */
static bool has_position(const char *text) {
    const char *colon = strchr(text, ':');
    if (!colon || memchr(text, '\n', (size_t)(colon - text)))
        return false;
    const char *p = colon + 1;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == ':';
}

void ona__lua_error_text(ona__lua *lua, lua_State *co, char *buf, size_t size) {
    lua_State *L = lua->L;
    int t = lua_type(L, -1);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        snprintf(buf, size, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return;
    }
    char at[LUA_IDSIZE + 24];
    ona__lua_author_line(co, 0, at, sizeof at);
    const char *type = lua_typename(L, t);
    if (t == LUA_TNIL) {
        snprintf(buf, size, "%sa nil error value", at);
    } else if (t == LUA_TBOOLEAN) {
        snprintf(buf, size, "%sa boolean error value (%s)", at,
                 lua_toboolean(L, -1) ? "true" : "false");
    } else if (!luaL_getmetafield(L, -1, "__tostring")) {
        snprintf(buf, size, "%sa %s error value (no __tostring)", at, type);
    } else {
        /* Everything that may raise is pushed before the run is published: the watchdog's
         * scope must end on this thread whatever happens. */
        lua_insert(L, -2);
        ona__watch_scope watch;
        ona__lua_watch_begin(lua, "__tostring of an error", &watch);
        int rc = lua_pcall(L, 1, 1, 0);
        ona__watchdog_end(&watch);
        const char *text = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (rc != 0)
            snprintf(buf, size, "%sa %s error value (its __tostring raised: %s)", at, type,
                     text ? text : "a non-string error");
        else if (!text)
            snprintf(buf, size, "%sa %s error value (its __tostring returned a %s)", at, type,
                     luaL_typename(L, -1));
        else
            snprintf(buf, size, "%s%s", has_position(text) ? "" : at, text);
    }
    lua_pop(L, 1);
}

/* --- The module ------------------------------------------------------------------------------ */

static ona__lua *self(lua_State *L) {
    return ona__lua_of(L);
}

/* True when L is the running turn's coroutine, the only place a system can wait. */
static bool can_wait(ona__lua *lua, lua_State *L) {
    return lua->co == L && ona__actor_in_turn(lua->sys);
}

/* Handles are integers below 2^53, so a Lua number holds them exactly. */
static uint64_t check_handle(lua_State *L, int idx, const char *fn) {
    if (!lua_isnumber(L, idx)) {
        lua_pushfstring(L, "not a system handle: got %s", luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    lua_Number n = lua_tonumber(L, idx);
    if (!(n >= 1 && n < 9007199254740992.0) || n != (lua_Number)(uint64_t)n) {
        lua_pushfstring(L, "not a system handle: %f", n);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
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
        ona__lua_raise(L, fn, "%s", err);
    }
}

/* --- Sends from a finalizer -------------------------------------------------------------------
 * A __gc finalizer runs wherever the collector's step or the state's close happens to call it:
 * possibly in the middle of the runtime's own work on the state (a send being encoded, a
 * message being decoded), and at close after the system has ended. A message sent from there
 * has no place in the game's order and may reach half-built runtime state, so sends refuse to
 * run in a finalizer. The bundled LuaJIT says when one runs (luaJIT_ona_in_finalizer, the patch
 * cmake/luajit-determinism.patch adds); the system's LuaJIT cannot tell, and there the check is
 * not made (documented in runtime/DESIGN.md). */
static bool in_finalizer(lua_State *L) {
#if ONA_LUAJIT_FIXED_SEED
    return luaJIT_ona_in_finalizer(L) != 0;
#else
    (void)L;
    return false;
#endif
}

static void refuse_in_finalizer(lua_State *L, ona__lua *lua, const char *fn) {
    static const char text[] =
        "refused in a __gc finalizer: finalizers run wherever the collector calls them (or "
        "when the system closes), not at a point of the game's order; send before the object "
        "is dropped";
    /* At close, LuaJIT swallows a finalizer's error: say it here. */
    if (lua->closing) {
        char at[LUA_IDSIZE + 24];
        ona__lua_author_line(L, 1, at, sizeof at);
        ona_log(ONA_LOG_ERROR, lua->sys->name, "%s%s: %s", at, fn, text);
    }
    ona__lua_raise(L, fn, "%s", text);
}

/* Encodes the arguments after the handle and sends them without waiting: the actor's result. */
static int send_args(lua_State *L, ona__system *sys, const char *fn, uint64_t *to, char *why,
                     size_t whysize) {
    if (in_finalizer(L))
        refuse_in_finalizer(L, ona__lua_of(L), fn);
    *to = check_handle(L, 1, fn);
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
    char why[320];
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
    char why[320];
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
static int push_inbox(ona__system *sys, lua_State *L, const char *fn) {
    char err[256];
    int n = ona__lua_push_inbox(sys, L, err, sizeof err);
    if (n < 0) {
        /* The text names ona.receive; ona.try_receive says so itself. */
        const char *prefix = "ona.receive: ";
        const char *text = strncmp(err, prefix, strlen(prefix)) == 0 ? err + strlen(prefix) : err;
        ona__lua_raise(L, fn, "%s", text);
    }
    return n;
}

static int receive_into(ona__system *sys, lua_State *L, const char *fn) {
    if (ona__actor_receive(sys) != 0)
        return -1;
    return push_inbox(sys, L, fn);
}

/* raw.receive() -> true, from, ... when a message is there; true alone where it cannot wait or
 * already had its nil this frame; otherwise the turn parks and is resumed with the message
 * handed over (true, from, ...), with true at quiescence, or false, reason. */
static int l_ona_receive_raw(lua_State *L) {
    ona__lua *lua = self(L);
    ona__system *sys = lua->sys;
    lua_pushboolean(L, 1);
    int n = receive_into(sys, L, "ona.receive");
    if (n >= 0)
        return n + 1;
    if (sys->nil_this_frame || !can_wait(lua, L))
        return 1;
    lua_pop(L, 1);
    lua->park = ONA__PARK_RECV;
    return lua_yield(L, 0);
}

/* --- The FFI fast path ------------------------------------------------------------------------
 * ona.send of one number or string, and ona.receive of one number, go through these plain C
 * functions, which the
 * prelude calls through LuaJIT's FFI (function pointers handed over as light userdata), so that
 * a loop of sends or receives can be compiled into a trace instead of stopping the JIT at a
 * lua_CFunction. They never raise, never touch the Lua state and never wait: whatever they do
 * not handle (a bad handle, a full mailbox, a dead target, a message that is not one number from
 * a system, a send from a finalizer) they leave for the lua_CFunctions above, which raise at the
 * author's line, park, or decode. The message path is the same (ona__actor_send,
 * ona__actor_receive), so every guarantee holds: bounded mailboxes, per-sender order, the wakes. */

/* Sends what `w` wrote into sys->outgoing. 0: sent; otherwise nothing happened (the message
 * is released) and the caller takes the slow path, which does the whole send again and reports. */
static int ffi_send(ona__system *sys, double to, ona_message_writer *w) {
    ona_message *m = &sys->outgoing;
    int rc = ona_message_writer_end(w);
    if (rc == 0)
        rc = ona__actor_send(sys->core, sys, (uint64_t)to, m, NULL, NULL, 0);
    if (rc)
        ona_message_release(m);
    return rc;
}

/* Starts writing sys->outgoing for a send to `to`: false for a value that is no handle. */
static bool ffi_begin(ona__system *sys, double to, ona_message_writer *w) {
    if (!(to >= 1 && to < 9007199254740992.0) || to != (double)(uint64_t)to)
        return false;
    ona_message *m = &sys->outgoing;
    if (m->count || m->size)
        ona_message_release(m);
    ona_message_writer_begin(w, m);
    return true;
}

static int ffi_send_number(ona__lua *lua, double to, double value) {
    ona_message_writer w;
    if (in_finalizer(lua->L) || !ffi_begin(lua->sys, to, &w))
        return ONA_EINVAL;
    ona_message_write_number(&w, value);
    return ffi_send(lua->sys, to, &w);
}

/* One Lua string (the FFI passes its bytes, which stay valid for the call): the same encoding
 * as the C path's (ona_message_write_string copies them). */
static int ffi_send_string(ona__lua *lua, double to, const char *bytes, size_t size) {
    ona_message_writer w;
    if (in_finalizer(lua->L) || !ffi_begin(lua->sys, to, &w))
        return ONA_EINVAL;
    ona_message_write_string(&w, bytes, size);
    return ffi_send(lua->sys, to, &w);
}

/* 0: the mailbox is empty. 1: a message of one number from a system: out[0] is the sender,
 * out[1] the number. 2: another message, left in sys->inbox for raw.receive_inbox. */
static int ffi_receive(ona__lua *lua, double *out) {
    ona__system *sys = lua->sys;
    if (ona__actor_receive(sys) != 0)
        return 0;
    ona_message *m = &sys->inbox;
    if (!m->sender || !ona__lua_inbox_number(m, &out[1]))
        return 2;
    out[0] = (double)m->sender;
    ona_message_release(m);
    return 1;
}

/* raw.receive_inbox() -> true, from, ...: the message ffi_receive left in the inbox. */
static int l_ona_receive_inbox_raw(lua_State *L) {
    lua_pushboolean(L, 1);
    return push_inbox(self(L)->sys, L, "ona.receive") + 1;
}

/* raw.raise(message): raises the prelude's error text at the author's line (a wrapper's frame
 * is passed over: see ona__lua_raise). */
static int l_ona_raise_raw(lua_State *L) {
    const char *msg = lua_tostring(L, 1);
    return ona__lua_raise(L, NULL, "%s", msg ? msg : "(no message)");
}

/* raw.watch(path): the runtime watches this file for hot reload (a required module). */
static int l_ona_watch_raw(lua_State *L) {
    ona__lua *lua = self(L);
    char resolved[4096];
    const char *path = luaL_checkstring(L, 1);
    ona__services_watch(lua->svc, realpath(path, resolved) ? resolved : path);
    return 0;
}

/* ona.try_receive() -> from, ... | nil, "empty" */
static int l_ona_try_receive(lua_State *L) {
    int n = receive_into(self(L)->sys, L, "ona.try_receive");
    if (n >= 0)
        return n;
    lua_pushnil(L);
    lua_pushliteral(L, "empty");
    return 2;
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
    ona__system *other = ona__actor_resolve(sys->core, check_handle(L, 1, "ona.name"));
    if (!other)
        return 0;
    lua_pushstring(L, other->name);
    return 1;
}

/* ona.lookup(name) -> handle | nil */
static int l_ona_lookup(lua_State *L) {
    ona_system h;
    h.id = ona__core_lookup(self(L)->sys->core, ona__lua_checkstring(L, 1, "ona.lookup", NULL));
    if (!h.id) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, (lua_Number)h.id);
    return 1;
}

/* ona.kill(handle) -> true | nil, reason. Takes effect at the end of the frame. A system that
 * has ended is named while the registry remembers it. */
static int l_ona_kill(lua_State *L) {
    ona__core *core = self(L)->sys->core;
    uint64_t h = check_handle(L, 1, "ona.kill");
    if (ona__actor_kill(core, h) != 0) {
        char name[64];
        lua_pushnil(L);
        if (ona__registry_dead_name(&core->registry, h, name, sizeof name))
            lua_pushfstring(L, "no such system: '%s' has ended (its handle is stale)", name);
        else
            lua_pushliteral(L, "no such system (the handle is stale or was never valid)");
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* ona.monitor(handle) -> true. From now on this system gets a message from ona.runtime each
 * time that system pauses, resumes, restarts or ends; a handle that has already ended gets
 * "ended" at once. */
static int l_ona_monitor(lua_State *L) {
    ona__system *sys = self(L)->sys;
    uint64_t h = check_handle(L, 1, "ona.monitor");
    if (ona__monitor_add(sys->core, sys, h) != 0)
        ona__lua_raise(L, "ona.monitor", "%s", ona_strerror(ONA_ENOMEM));
    lua_pushboolean(L, 1);
    return 1;
}

static int l_ona_quit(lua_State *L) {
    ona__core_quit(self(L)->sys->core);
    return 0;
}

static int l_ona_frame(lua_State *L) {
    lua_pushnumber(L, (lua_Number)self(L)->sys->core->frame);
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
static const char *join_args(lua_State *L, int first, const char *fn) {
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
            ona__lua_raise(L, fn, "tostring must return a string to be logged");
        if (i > first)
            luaL_addchar(&b, '\t');
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

/* print(...) logs at info level, naming the system. */
static int l_ona_print(lua_State *L) {
    ona_log(ONA_LOG_INFO, self(L)->sys->name, "%s", join_args(L, 1, "print"));
    return 0;
}

/* ona.log(level, ...) with level "debug" | "info" | "warn" | "error". */
static int l_ona_log(lua_State *L) {
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    const char *name = ona__lua_checkstring(L, 1, "ona.log", NULL);
    size_t level = 0;
    while (level < ONA_ARRAY_COUNT(levels) && strcmp(levels[level], name) != 0)
        level++;
    if (level == ONA_ARRAY_COUNT(levels))
        ona__lua_argerror(L, 1, "ona.log",
                          "level must be \"debug\", \"info\", \"warn\" or \"error\"");
    ona_log((ona_log_level)level, self(L)->sys->name, "%s", join_args(L, 2, "ona.log"));
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
        {"monitor", l_ona_monitor},
        {"quit", l_ona_quit},
        {"frame", l_ona_frame},
        {"memory", l_ona_memory},
        {"log", l_ona_log},
        {"string", l_string_new},
        {"buffer", l_buffer_new},
        {NULL, NULL},
    };
    luaL_register(L, NULL, functions);
    /* The sender of the runtime's own messages (a monitor's notices): never a system's handle. */
    lua_pushnumber(L, (lua_Number)ONA_SENDER_RUNTIME);
    lua_setfield(L, -2, "runtime");
}

void ona__lua_push_raw(lua_State *L) {
    lua_pushcfunction(L, l_ona_print);
    lua_setglobal(L, "print");
    lua_createtable(L, 0, 16);
    lua_pushcfunction(L, l_ona_send_raw);
    lua_setfield(L, -2, "send");
    lua_pushcfunction(L, l_ona_receive_raw);
    lua_setfield(L, -2, "receive");
    lua_pushcfunction(L, l_ona_watch_raw);
    lua_setfield(L, -2, "watch");
    lua_pushcfunction(L, l_ona_raise_raw);
    lua_setfield(L, -2, "raise");
    /* The FFI fast path: the system and two C functions, cast by the prelude. */
    lua_pushcfunction(L, l_ona_receive_inbox_raw);
    lua_setfield(L, -2, "receive_inbox");
    lua_pushlightuserdata(L, self(L));
    lua_setfield(L, -2, "self");
    lua_pushlightuserdata(L, (void *)ffi_send_number);
    lua_setfield(L, -2, "ffi_send_number");
    lua_pushlightuserdata(L, (void *)ffi_send_string);
    lua_setfield(L, -2, "ffi_send_string");
    lua_pushlightuserdata(L, (void *)ffi_receive);
    lua_setfield(L, -2, "ffi_receive");
}
