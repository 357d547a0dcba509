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

/* Why a Lua turn yielded, set by the `ona` functions just before they yield (SLICE: by the
 * budget's hook, the turn ran past its slice, lua_watchdog.h). */
enum { ONA__PARK_NONE = 0, ONA__PARK_RECV, ONA__PARK_SEND, ONA__PARK_SLICE };

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
    bool closing;     /* lua_close is running (its finalizers' errors are swallowed) */
    bool sandboxed;   /* ona_spawn_desc.sandbox (lua_sandbox.c), for its life and its restarts */
    bool ffi_watched; /* recording: require("ffi") warns (lua_record.c), so ffi stays out of
                       * package.loaded until then */
    /* This run's slice hook leaves nested coroutines alone: one could not pass its suspension
     * up (lua_watchdog.c). */
    bool slice_nested_off;
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
    /* When the turn in progress first ran, while it is suspended after a slice (0: it is not):
     * its budget counts from then (lua_watchdog.h). */
    uint64_t turn_since_ns;
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

/* How many Lua states the runtime keeps built ahead for its spawns (lua_pool.c). */
enum { ONA__LUA_PREBUILT = 8 };

/* The Lua host's per-runtime state (ona__core.host_state[ONA__HOST_SCRIPT], made by its
 * prepare, lua_host.c): the prelude compiled to bytecode once for the runtime's spawns, and the
 * states built ahead (lua_pool.c; `ready` under `ready_lock`). */
typedef struct ona__lua_runtime {
    char *prelude_bc; /* NULL: spawns load the prelude's source */
    size_t prelude_bc_size;
    uv_mutex_t ready_lock;
    bool ready_lock_made;
    uint32_t ready_count;
    struct ona__lua *ready[ONA__LUA_PREBUILT];
} ona__lua_runtime;

/* lua_pool.c. Main, at prepare: the lock (without it no state is built ahead). */
void ona__lua_prebuilt_init(ona__lua_runtime *host);
/* Main, at prepare and between frames (no turn running): builds states until
 * ONA__LUA_PREBUILT are ready, while the allocator hook is libc's. How many it built. */
uint32_t ona__lua_prebuilt_fill(ona__core *core);
/* Any thread: a ready ona__lua (lua_init'ed, its state built by ona__lua_build) now the
 * caller's, or NULL when none is ready or the allocator hook is not libc's. */
ona__lua *ona__lua_prebuilt_take(ona__services *svc);
/* Any thread: how many are ready. */
uint32_t ona__lua_prebuilt_count(ona__core *core);
/* Main, at release: frees the ready states and the lock. */
void ona__lua_prebuilt_release(ona__lua_runtime *host);

/* lua_spawn.c: the Lua host's table (its spawn takes an ona_spawn_desc), and spawning. */
extern const ona__host ona__lua_host;

/* Any thread: spawns a Lua system from desc->script (resolved under the script roots; `confined`,
 * for a script's ona.spawn, and for a sandboxed system: inside them, ona__paths_resolve_game,
 * else ONA_EPATH). Its chunk runs here, after the system is registered. `desc->args` is released
 * in every case. */
int ona__lua_spawn(ona__services *svc, const ona_spawn_desc *desc, bool confined, ona_system *out,
                   char *err, size_t errsize);
/* The host's prepare and release (lua_host.c): compiles the prelude to bytecode once for the
 * runtime's spawns (never fails the runtime: without it spawns load the source), frees it. */
int ona__lua_prepare(ona__core *core, void **state);
void ona__lua_release(ona__core *core, void *state);
/* The host's between_frames: tops up the states built ahead (ona__lua_prebuilt_fill). */
void ona__lua_between_frames(ona__core *core, void *state);
/* A zeroed ona__lua's first fields: the runtime's services, no refs, no args. */
void ona__lua_init(ona__lua *lua, ona__services *svc);
/* Makes lua->L with what every system's state has (the standard libraries, the `ona` module,
 * the prelude) and nothing of a system's own; its bytes are counted against lua->mem_cap. On
 * error `err` has the reason and no state is left. Main or the spawning thread. */
int ona__lua_build(ona__lua *lua, char *err, size_t errsize);
/* Runs the script's chunk in lua->L, built first unless it was built ahead (a state from
 * ona__lua_prebuilt_take); on error `err` has the reason and no state is left. */
int ona__lua_load(ona__lua *lua, char *err, size_t errsize);
/* Closes the state (running the script's exit first when asked). */
void ona__lua_close(ona__lua *lua, bool run_exit);
/* Closes the state if open and frees everything the ona__lua holds, and it. */
void ona__lua_free(ona__lua *lua);
/* Pushes the spawn args' first value (or nil). 0, or an error with nothing pushed. */
int ona__lua_push_args(ona__lua *lua, lua_State *L);
/* lua_record.c: while `core` records, os.time, os.clock, os.date, os.getenv, io.open, io.read,
 * io.lines and io.popen in `L` warn once each (file:line) that a replay will not see their
 * answer, and so does loading the ffi library (once); while it replays, a state that is not
 * sandboxed gets the runtime's file reader as loadfile. At state creation, before the script
 * runs. */
void ona__lua_record_warnings(lua_State *L, const ona__core *core);
/* The host's reload. Main, between frames: re-runs the system's code if `path` is its script or
 * a module it required. 1 reloaded, 0 not its file, -1 failed (logged; the old code keeps
 * running). */
int ona__lua_reload(ona__system *sys, const char *path);
/* The host's check. Main, between frames: a changed `.lua` file at `path` compiles (0), does
 * not (ONA_ESCRIPT, `err` = "file:line: message"), or is empty (ONA_EBUSY: a save caught between
 * truncating and writing). Other files are not checked (0). */
int ona__lua_check(const char *path, char *err, size_t errsize);

/* lua_eval.c. Main, between frames, while the system has no turn in progress: runs `code`
 * (`len` bytes) in the system's state with its state table as `state`, as an expression first,
 * else as statements. 0 with the results (tostring'd, tab-separated) in `out`; ONA_ESCRIPT with
 * the error ("eval:1: ...") in `out`; ONA_EINVAL when the system has no state to run in (the
 * reason in `out`, also what ona__lua_evaluable says). `out` is always terminated. */
int ona__lua_eval(ona__system *sys, const char *code, size_t len, char *out, size_t size);
bool ona__lua_evaluable(const ona__system *sys, char *why, size_t size);

/* lua_turn.c: the host's turn. */
ona__turn ona__lua_run(ona__system *sys, ona__resume why);
/* Pushes the message in sys->inbox as `from, values...` (from is false for C) and releases it:
 * the count pushed, or a negative ONA_E* with `err` set and nothing pushed. The one decoding
 * path of every receive (a parked one handed over, ona.receive, ona.try_receive). */
int ona__lua_push_inbox(ona__system *sys, lua_State *L, char *err, size_t errsize);
/* True when `m` is one number (no references), which it stores in *out: the fast path's test. */
bool ona__lua_inbox_number(const ona_message *m, double *out);

#endif
