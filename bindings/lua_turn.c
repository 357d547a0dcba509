/*
 * lua_turn.c: a Lua system's turn as coroutine resumes (the Lua host's `run`).
 *
 * Design note.
 *  - A turn runs in a coroutine of the system's state. The coroutine is reused from turn to turn
 *    while turns end normally (LuaJIT lets a finished thread be called again); one that raised
 *    is dropped and a new one made.
 *  - ona.receive()/ona.send() yield the coroutine with a park reason (lua->park); the core parks
 *    the system and, when it is woken, runs it again through here with the reason it woke. What
 *    the waiting call returns is pushed as the resume values, so the prelude's wrapper gets its
 *    answer in one resume: `true, from, values...` for a message handed over by the wake, `true`
 *    alone for the nil of quiescence or a completed send, `false, reason` for a send that failed
 *    or a message that would not decode.
 *  - Errors are logged with the system's name and a traceback and the turn fails; the core
 *    applies the restart/stop policy at the frame boundary, or, while files are watched, pauses
 *    the system (ona__core_pauses): then one more line says so with the error's first line
 *    (the author's file:line), "ball paused: ball.lua:42: ...; save a fix to resume".
 *    The traceback leaves out the prelude's frames (the trampoline, the wrappers, and the C
 *    functions they call): what is left is the author's code. An error value that is not a
 *    string is described (ona__lua_error_text: its __tostring, or its type).
 *  - Each resume runs under the system's turn budget (lua_watchdog.h): a runaway one fails with
 *    the watchdog's `runaway turn` error like any other error. A resume that runs past its slice
 *    is suspended by the budget's hook (park ONA__PARK_SLICE) and ends like coroutine.yield():
 *    the turn goes on next frame, and this frame closes without it.
 */
#include "lua_watchdog.h"

#include "l_input.h"
#include "l_message.h"
#include "lua_check.h"

#include <lauxlib.h>
#include <stdio.h>

/* Fails the turn with `what` (logged); says so when the core will pause the system for it
 * (with the error, after the frame's turns, unless it was logged at once). */
static void fail_turn(ona__system *sys, const char *what) {
    if (ona__actor_fail(sys, what) || !ona__core_pauses(sys->core, sys))
        return; /* a deferred error's pause is announced with it */
    size_t first = strcspn(what, "\n");
    ona_log(ONA_LOG_WARN, "hot reload", "%s paused: %.*s; save a fix to resume", sys->name,
            (int)first, what);
}

typedef struct fail_report {
    ona__lua *lua;
    lua_State *co;
    char *text; /* the error's first line; described in place when `describe` */
    size_t size;
    bool describe;
} fail_report;

/* Whether frame `level` of co is left out of tracebacks: a frame of the prelude, or a C
 * function the prelude called (error, a raw function). */
static bool prelude_frame(lua_State *co, int level) {
    lua_Debug ar;
    for (; lua_getstack(co, level, &ar); level++) {
        lua_getinfo(co, "S", &ar);
        if (strcmp(ar.what, "C") != 0)
            return strcmp(ar.source, ONA__PRELUDE_CHUNK) == 0;
    }
    return false;
}

/* The number of frames on co's stack (exponential probe, then bisection: lua_getstack walks the
 * stack from the top, and a stack overflow leaves thousands). */
static int stack_depth(lua_State *co) {
    lua_Debug ar;
    int lo = 0, hi = 1; /* frame lo - 1 exists (or lo is 0), frame hi may not */
    while (lua_getstack(co, hi - 1, &ar)) {
        lo = hi;
        hi *= 2;
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (lua_getstack(co, mid - 1, &ar))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The line in "<short_src>:<line>:" at the start of msg, or 0. A dead coroutine's innermost Lua
 * frame has no current line in LuaJIT, but the VM's error message starts with it. */
static int line_in(const char *msg, const char *short_src) {
    size_t n = strlen(short_src);
    if (strncmp(msg, short_src, n) != 0 || msg[n] != ':')
        return 0;
    int line = 0;
    const char *p = msg + n + 1;
    while (*p >= '0' && *p <= '9' && line < 100000000)
        line = line * 10 + (*p++ - '0');
    return *p == ':' ? line : 0;
}

/* Pushes msg and co's traceback, as luaL_traceback writes it, without the prelude's frames:
 * the first 12 and the last 10 frames of a deep stack. */
static void push_traceback(lua_State *L, lua_State *co, const char *msg) {
    enum { HEAD = 12, TAIL = 10 };
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, msg);
    luaL_addstring(&b, "\nstack traceback:");
    int depth = stack_depth(co);
    bool innermost_lua = true;
    lua_Debug ar;
    for (int level = 0; level < depth; level++) {
        if (depth > HEAD + TAIL + 1 && level == HEAD) {
            luaL_addstring(&b, "\n\t...");
            level = depth - TAIL;
        }
        if (!lua_getstack(co, level, &ar) || !lua_getinfo(co, "Snl", &ar))
            break;
        bool lua_fn = strcmp(ar.what, "C") != 0;
        int line = ar.currentline;
        if (lua_fn && innermost_lua && line <= 0)
            line = line_in(msg, ar.short_src);
        innermost_lua = innermost_lua && !lua_fn;
        if (prelude_frame(co, level)) {
            /* A wrapper the author called reads as the C function it stands for. */
            if (!lua_fn || !ar.namewhat || !*ar.namewhat || level + 1 >= depth ||
                prelude_frame(co, level + 1))
                continue;
            lua_fn = false;
            line = 0;
        }
        char frame[LUA_IDSIZE * 2 + 96];
        int n = snprintf(frame, sizeof frame, "\n\t%s:", lua_fn ? ar.short_src : "[C]");
        if (line > 0)
            n += snprintf(frame + n, sizeof frame - (size_t)n, "%d:", line);
        if (ar.namewhat && *ar.namewhat)
            snprintf(frame + n, sizeof frame - (size_t)n, " in function '%s'", ar.name);
        else if (strcmp(ar.what, "main") == 0)
            snprintf(frame + n, sizeof frame - (size_t)n, " in main chunk");
        else if (lua_fn)
            snprintf(frame + n, sizeof frame - (size_t)n, " in function <%s:%d>", ar.short_src,
                     ar.linedefined);
        else
            snprintf(frame + n, sizeof frame - (size_t)n, " ?");
        luaL_addstring(&b, frame);
    }
    luaL_pushresult(&b);
}

/* Under lua_cpcall: describing the error and the traceback need memory, which may be what ran
 * out. */
static int report_failure(lua_State *L) {
    fail_report *r = lua_touserdata(L, 1);
    if (r->describe) {
        /* The script's __tostring runs under its cap, like any of its code. */
        lua_xmove(r->co, L, 1);
        r->lua->cap_lifted = false;
        ona__lua_error_text(r->lua, r->co, r->text, r->size);
        r->lua->cap_lifted = true;
    }
    push_traceback(L, r->co, r->text);
    fail_turn(r->lua->sys, lua_tostring(L, -1));
    return 0;
}

/* Logs a Lua error of the turn coroutine with a traceback and drops the coroutine. */
/* Under lua_cpcall, since the registry's bookkeeping may allocate, and outside a turn's resume
 * an allocation failure would be an unprotected error (a panic): the turn's coroutine is let go,
 * or replaced by a new one (replace_turn_thread). */
static int unref_turn_thread(lua_State *L) {
    ona__lua *lua = lua_touserdata(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, lua->co_ref);
    return 0;
}

static int replace_turn_thread(lua_State *L) {
    ona__lua *lua = lua_touserdata(L, 1);
    lua->co = NULL;
    if (lua->co_ref != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, lua->co_ref);
        lua->co_ref = LUA_NOREF;
    }
    lua_State *co = lua_newthread(L);
    lua->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua->co = co;
    return 0;
}

static void fail(ona__lua *lua, lua_State *co, int status) {
    lua_State *L = lua->L;
    int type = lua_type(co, -1);
    char text[1024];
    bool describe = false;
    if (status == LUA_ERRMEM && lua->mem_exceeded) {
        snprintf(text, sizeof text, "exceeded its memory cap of %zu bytes (%s)", lua->mem_cap,
                 lua->script_path);
    } else if (type == LUA_TSTRING || type == LUA_TNUMBER) {
        snprintf(text, sizeof text, "%s", lua_tostring(co, -1));
    } else {
        /* What is logged if there is no memory left to describe it. */
        snprintf(text, sizeof text, "a %s error value", lua_typename(co, type));
        describe = true;
    }
    lua->cap_lifted = true;
    fail_report report = {lua, co, text, sizeof text, describe};
    if (lua_cpcall(L, report_failure, &report) != 0) {
        lua_pop(L, 1);
        fail_turn(lua->sys, text); /* no memory left for a traceback */
    }
    if (lua_cpcall(L, unref_turn_thread, lua) != 0) {
        /* No memory for the registry's free list (luaL_unref may add its key): clear the slot,
         * which allocates nothing, and let its number go unused. */
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, LUA_REGISTRYINDEX, lua->co_ref);
    }
    lua->co_ref = LUA_NOREF;
    lua->co = NULL;
    lua->mem_exceeded = false;
    lua->cap_lifted = false;
}

/* Pushes what a new turn's trampoline takes: turn, module, state, events, dt, init?, [args]. */
static int push_start(ona__lua *lua, lua_State *co) {
    ona__system *sys = lua->sys;
    ona__services *svc = lua->svc;
    /* A reused coroutine was emptied when its last turn ended (ona__lua_run); a new one is. */
    if (lua_gettop(co))
        lua_settop(co, 0);
    /* turn, module, state, no events: copied from the main stack's slots (lua_host.h). */
    lua_State *L = lua->L;
    for (int i = 1; i <= ONA__LUA_TURN_SLOTS; i++)
        lua_pushvalue(L, i);
    lua_xmove(L, co, ONA__LUA_TURN_SLOTS);
    if (svc->video.event_count) {
        lua_pop(co, 1);
        ona__lua_push_events(co, &svc->video);
    }
    lua_pushnumber(co, lua->sys->core->dt);
    lua_pushboolean(co, sys->needs_init);
    if (!sys->needs_init)
        return 5;
    if (ona__lua_push_args(lua, co) != 0)
        return -1;
    sys->needs_init = false;
    return 6;
}

bool ona__lua_inbox_number(const ona_message *m, double *out) {
    const uint8_t *bytes = m->heap ? m->heap : m->inline_data;
    /* The tag byte first: a table or a string is turned away without parsing a token. */
    if (m->count != 1 || (m->flags & ONA__MESSAGE_HAS_REFS) || bytes[0] != ONA__TAG_NUMBER)
        return false;
    uint32_t off = 0;
    ona__token t;
    if (ona__message_token(bytes, m->size, &off, &t) != 0 || t.tag != ONA__TAG_NUMBER ||
        off != m->size)
        return false;
    *out = t.as.number;
    return true;
}

int ona__lua_push_inbox(ona__system *sys, lua_State *L, char *err, size_t errsize) {
    double number;
    if (ona__lua_inbox_number(&sys->inbox, &number) && lua_checkstack(L, 2)) {
        /* The common message, one number, without the whole message check and decoder. */
        uint64_t from = ona_message_sender(&sys->inbox);
        if (from)
            lua_pushnumber(L, (lua_Number)from);
        else
            lua_pushboolean(L, 0);
        lua_pushnumber(L, number);
        ona_message_release(&sys->inbox);
        return 2;
    }
    if (!lua_checkstack(L, 2)) {
        snprintf(err, errsize, "ona.receive: %s: stack overflow receiving a message", sys->name);
        ona_message_release(&sys->inbox);
        return ONA_ELIMIT;
    }
    uint64_t sender = ona_message_sender(&sys->inbox);
    if (sender)
        lua_pushnumber(L, (lua_Number)sender);
    else
        lua_pushboolean(L, 0);
    char why[200];
    int n = ona__message_decode_lua(&sys->inbox, L, why, sizeof why);
    ona_message_release(&sys->inbox);
    if (n < 0) {
        lua_pop(L, 1);
        snprintf(err, errsize, "ona.receive: %s received a malformed message: %s", sys->name, why);
        return n;
    }
    return n + 1;
}

/* Pushes the received message handed over in sys->inbox: true, from, values... (or false,
 * reason for one that would not decode). */
static int push_message(ona__lua *lua, lua_State *co) {
    if (!lua_checkstack(co, 3))
        return -1;
    lua_pushboolean(co, 1);
    char err[300];
    int n = ona__lua_push_inbox(lua->sys, co, err, sizeof err);
    if (n < 0) {
        lua_pop(co, 1);
        lua_pushboolean(co, 0);
        lua_pushstring(co, err);
        return 2;
    }
    return n + 1;
}

static int push_resume(ona__lua *lua, lua_State *co, ona__resume why) {
    switch (why) {
    case ONA__RESUME_MESSAGE:
        return push_message(lua, co);
    case ONA__RESUME_NIL:
    case ONA__RESUME_SENT:
        lua_pushboolean(co, 1);
        return 1;
    case ONA__RESUME_SEND_FAILED:
        lua_pushboolean(co, 0);
        lua_pushfstring(co, "ona.send: %s", lua->sys->wait_error);
        return 2;
    default:
        return 0;
    }
}

ona__turn ona__lua_run(ona__system *sys, ona__resume why) {
    ona__lua *lua = sys->host_data;
    lua_State *L = lua->L;
    lua_State *co = lua->co;
    lua->park = ONA__PARK_NONE;
    lua->cap_lifted = true; /* until lua_resume: see the field's note */
    int nargs;
    if (why == ONA__RESUME_START) {
        if (!co || lua_status(co) != 0) {
            if (lua_cpcall(L, replace_turn_thread, lua) != 0) {
                lua_pop(L, 1);
                lua->cap_lifted = false;
                fail_turn(sys, "not enough memory to start a turn");
                return ONA__TURN_FAILED;
            }
            co = lua->co;
        }
        nargs = push_start(lua, co);
        if (nargs < 0) {
            lua->cap_lifted = false;
            fail_turn(sys, "could not copy the spawn arguments for init");
            return ONA__TURN_FAILED;
        }
    } else {
        nargs = push_resume(lua, co, why);
        if (nargs < 0) {
            lua->cap_lifted = false;
            fail_turn(sys, "out of Lua stack space resuming the turn");
            return ONA__TURN_FAILED;
        }
    }
    lua->cap_lifted = false;
    /* Each resume is one run under the budget: a turn parked in receive/send is not running. */
    ona__watch_scope watch;
    ona__lua_watch_begin(lua, "turn", &watch);
    int status = lua_resume(co, nargs);
    ona__watchdog_end(&watch);
    /* A turn suspended after its slice keeps its budget's start; any other end starts anew. */
    lua->turn_since_ns = status == LUA_YIELD && lua->park == ONA__PARK_SLICE ? watch.started_ns : 0;
    if (status == 0) {
        /* The trampoline returns whether the module has no process (the system sleeps). */
        sys->sleeps = lua_toboolean(co, -1);
        lua_settop(co, 0);
        return ONA__TURN_DONE;
    }
    if (status == LUA_YIELD) {
        int park = lua->park;
        lua->park = ONA__PARK_NONE;
        lua_settop(co, 0);
        if (park == ONA__PARK_RECV)
            return ONA__TURN_PARK_RECV;
        if (park == ONA__PARK_SEND)
            return ONA__TURN_PARK_SEND;
        return ONA__TURN_NEXT_FRAME;
    }
    fail(lua, co, status);
    return ONA__TURN_FAILED;
}
