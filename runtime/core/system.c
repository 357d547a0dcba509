/*
 * system.c: a system's life: its LuaJIT state (or native callbacks), its turns, and its end.
 *
 * Design note.
 *  - Every Lua system has its own lua_State made with a counting allocator whose user pointer is
 *    the system, so memory per system is reported and an optional cap becomes an out-of-memory
 *    error in that system only. The allocator's user pointer is also how the `ona` bindings find
 *    their system from a lua_State.
 *  - A turn runs in a coroutine of that state. The coroutine is reused from turn to turn while
 *    turns end normally (LuaJIT lets a finished thread be called again); one that raised is
 *    dropped and a new one made.
 *  - ona.receive()/ona.send() yield the coroutine with a park reason; this file turns the reason
 *    into a scheduler state with the race-free protocol below, and resumes the coroutine with
 *    the received values (or the send's result) when the scheduler queues it again.
 *  - Parking protocol (Dekker style, both sides seq_cst): the parking thread stores the PARKED
 *    state, fences, then re-checks the mailbox; a waker pushes (or pops), fences, then checks the
 *    state. At least one of them sees the other, so a wakeup is never lost; whichever wins the
 *    CAS out of the PARKED state runs the system. After the PARKED store the parking thread
 *    touches nothing of the system but that CAS: another thread may already be running it.
 *  - Errors in a callback are logged with the system's name and a traceback, and marked
 *    `failed`; the main thread applies the restart/stop policy at the frame boundary.
 */
#include "system.h"

#include "l_gfx.h"
#include "l_ona.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <time.h>

/* --- The counting allocator ------------------------------------------------------------------ */

static void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    ona__system *sys = ud;
    if (!ptr)
        osize = 0;
    if (nsize == 0) {
        free(ptr);
        sys->mem_used -= osize;
        return NULL;
    }
    if (nsize > osize && sys->mem_cap && !sys->cap_lifted &&
        sys->mem_used + (nsize - osize) > sys->mem_cap) {
        sys->mem_exceeded = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (!p)
        return NULL;
    sys->mem_used = sys->mem_used - osize + nsize;
    if (sys->mem_used > sys->mem_peak)
        sys->mem_peak = sys->mem_used;
    return p;
}

ona__system *ona__system_from_lua(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

/* --- Creation -------------------------------------------------------------------------------- */

extern const unsigned char ona_prelude_lua[];
extern const unsigned long ona_prelude_lua_size;

static int system_alloc(ona_runtime *rt, uint32_t mailbox_capacity, ona__system **out) {
    ona__system *sys = ona__calloc(1, sizeof *sys);
    if (!sys)
        return ONA_ENOMEM;
    sys->rt = rt;
    sys->co_ref = sys->module_ref = sys->state_ref = sys->events_ref = LUA_NOREF;
    atomic_init(&sys->run, RUN_IDLE);
    atomic_init(&sys->waiter_count, 0);
    atomic_init(&sys->kill_requested, false);
    ona_message_init(&sys->outgoing);
    ona_message_init(&sys->inbox);
    ona_message_init(&sys->args);
    sys->needs_init = true;
    if (uv_mutex_init(&sys->waiters_lock) != 0) {
        ona__free(sys);
        return ONA_ENOMEM;
    }
    int rc = ona__mailbox_create(mailbox_capacity ? mailbox_capacity : rt->desc.mailbox_capacity,
                                 &sys->mailbox);
    if (rc) {
        uv_mutex_destroy(&sys->waiters_lock);
        ona__free(sys);
        return rc;
    }
    *out = sys;
    return 0;
}

static void system_free(ona__system *sys) {
    ona_message_release(&sys->outgoing);
    ona_message_release(&sys->inbox);
    ona_message_release(&sys->args);
    ona__mailbox_destroy(sys->mailbox);
    uv_mutex_destroy(&sys->waiters_lock);
    ona__free(sys->script_path);
    ona__free(sys->native_state);
    ona__free(sys);
}

/* Builds "root1/?.lua;root1/?/init.lua;root2/?.lua;..." for package.path. */
static void build_package_path(ona_runtime *rt, luaL_Buffer *b) {
    for (uint32_t i = 0; i < rt->root_count; i++) {
        if (i)
            luaL_addchar(b, ';');
        luaL_addstring(b, rt->roots[i]);
        luaL_addstring(b, "/?.lua;");
        luaL_addstring(b, rt->roots[i]);
        luaL_addstring(b, "/?/init.lua");
    }
}


/* Runs under lua_cpcall: opens the libraries and the `ona` module, runs the prelude (which
 * returns the turn trampoline, kept in the registry), loads and runs the script chunk, and keeps
 * what it returned. */
static int open_state(lua_State *L) {
    ona__system *sys = lua_touserdata(L, 1);
    lua_settop(L, 0);
    luaL_openlibs(L);
    ona__lua_register_types(L);
    ona__lua_open_ona(L); /* pushes ona, raw */
    lua_pushvalue(L, -2);
    lua_setglobal(L, "ona");
    /* The prelude's bytecode, compiled once per runtime, loads faster than its source. */
    ona_runtime *rt = sys->rt;
    const char *prelude = rt->prelude_bc ? rt->prelude_bc : (const char *)ona_prelude_lua;
    size_t prelude_size = rt->prelude_bc ? rt->prelude_bc_size : ona_prelude_lua_size;
    if (luaL_loadbuffer(L, prelude, prelude_size, "=prelude.lua"))
        return lua_error(L);
    lua_insert(L, -3); /* prelude, ona, raw */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    build_package_path(sys->rt, &b);
    luaL_pushresult(&b);
    lua_call(L, 3, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, ONA__RELOAD_KEY);
    lua_setfield(L, LUA_REGISTRYINDEX, ONA__TURN_KEY);

    lua_newtable(L);
    sys->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    sys->events_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    /* luaL_loadfile names the chunk "@path", so errors read path:line: message. */
    if (luaL_loadfile(L, sys->script_path))
        return lua_error(L);
    /* The chunk gets the spawn args too (`local args = ...`): a one-shot main.lua has no init. */
    if (ona__system_push_args(sys, L) != 0)
        return luaL_error(L, "%s: the spawn args could not be copied", sys->script_path);
    lua_call(L, 1, 1);
    if (lua_istable(L, -1)) {
        sys->module_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        sys->one_shot = true;
    } else {
        return luaL_error(L, "%s: a system script must return a table of callbacks (init, "
                             "process, exit, reload) or nothing, not a %s",
                          sys->script_path, luaL_typename(L, -1));
    }
    return 0;
}

/* A Lua error outside any protected call cannot be recovered: say which system it was before
 * LuaJIT ends the process. The runtime keeps its own calls protected or under a lifted cap, so
 * only a real out-of-memory of the process gets here. */
static int on_panic(lua_State *L) {
    ona__system *sys = ona__system_from_lua(L);
    ona_log(ONA_LOG_ERROR, sys ? sys->name : "lua", "unprotected Lua error, aborting: %s",
            lua_tostring(L, -1) ? lua_tostring(L, -1) : "(not a string)");
    return 0;
}

/* Makes the Lua state and runs the chunk. On error `err` has the reason and the state is
 * closed. */
static int load_state(ona__system *sys, char *err, size_t errsize) {
    sys->mem_used = sys->mem_peak = 0;
    sys->mem_exceeded = false;
    lua_State *L = lua_newstate(lua_alloc, sys);
    if (!L) {
        snprintf(err, errsize, "could not create a Lua state%s",
                 sys->mem_cap ? " (memory cap too small?)" : "");
        return ONA_ENOMEM;
    }
    lua_atpanic(L, on_panic);
    sys->L = L;
    sys->co = NULL;
    sys->co_ref = sys->module_ref = sys->state_ref = sys->events_ref = LUA_NOREF;
    sys->one_shot = false;
    int rc = lua_cpcall(L, open_state, sys);
    if (rc) {
        const char *msg = lua_tostring(L, -1);
        snprintf(err, errsize, "%s", msg ? msg : "(error object is not a string)");
        int code = rc == LUA_ERRMEM ? ONA_ENOMEM : ONA_ESCRIPT;
        if (rc == LUA_ERRMEM && sys->mem_exceeded)
            snprintf(err, errsize, "%s: exceeded its memory cap of %zu bytes while loading",
                     sys->script_path, sys->mem_cap);
        lua_close(L);
        sys->L = NULL;
        return code;
    }
    lua_settop(L, 0);
    return 0;
}

int ona__system_create_lua(ona_runtime *rt, const ona_spawn_desc *desc, const char *path,
                           ona_message *args, ona__system **out, char *err, size_t errsize) {
    ona__system *sys;
    int rc = system_alloc(rt, desc->mailbox_capacity, &sys);
    if (rc) {
        snprintf(err, errsize, "%s", ona_strerror(rc));
        return rc;
    }
    if (args) {
        sys->args = *args;
        ona_message_init(args);
    }
    sys->script_path = ona__malloc(strlen(path) + 1);
    if (!sys->script_path) {
        system_free(sys);
        snprintf(err, errsize, "%s", ona_strerror(ONA_ENOMEM));
        return ONA_ENOMEM;
    }
    strcpy(sys->script_path, path);
    if (desc->name && desc->name[0]) {
        snprintf(sys->name, sizeof sys->name, "%s", desc->name);
    } else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(sys->name, sizeof sys->name, "%s", base);
        char *dot = strrchr(sys->name, '.');
        if (dot && strcmp(dot, ".lua") == 0)
            *dot = '\0';
    }
    sys->mem_cap = desc->memory_cap ? desc->memory_cap : rt->desc.memory_cap;
    sys->policy = desc->policy ? desc->policy : rt->desc.default_policy;
    sys->restart_limit = desc->restart_limit ? desc->restart_limit : rt->desc.restart_limit;
    rc = load_state(sys, err, errsize);
    if (rc) {
        system_free(sys);
        return rc;
    }
    *out = sys;
    return 0;
}

int ona__system_create_native(ona_runtime *rt, const ona_system_desc *desc, ona__system **out) {
    ona__system *sys;
    int rc = system_alloc(rt, desc->mailbox_capacity, &sys);
    if (rc)
        return rc;
    sys->native = true;
    sys->native_desc = *desc;
    snprintf(sys->name, sizeof sys->name, "%s", desc->name);
    sys->native_desc.name = sys->name;
    sys->policy = desc->policy ? desc->policy : rt->desc.default_policy;
    sys->restart_limit = desc->restart_limit ? desc->restart_limit : rt->desc.restart_limit;
    if (desc->size) {
        sys->native_state = ona__calloc(1, desc->size);
        if (!sys->native_state) {
            system_free(sys);
            return ONA_ENOMEM;
        }
    }
    *out = sys;
    return 0;
}

int ona__system_push_args(ona__system *sys, lua_State *L) {
    if (!lua_checkstack(L, 2 + (int)ona_message_count(&sys->args)))
        return ONA_ENOMEM;
    if (ona_message_count(&sys->args) == 0) {
        lua_pushnil(L);
        return 0;
    }
    ona_message copy;
    char err[256];
    int rc = ona__message_clone(&sys->args, &copy);
    if (rc)
        return rc;
    int n = ona__message_decode_lua(&copy, L, err, sizeof err);
    ona_message_release(&copy);
    if (n < 0)
        return n;
    if (n == 0)
        lua_pushnil(L);
    else if (n > 1)
        lua_pop(L, n - 1);
    return 0;
}

typedef struct bytecode {
    char *data;
    size_t size, capacity;
    bool failed;
} bytecode;

static int write_bytecode(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    bytecode *bc = ud;
    if (bc->size + size > bc->capacity) {
        size_t cap = bc->capacity ? bc->capacity * 2 : 16384;
        while (cap < bc->size + size)
            cap *= 2;
        char *grown = ona__realloc(bc->data, cap);
        if (!grown) {
            bc->failed = true;
            return 1;
        }
        bc->data = grown;
        bc->capacity = cap;
    }
    memcpy(bc->data + bc->size, p, size);
    bc->size += size;
    return 0;
}

int ona__system_compile_prelude(ona_runtime *rt) {
    lua_State *L = luaL_newstate();
    if (!L)
        return ONA_ENOMEM;
    bytecode bc = {0};
    int rc = luaL_loadbuffer(L, (const char *)ona_prelude_lua, ona_prelude_lua_size,
                             "=prelude.lua");
    if (rc == 0)
        rc = lua_dump(L, write_bytecode, &bc);
    if (rc || bc.failed) {
        /* Not fatal: every spawn then compiles the source, as it would without this. */
        ona_log(ONA_LOG_WARN, "runtime", "prelude bytecode not made (%s); loading its source",
                lua_isstring(L, -1) ? lua_tostring(L, -1) : "out of memory");
        ona__free(bc.data);
        bc.data = NULL;
        bc.size = 0;
    }
    lua_close(L);
    rt->prelude_bc = bc.data;
    rt->prelude_bc_size = bc.size;
    return 0;
}

/* --- Failure --------------------------------------------------------------------------------- */

void ona__system_fail(ona__system *sys, const char *what) {
    sys->failed = true;
    sys->errors++;
    ona_log(ONA_LOG_ERROR, sys->name, "%s", what);
}

/* Logs a Lua error of the turn coroutine with a traceback and drops the coroutine. */
static void fail_lua_turn(ona__system *sys, lua_State *co, int status) {
    lua_State *L = sys->L;
    const char *msg = lua_tostring(co, -1);
    char text[512];
    if (status == LUA_ERRMEM && sys->mem_exceeded)
        snprintf(text, sizeof text, "exceeded its memory cap of %zu bytes (%s)", sys->mem_cap,
                 sys->script_path);
    else
        snprintf(text, sizeof text, "%s", msg ? msg : "(error object is not a string)");
    sys->cap_lifted = true;
    luaL_traceback(L, co, text, 0);
    ona__system_fail(sys, lua_tostring(L, -1));
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, sys->co_ref);
    sys->co_ref = LUA_NOREF;
    sys->co = NULL;
    sys->mem_exceeded = false;
    sys->cap_lifted = false;
}

/* --- Turns ----------------------------------------------------------------------------------- */

enum { TURN_DONE, TURN_PARK_RECV, TURN_PARK_SEND, TURN_NEXT_FRAME, TURN_FAILED };

int ona__system_deliver(ona__system *sys, ona__system *target) {
    ona_message *m = &sys->outgoing;
    /* The queued copy must own the buffers the sender's handles lent it; if the push fails
     * they stay lent. The sender runs no Lua between the push and the kill of its handles, so
     * nothing can reach a buffer through a handle after the receiver may have taken it. */
    uint32_t lent_flags = m->flags;
    if (m->flags & ONA__MESSAGE_LENT_BUFFERS)
        m->flags = (m->flags & ~(uint32_t)ONA__MESSAGE_LENT_BUFFERS) | ONA__MESSAGE_OWNS_BUFFERS;
    int rc = ona__mailbox_push(target->mailbox, m);
    if (rc) {
        m->flags = lent_flags;
        return rc;
    }
    ona__message_commit_moves(NULL, &sys->moves);
    sys->messages_out++;
    ona__scheduler_after_push(sys->rt, target);
    return 0;
}

/* Tries to deliver the system's parked outgoing message. Returns 0, ONA_EFULL, or ONA_EDEAD. */
int ona__system_flush_outgoing(ona__system *sys) {
    ona__system *target = ona__runtime_resolve(sys->rt, sys->send_target);
    if (!target || target->status == ONA_SYSTEM_STOPPED ||
        atomic_load_explicit(&target->kill_requested, memory_order_relaxed))
        return ONA_EDEAD;
    return ona__system_deliver(sys, target);
}

/* Pushes the resume values for the reason the system was queued. Returns the number of values
 * to resume with, or -1 when the turn should park again without running (its wake was stale). */
static int push_resume_values(ona__system *sys, lua_State *co) {
    switch (sys->resume) {
    case RESUME_CONTINUE:
        return 0;
    case RESUME_RECV:
        /* No values: the prelude's ona.receive loop takes the message inside the coroutine,
         * where a decoding error is an ordinary Lua error of this system. */
        return 0;
    case RESUME_NIL:
        /* `true` and no values: receive returns nothing (nil) at quiescence. */
        sys->nil_this_frame = true;
        lua_pushboolean(co, 1);
        return 1;
    case RESUME_SEND: {
        int rc = ona__system_flush_outgoing(sys);
        if (rc == ONA_EFULL) {
            sys->park = PARK_SEND;
            return -1;
        }
        if (rc == 0) {
            lua_pushboolean(co, 1);
            return 1;
        }
        ona__system *target = ona__runtime_resolve(sys->rt, sys->send_target);
        ona_message_release(&sys->outgoing);
        lua_pushboolean(co, 0);
        lua_pushfstring(co, "ona.send: system %s is no longer running; the message was not sent",
                        target ? target->name : "(killed)");
        return 2;
    }
    case RESUME_SEND_DEAD:
        ona_message_release(&sys->outgoing);
        lua_pushboolean(co, 0);
        lua_pushstring(co, "ona.send: the receiving system died while this one waited for room "
                           "in its mailbox; the message was not sent");
        return 2;
    case RESUME_DEADLOCK:
        ona_message_release(&sys->outgoing);
        lua_pushboolean(co, 0);
        lua_pushfstring(co, "ona.send: deadlock: %s", sys->wait_error);
        return 2;
    }
    return 0;
}

static int run_lua(ona__system *sys) {
    lua_State *L = sys->L;
    lua_State *co = sys->co;
    int nargs;
    sys->park = PARK_NONE;
    sys->cap_lifted = true; /* until lua_resume: see the field's note */
    if (sys->resume == RESUME_START) {
        if (!co || lua_status(co) != 0) {
            if (sys->co_ref != LUA_NOREF)
                luaL_unref(L, LUA_REGISTRYINDEX, sys->co_ref);
            co = lua_newthread(L);
            sys->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
            sys->co = co;
        }
        lua_settop(co, 0);
        lua_getfield(co, LUA_REGISTRYINDEX, ONA__TURN_KEY);
        lua_rawgeti(co, LUA_REGISTRYINDEX, sys->module_ref);
        lua_rawgeti(co, LUA_REGISTRYINDEX, sys->state_ref);
        if (sys->rt->video.event_count)
            ona__lua_push_events(co, &sys->rt->video);
        else
            lua_rawgeti(co, LUA_REGISTRYINDEX, sys->events_ref);
        lua_pushnumber(co, sys->rt->dt);
        lua_pushboolean(co, sys->needs_init);
        int nargs_init = 0;
        if (sys->needs_init) {
            if (ona__system_push_args(sys, co) != 0) {
                sys->cap_lifted = false;
                ona__system_fail(sys, "could not copy the spawn arguments for init");
                return TURN_FAILED;
            }
            nargs_init = 1;
            sys->needs_init = false;
        }
        nargs = 5 + nargs_init;
    } else {
        nargs = push_resume_values(sys, co);
        if (nargs < 0) {
            sys->cap_lifted = false;
            return sys->park == PARK_RECV ? TURN_PARK_RECV : TURN_PARK_SEND;
        }
    }
    sys->cap_lifted = false;
    int status = lua_resume(co, nargs);
    if (status == 0) {
        lua_settop(co, 0);
        return TURN_DONE;
    }
    if (status == LUA_YIELD) {
        int park = sys->park;
        sys->park = PARK_NONE;
        lua_settop(co, 0);
        if (park == PARK_RECV)
            return TURN_PARK_RECV;
        if (park == PARK_SEND)
            return TURN_PARK_SEND;
        return TURN_NEXT_FRAME;
    }
    ona_message_release(&sys->outgoing);
    fail_lua_turn(sys, co, status);
    return TURN_FAILED;
}

struct ona_ctx {
    ona__system *sys;
};

static int run_native(ona__system *sys) {
    ona_ctx ctx = {sys};
    int rc = 0;
    if (sys->needs_init) {
        sys->needs_init = false;
        if (sys->native_desc.init)
            rc = sys->native_desc.init(&ctx, sys->native_state);
    }
    if (rc == 0 && sys->native_desc.process)
        rc = sys->native_desc.process(&ctx, sys->native_state, sys->rt->dt);
    ona_message_release(&sys->inbox);
    if (rc != 0) {
        char text[160];
        snprintf(text, sizeof text, "native callback failed with %d (%s)", rc,
                 rc < 0 ? ona_strerror(rc) : "nonzero return");
        ona__system_fail(sys, text);
        return TURN_FAILED;
    }
    return TURN_DONE;
}

static void waiters_append(ona__system *target, ona__system *sys) {
    uv_mutex_lock(&target->waiters_lock);
    sys->next_waiter = NULL;
    if (target->waiters_tail)
        target->waiters_tail->next_waiter = sys;
    else
        target->waiters_head = sys;
    target->waiters_tail = sys;
    /* relaxed: the count is read after a seq_cst fence by poppers; the lock orders the list. */
    atomic_fetch_add_explicit(&target->waiter_count, 1, memory_order_relaxed);
    uv_mutex_unlock(&target->waiters_lock);
}

void ona__system_waiters_remove(ona__system *target, ona__system *sys) {
    uv_mutex_lock(&target->waiters_lock);
    ona__system *prev = NULL;
    for (ona__system *w = target->waiters_head; w; prev = w, w = w->next_waiter) {
        if (w != sys)
            continue;
        if (prev)
            prev->next_waiter = w->next_waiter;
        else
            target->waiters_head = w->next_waiter;
        if (target->waiters_tail == w)
            target->waiters_tail = prev;
        w->next_waiter = NULL;
        atomic_fetch_sub_explicit(&target->waiter_count, 1, memory_order_relaxed);
        break;
    }
    uv_mutex_unlock(&target->waiters_lock);
}

ona__system *ona__system_waiters_pop(ona__system *target) {
    uv_mutex_lock(&target->waiters_lock);
    ona__system *w = target->waiters_head;
    if (w) {
        target->waiters_head = w->next_waiter;
        if (!target->waiters_head)
            target->waiters_tail = NULL;
        w->next_waiter = NULL;
        atomic_fetch_sub_explicit(&target->waiter_count, 1, memory_order_relaxed);
    }
    uv_mutex_unlock(&target->waiters_lock);
    return w;
}

void ona__system_run_turn(ona__system *sys, ona__worker *w) {
    (void)w;
    if (sys->resume == RESUME_START)
        sys->last_turn_ns = 0;
    for (;;) {
        uint64_t t0 = ona__now_ns();
        int outcome = sys->native ? run_native(sys) : run_lua(sys);
        uint64_t ns = ona__now_ns() - t0;
        sys->turn_ns_total += ns;
        sys->last_turn_ns += ns;
        switch (outcome) {
        case TURN_DONE:
        case TURN_FAILED:
            sys->turns++;
            if (sys->last_turn_ns > sys->max_turn_ns)
                sys->max_turn_ns = sys->last_turn_ns;
            sys->turn_active = false;
            if (outcome == TURN_DONE && sys->one_shot)
                sys->status = ONA_SYSTEM_STOPPED;
            /* release: the next thread to run this system sees everything this turn wrote. */
            atomic_store_explicit(&sys->run, RUN_IDLE, memory_order_release);
            return;
        case TURN_NEXT_FRAME:
            sys->resume = RESUME_CONTINUE;
            atomic_store_explicit(&sys->run, RUN_IDLE, memory_order_release);
            return;
        case TURN_PARK_RECV: {
            sys->parks++;
            sys->park_start_ns = ona__now_ns();
            /* seq_cst (store, fence, load): Dekker with ona__scheduler_after_push, see the file
             * note. After this store another thread may own the system. */
            atomic_store_explicit(&sys->run, RUN_PARKED_RECV, memory_order_seq_cst);
            atomic_thread_fence(memory_order_seq_cst);
            int expected = RUN_PARKED_RECV;
            if (!ona__mailbox_is_empty(sys->mailbox) &&
                atomic_compare_exchange_strong_explicit(&sys->run, &expected, RUN_RUNNING,
                                                        memory_order_acq_rel,
                                                        memory_order_relaxed)) {
                sys->resume = RESUME_RECV;
                sys->park_start_ns = 0;
                continue;
            }
            return;
        }
        case TURN_PARK_SEND: {
            sys->parks++;
            sys->park_start_ns = ona__now_ns();
            ona__system *target = ona__runtime_resolve(sys->rt, sys->send_target);
            if (!target) {
                sys->resume = RESUME_SEND_DEAD;
                continue;
            }
            waiters_append(target, sys);
            /* seq_cst: Dekker with ona__scheduler_after_pop (pop, fence, read waiters). */
            atomic_store_explicit(&sys->run, RUN_PARKED_SEND, memory_order_seq_cst);
            atomic_thread_fence(memory_order_seq_cst);
            int expected = RUN_PARKED_SEND;
            if (!ona__mailbox_is_full(target->mailbox) &&
                atomic_compare_exchange_strong_explicit(&sys->run, &expected, RUN_RUNNING,
                                                        memory_order_acq_rel,
                                                        memory_order_relaxed)) {
                ona__system_waiters_remove(target, sys);
                sys->resume = RESUME_SEND;
                sys->park_start_ns = 0;
                continue;
            }
            return;
        }
        }
    }
}

/* --- The end --------------------------------------------------------------------------------- */

static int call_exit(lua_State *L) {
    ona__system *sys = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, sys->module_ref);
    lua_getfield(L, -1, "exit");
    if (!lua_isfunction(L, -1))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, sys->state_ref);
    lua_call(L, 1, 0);
    return 0;
}

static void close_lua(ona__system *sys, bool run_exit) {
    if (!sys->L)
        return;
    if (run_exit && sys->module_ref != LUA_NOREF) {
        if (lua_cpcall(sys->L, call_exit, sys)) {
            ona_log(ONA_LOG_ERROR, sys->name, "exit: %s", lua_tostring(sys->L, -1));
        }
    }
    lua_close(sys->L);
    sys->L = NULL;
    sys->co = NULL;
}

void ona__system_destroy(ona__system *sys, bool run_exit) {
    if (sys->native) {
        if (run_exit && sys->native_desc.exit && !sys->needs_init) {
            ona_ctx ctx = {sys};
            sys->native_desc.exit(&ctx, sys->native_state);
        }
    } else {
        /* exit() runs only for a system whose init ran and whose state is sound. */
        close_lua(sys, run_exit && !sys->needs_init && sys->status != ONA_SYSTEM_STOPPED);
    }
    system_free(sys);
}

void ona__system_close_state(ona__system *sys) {
    close_lua(sys, false);
}

int ona__system_restart(ona__system *sys) {
    ona_message_release(&sys->outgoing);
    sys->turn_active = false;
    sys->needs_init = true;
    sys->failed = false;
    if (sys->native) {
        if (sys->native_desc.size)
            memset(sys->native_state, 0, sys->native_desc.size);
        return 0;
    }
    close_lua(sys, false);
    char err[512];
    int rc = load_state(sys, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, sys->name, "restart failed: %s", err);
        return rc;
    }
    return 0;
}

/* --- Native context -------------------------------------------------------------------------- */

ona_system ona_ctx_self(ona_ctx *ctx) {
    return (ona_system){ctx->sys->id};
}

ona_runtime *ona_ctx_runtime(ona_ctx *ctx) {
    return ctx->sys->rt;
}

void *ona_ctx_user(ona_ctx *ctx) {
    return ctx->sys->native_desc.user;
}

uint64_t ona_ctx_frame(ona_ctx *ctx) {
    return ctx->sys->rt->frame;
}

int ona_ctx_draw(ona_ctx *ctx, ona_texture texture, int layer, const ona_sprite *sprites,
                 uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    ona__worker *w = ona__current_worker();
    if (!w)
        return ONA_ETHREAD;
    ona__system *sys = ctx->sys;
    return ona__render_queue_push(&w->queue, texture.id, layer, sys->spawn_order, &sys->draw_seq,
                                  sprites, count);
}

int ona_ctx_try_send(ona_ctx *ctx, ona_system to, ona_message *m) {
    if (!ctx || !m)
        return ONA_EINVAL;
    return ona__runtime_try_send(ctx->sys->rt, ctx->sys, to, m);
}

int ona_ctx_try_receive(ona_ctx *ctx, ona_message **out) {
    if (!ctx || !out)
        return ONA_EINVAL;
    ona__system *sys = ctx->sys;
    ona_message_release(&sys->inbox);
    if (ona__mailbox_pop(sys->mailbox, &sys->inbox) != 0)
        return ONA_EEMPTY;
    sys->messages_in++;
    ona__scheduler_after_pop(sys->rt, sys);
    *out = &sys->inbox;
    return 0;
}

int ona_ctx_spawn(ona_ctx *ctx, const ona_spawn_desc *desc, ona_system *out) {
    char err[512];
    int rc = ona__runtime_spawn_lua(ctx->sys->rt, desc, out, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, ctx->sys->name, "spawn: %s", err);
    return rc;
}

int ona_ctx_lookup(ona_ctx *ctx, const char *name, ona_system *out) {
    return ona_runtime_lookup(ctx->sys->rt, name, out);
}

int ona_ctx_kill(ona_ctx *ctx, ona_system system) {
    ona__system *target = ona__runtime_resolve(ctx->sys->rt, system);
    if (!target)
        return ONA_ESTALE;
    /* relaxed: read by main at the frame boundary, after the frame's synchronisation. */
    atomic_store_explicit(&target->kill_requested, true, memory_order_relaxed);
    return 0;
}

void ona_ctx_quit(ona_ctx *ctx) {
    ona_runtime_quit(ctx->sys->rt);
}
