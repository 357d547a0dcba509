/*
 * system.h: the system object (a Lua or native actor) and the runtime that holds them. Internal;
 * shared by runtime.c (registry, frame boundary, public API), scheduler.c (threads, queues,
 * quiescence), system.c (Lua states and turns) and bindings/l_ona.c (the `ona` Lua module).
 *
 * Who owns what:
 *  - A system's lua_State, coroutine, counting-allocator totals, `inbox` and `outgoing` belong to
 *    whichever thread is running its turn; a system runs on at most one thread at a time (its
 *    `run` state is the lock: only the thread that moved it to RUN_RUNNING touches those).
 *  - Between frames, the main thread owns every system (no turn runs), and does all structural
 *    changes there: merging spawns, kills, restarts, freeing.
 *  - The mailbox is shared (MPSC). The waiter list of senders parked on a full mailbox is guarded
 *    by `waiters_lock`.
 */
#ifndef ONA_SYSTEM_H
#define ONA_SYSTEM_H

#include "ona/runtime.h"

#include "common.h"
#include "mailbox.h"
#include "message.h"
#include "hot_reload.h"
#include "trace.h"
#include "video.h"

#include <lua.h>
#include <stdatomic.h>
#include <uv.h>

typedef struct ona__system ona__system;
typedef struct ona__worker ona__worker;

/* Where a system is in the scheduler. Transitions out of the two PARKED states race between the
 * parking thread and wakers, so they are CASes. */
enum {
    RUN_IDLE = 0,    /* no turn queued or running */
    RUN_QUEUED,      /* in a run queue or the frame list */
    RUN_RUNNING,     /* a thread is running its turn */
    RUN_PARKED_RECV, /* its turn waits in ona.receive() for a message */
    RUN_PARKED_SEND, /* its turn waits in ona.send() for room in `send_target`'s mailbox */
};

/* How a queued system continues. */
enum {
    RESUME_START = 0,  /* a new turn: (init then) process */
    RESUME_CONTINUE,   /* the turn yielded with coroutine.yield(): continue it this frame */
    RESUME_RECV,       /* a message may be waiting */
    RESUME_NIL,        /* quiescence: receive() returns nil */
    RESUME_SEND,       /* room may be free: retry the send */
    RESUME_SEND_DEAD,  /* the target died while we waited: send fails */
    RESUME_DEADLOCK,   /* we are in a cycle of blocked senders: send fails */
};

/* Why a Lua turn yielded. */
enum { PARK_NONE = 0, PARK_RECV, PARK_SEND, PARK_NEXT_FRAME };

struct ona__system {
    ona_runtime *rt;
    uint32_t id;          /* the handle */
    uint32_t spawn_order; /* deterministic merge and iteration order */
    char name[64];
    char *script_path; /* resolved path (Lua) */
    bool native;

    /* Native systems. */
    ona_system_desc native_desc;
    void *native_state;

    /* Lua systems. */
    lua_State *L;
    lua_State *co; /* the turn coroutine (reused while turns end normally) */
    int co_ref, module_ref, state_ref, events_ref;
    size_t mem_used, mem_peak, mem_cap;
    bool mem_exceeded;
    /* The cap binds the script's own code only: while the runtime pushes resume values or
     * builds an error report on the state (outside any protected call) it is lifted, so a
     * system at its cap cannot make the runtime's own Lua API calls fail unprotected. */
    bool cap_lifted;

    ona__mailbox *mailbox;

    /* Scheduling. `run` is the only field read by other threads without owning the system. */
    _Atomic int run;
    int resume;           /* RESUME_*, written by whoever queues it */
    int park;             /* PARK_*, written by the turn before it yields */
    bool turn_active;     /* a turn (coroutine) is in progress, maybe parked */
    bool needs_init;      /* the next new turn calls init first */
    bool nil_this_frame;  /* receive() already returned nil this frame: don't park again */
    uint64_t frame_queued;
    ona_system send_target;
    ona_message outgoing; /* encoded, waiting for room */
    ona__moves moves;
    ona__system *next_waiter;
    char wait_error[256]; /* why a parked send failed (deadlock report) */
    uint32_t deadlock_mark;

    uv_mutex_t waiters_lock;
    ona__system *waiters_head, *waiters_tail;
    atomic_uint waiter_count;

    ona_message inbox; /* the message being decoded / borrowed by a native receive */
    uint32_t draw_seq;     /* submission number of its next sprite this frame */
    uint64_t park_start_ns; /* when its turn last parked (for the trace), 0 when not parked */
    bool trace_named;       /* its parked track has its name in the trace */
    uint64_t events_frame; /* the frame whose events table is in events_ref */
    ona_message args;  /* spawn args, replayed on restart */

    /* Lifecycle (main thread between frames, or the running thread for `failed`). */
    ona_failure_policy policy;
    uint32_t restart_limit;
    ona_system_status status;
    bool failed;           /* set by a turn that raised; handled at the frame boundary */
    bool one_shot;         /* the script returned no table */
    atomic_bool kill_requested;
    uint64_t restart_frame;
    uint32_t restarts, errors;

    /* Statistics: written by the running thread, read by main between frames. */
    uint64_t turns, turn_ns_total, last_turn_ns, max_turn_ns, parks, messages_in, messages_out;
    uint64_t turn_started_ns;
};

/* A thread that runs turns (index 0 is the main thread). */
typedef struct ona__deque {
    /* Thieves' end and the owner's end a cache line apart (padding, not _Alignas: workers are
     * allocated with malloc's alignment). */
    atomic_llong top;
    char pad_top_[ONA_CACHE_LINE];
    atomic_llong bottom;
    char pad_bottom_[ONA_CACHE_LINE];
    _Atomic(ona__system *) *slots;
    long long mask;
} ona__deque;

struct ona__worker {
    ona_runtime *rt;
    uint32_t index;
    uv_thread_t thread;
    ona__deque deque;
    uint64_t steals;
    uint64_t busy_ns; /* time in turns this frame */
    ona__render_queue queue; /* sprites drawn by turns run on this thread this frame */
    ona__trace_buffer trace; /* slices of this frame, when tracing */
    uint32_t rng;
};

typedef struct ona__slot {
    _Atomic uint32_t id; /* the live handle, or 0 */
    ona__system *sys;
    uint16_t generation;
} ona__slot;

struct ona_runtime {
    ona_runtime_desc desc; /* defaults applied */
    char **roots;
    uint32_t root_count;
    uv_thread_t main_thread;

    /* Registry: handle -> system. Slots are read lock-free (acquire on id); inserts and frees
     * take `registry_lock`. */
    ona__slot *slots;
    uint32_t *free_slots;
    uint32_t free_count;
    uv_mutex_t registry_lock;
    bool registry_ready, video_ready;
    /* Spawned since the last frame boundary, merged into `systems` by main. */
    ona__system **pending;
    uint32_t pending_count;
    atomic_uint spawn_seq;

    /* Live systems in spawn order (main thread). */
    ona__system **systems;
    uint32_t system_count;

    /* Scheduler (scheduler.c). */
    ona__worker *workers; /* [0] is main */
    uint32_t thread_count;
    ona__system **frame_list;
    uint32_t frame_list_cap;
    /* Positions only grow (entries live at pos % cap), so a thread holding a stale cursor can
     * never claim an old entry: see scheduler.c. */
    atomic_ullong frame_list_count;  /* entries published */
    atomic_ullong frame_list_cursor; /* entries claimed */
    atomic_int active;             /* systems queued or running this frame */
    atomic_bool frame_running;
    atomic_bool stopping;
    atomic_uint epoch;   /* eventcount: bumped whenever work appears or the frame ends */
    atomic_int sleepers;       /* workers waiting on sleep_cond */
    atomic_bool main_sleeping; /* main waiting on main_cond */
    uv_mutex_t sleep_lock;
    uv_cond_t sleep_cond;
    uv_cond_t main_cond;
    uint64_t last_busy_ns;

    /* Video, textures, input (video.c). */
    ona__video video;
    /* The Chrome trace being written (trace.c); `tracing` changes only between frames. */
    ona__trace trace;
    bool tracing;
    /* File watching and reloads (hot_reload.c). */
    ona__hot_reload hot;
    bool hot_ready;

    /* The prelude compiled once (system.c); NULL: spawns load its source. */
    char *prelude_bc;
    size_t prelude_bc_size;

    /* Frame. */
    uint64_t frame;
    double dt;
    atomic_bool quit;
    bool in_step;

    /* Statistics. */
    uint64_t last_frame_ns, max_frame_ns, total_frame_ns, turns, deadlocks;
    /* Messages sent from C outside systems and by systems since killed (main thread); the
     * live systems' own counts are added when statistics are read, so sending touches no
     * shared counter. */
    uint64_t messages;
};

/* Writes the frame's recorded slices to the trace file (main, after the turns). */
void ona__trace_write_frame(ona_runtime *rt, uint64_t frame_start_ns, uint64_t frame_end_ns);

/* The worker running on this thread during a frame (NULL elsewhere). */
ona__worker *ona__current_worker(void);

/* --- runtime.c ------------------------------------------------------------------------------- */

/* The live system behind a handle, or NULL. Any thread; the pointer stays valid until the next
 * frame boundary. */
ona__system *ona__runtime_resolve(ona_runtime *rt, ona_system h);
/* Creates and registers a system (Lua when `lua` is non-NULL, else native). Any thread. */
int ona__runtime_spawn_lua(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out,
                           char *err, size_t errsize);
/* Finds a file by name: absolute, under a script root, or relative to the working directory. */
int ona__runtime_resolve_path(ona_runtime *rt, const char *name, char *path, size_t size);
/* Sends from `from` (NULL outside systems) without waiting; wakes a parked receiver. */
int ona__runtime_try_send(ona_runtime *rt, ona__system *from, ona_system to, ona_message *m);

/* --- scheduler.c ----------------------------------------------------------------------------- */

int ona__scheduler_start(ona_runtime *rt);
void ona__scheduler_stop(ona_runtime *rt);
/* Runs the turns of one frame on all threads until quiescence (main thread). */
void ona__scheduler_run_frame(ona_runtime *rt);
/* Makes a parked system runnable if it is still parked in `expected` state. Any thread in a
 * frame. Returns true when this call woke it. */
bool ona__scheduler_wake(ona_runtime *rt, ona__system *sys, int expected, int resume);
/* After a message went into `sys`'s mailbox: wake it if it waits in receive. */
void ona__scheduler_after_push(ona_runtime *rt, ona__system *receiver);
/* After `sys` took a message from its mailbox: wake one sender waiting for room. */
void ona__scheduler_after_pop(ona_runtime *rt, ona__system *receiver);
/* A turn parked in send: register it as a waiter on the target (may immediately requeue). */

/* --- system.c -------------------------------------------------------------------------------- */

/* Compiles the prelude to bytecode once for the runtime's spawns (never fails the runtime). */
int ona__system_compile_prelude(ona_runtime *rt);
/* Creates a Lua system's state and runs its chunk (with the first spawn arg as `...`). `args`
 * (may be NULL) is moved in, also on failure. */
int ona__system_create_lua(ona_runtime *rt, const ona_spawn_desc *desc, const char *path,
                           ona_message *args, ona__system **out, char *err, size_t errsize);
int ona__system_create_native(ona_runtime *rt, const ona_system_desc *desc, ona__system **out);
/* Runs (or continues) a queued system's turn on the calling worker. Returns when the turn
 * finishes, parks or fails; the caller has set sys->run = RUN_RUNNING. Handles parking and
 * the requeue races itself and leaves `run` in its next state. */
void ona__system_run_turn(ona__system *sys, ona__worker *w);
/* The parked-sender list of a mailbox's owner. */
void ona__system_waiters_remove(ona__system *target, ona__system *sys);
ona__system *ona__system_waiters_pop(ona__system *target);
/* Pushes sys->outgoing into target's mailbox, moving its buffers; counts it and wakes the
 * target if it waits. 0 or ONA_EFULL (the message stays in outgoing, buffers still lent). */
int ona__system_deliver(ona__system *sys, ona__system *target);
/* Tries to deliver a parked send's message: 0, ONA_EFULL, ONA_EDEAD. */
int ona__system_flush_outgoing(ona__system *sys);
/* Closes a stopped system's Lua state (its memory goes back; the record stays). */
void ona__system_close_state(ona__system *sys);
/* Pushes the system's spawn args (their first value, or nil) onto L. Returns 0, or an error
 * with nothing pushed (ONA_ENOMEM, ONA_EDECODE). Does not raise, except Lua's own memory
 * errors while pushing. */
int ona__system_push_args(ona__system *sys, lua_State *L);
/* A copy of a message that holds no buffers (strings are shared). */
int ona__message_clone(ona_message *src, ona_message *dst);
/* Calls exit (if the system ever ran init), frees the state and mailbox. Main thread. */
void ona__system_destroy(ona__system *sys, bool call_exit);
/* Replaces a failed system's Lua state with a fresh one (chunk run again, init next turn). */
int ona__system_restart(ona__system *sys);
/* The system whose Lua state is L (from the allocator's user pointer). */
ona__system *ona__system_from_lua(lua_State *L);
void ona__system_fail(ona__system *sys, const char *what);

#endif
