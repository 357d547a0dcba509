/*
 * lua_host.h: the Lua host: what makes a core system (runtime/core/actor.h) a Lua system. Its
 * state, its counting allocator and the prelude (lua_host.c), spawning and the host's table
 * (lua_spawn.c), its turns as coroutine resumes (lua_turn.c), and the Lua half of hot reload
 * (lua_reload.c). Internal to the library.
 *
 * Who owns what: an ona__lua belongs to its system (host_data) and is touched only by the thread
 * running that system's turn, or by main between frames (restart, reload, destroy). The host's
 * per-runtime ona__lua_runtime is made and freed by main (prepare, release) and only read between.
 */
#ifndef ONA_LUA_HOST_H
#define ONA_LUA_HOST_H

#include "services.h"

#include "l_ona.h"

#include <lua.h>

/* How many values a Lua system's main stack keeps for its turns (ona__lua.turn_ref's note). */
enum { ONA__LUA_TURN_SLOTS = 4 };

/* Why a Lua turn yielded, set by the `ona` functions just before they yield. */
enum { ONA__PARK_NONE = 0, ONA__PARK_RECV, ONA__PARK_SEND };

typedef struct ona__lua {
    /* What every turn reads, first (one cache line on 64-bit: see actor.h's "hot" note). */
    ona__services *svc; /* the runtime's services (services.h) */
    ona__system *sys;
    char *script_path; /* resolved */
    lua_State *L;
    lua_State *co;      /* the turn coroutine (reused while turns end normally) */
    uint64_t budget_ns; /* the turn budget (lua_watchdog.h); 0 = none */
    int park;           /* ONA__PARK_*: why the coroutine yielded */
    /* The cap binds the script's own code only: while the runtime pushes resume values or builds
     * an error report on the state (outside any protected call) it is lifted, so a system at its
     * cap cannot make the runtime's own Lua API calls fail unprotected. */
    bool cap_lifted;
    bool mem_exceeded;
    bool closing; /* lua_close is running (its finalizers' errors are swallowed) */
    /* The counting allocator's (lua_host.c). */
    size_t mem_used, mem_peak, mem_cap;
    /* Small blocks of the state (lua_host.c, the counting allocator): NULL when the state
     * allocates each block through the runtime's allocator hook (an embedder's allocator). */
    struct ona__lua_pool *pool;
    int co_ref, module_ref, state_ref, events_ref;
    /* The prelude's turn trampoline (a ref: cheaper per turn than a named key). */
    int turn_ref;
    /* The trampoline, the script's table, the state table and the empty events table also sit
     * in the first ONA__LUA_TURN_SLOTS slots of the main thread's stack (lua->L), from the end of
     * a successful load to lua_close: a new turn copies them to its coroutine in one lua_xmove
     * instead of four registry lookups, whose scattered hash nodes were a quarter of an empty
     * turn's cache misses. Every other use of L runs inside lua_cpcall or balances
     * its pushes, so nothing removes them. None for a one-shot (it has no turns). */
    ona_message args; /* spawn args, replayed on restart */
} ona__lua;

/* The Lua system whose state (or coroutine) is L: the allocator's user pointer. */
static inline ona__lua *ona__lua_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

/* lua_alloc.c: a new state whose blocks are counted against lua->mem_cap (and come from a
 * small-block pool while the allocator hook is libc's); NULL when none could be made. */
lua_State *ona__lua_newstate(ona__lua *lua);
/* lua_alloc.c: closes lua->L (set to NULL) and gives back its pool. */
void ona__lua_closestate(ona__lua *lua);

/* The Lua host's per-runtime state (ona__core.host_state[ONA__HOST_SCRIPT], made by its
 * prepare, lua_host.c): the prelude compiled to bytecode once for the runtime's spawns. */
typedef struct ona__lua_runtime {
    char *prelude_bc; /* NULL: spawns load the prelude's source */
    size_t prelude_bc_size;
} ona__lua_runtime;

/* lua_spawn.c: the Lua host's table (its spawn takes an ona_spawn_desc), and spawning. */
extern const ona__host ona__lua_host;

/* Any thread: spawns a Lua system from desc->script (resolved under the script roots). Its chunk
 * runs here, after the system is registered. `desc->args` is released in every case. */
int ona__lua_spawn(ona__services *svc, const ona_spawn_desc *desc, ona_system *out, char *err,
                   size_t errsize);
/* The host's prepare and release (lua_host.c): compiles the prelude to bytecode once for the
 * runtime's spawns (never fails the runtime: without it spawns load the source), frees it. */
int ona__lua_prepare(ona__core *core, void **state);
void ona__lua_release(ona__core *core, void *state);
/* Makes the state and runs the chunk; on error `err` has the reason and no state is left. */
int ona__lua_load(ona__lua *lua, char *err, size_t errsize);
/* Closes the state (running the script's exit first when asked). */
void ona__lua_close(ona__lua *lua, bool run_exit);
/* Closes the state if open and frees everything the ona__lua holds, and it. */
void ona__lua_free(ona__lua *lua);
/* Pushes the spawn args' first value (or nil). 0, or an error with nothing pushed. */
int ona__lua_push_args(ona__lua *lua, lua_State *L);
/* lua_record.c: while `core` records, os.time, os.clock, os.date, os.getenv, io.open, io.read,
 * io.lines and io.popen in `L` warn once each (file:line) that a replay will not see their
 * answer. At state creation, before the script runs. */
void ona__lua_record_warnings(lua_State *L, const ona__core *core);
/* The host's reload. Main, between frames: re-runs the system's code if `path` is its script or
 * a module it required. 1 reloaded, 0 not its file, -1 failed (logged; the old code keeps
 * running). */
int ona__lua_reload(ona__system *sys, const char *path);

/* lua_turn.c: the host's turn. */
ona__turn ona__lua_run(ona__system *sys, ona__resume why);
/* Pushes the message in sys->inbox as `from, values...` (from is false for C) and releases it:
 * the count pushed, or a negative ONA_E* with `err` set and nothing pushed. The one decoding
 * path of every receive (a parked one handed over, ona.receive, ona.try_receive). */
int ona__lua_push_inbox(ona__system *sys, lua_State *L, char *err, size_t errsize);
/* True when `m` is one number (no references), which it stores in *out: the fast path's test. */
bool ona__lua_inbox_number(const ona_message *m, double *out);

#endif
