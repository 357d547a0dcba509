/*
 * core.h: the actor core of a runtime: its systems and their registry, the scheduler's threads
 * and queues, the frame counter, the trace. Internal. It knows nothing of Lua, SDL or GL: the
 * library's top level (runtime/runtime.c) embeds an ona__core in the ona_runtime and drives it.
 *
 * Threads: main owns everything between frames and does every structural change there
 * (merging spawns, kills, stops, restarts, frees). During a frame, systems may spawn (any thread:
 * the registry and `pending` are locked), send, receive, park and ask for kills.
 */
#ifndef ONA_CORE_H
#define ONA_CORE_H

#include "actor.h"
#include "deque.h"
#include "monitor.h"
#include "registry.h"
#include "trace.h"

/* A thread that runs turns (index 0 is the main thread). */
/* The most frame list entries a thread claims at once, when the frame's turns are short. */
#define ONA__CLAIM_BATCH 16

typedef struct ona__worker {
    ona__core *core;
    uint32_t index;
    uv_thread_t thread;
    ona__deque deque;
    uint64_t steals;
    uint64_t busy_ns;        /* time in turns this frame */
    uint64_t runs;           /* turns (and resumes of parked ones) run this frame */
    ona__trace_buffer trace; /* slices of this frame, when tracing */
    uint32_t rng;
    /* Frame list entries claimed together (runq.c), run before anything else is claimed. */
    ona__system *batch[ONA__CLAIM_BATCH];
    uint32_t batch_next, batch_count;
    uint32_t finished; /* runs ended whose count `active` has not been told yet (scheduler.c) */
    /* Workers lie side by side in one array and each writes its own fields every run: the next
     * one's deque top (read by its owner every pop), and whatever the allocator put before or
     * after the array, must not share a line with them. */
    char pad_[ONA_CACHE_LINE];
} ona__worker;

/* What the core needs of ona_runtime_desc, defaults applied. */
typedef struct ona__core_desc {
    uint32_t threads, max_systems, mailbox_capacity, restart_limit, restart_backoff_frames;
    ona_failure_policy default_policy;
    /* Immediate delivery (ona_runtime_desc.delivery): messages go straight into mailboxes and
     * receives and full sends wait within the frame; false: ordered delivery (delivery.c). */
    bool immediate;
    /* Watching files (ona_runtime_desc.hot_reload): a failed system pauses, keeping its state and
     * its mailbox, until a reload resumes it, instead of its restart/stop policy (lifecycle.c). */
    bool pause_on_failure;
} ona__core_desc;

struct ona__services; /* runtime/services: what the hosts reach; the core never looks inside */

/* One item of a boundary job (ona__core_parallel): called once for each index, on any thread. */
typedef void (*ona__core_job_fn)(void *ctx, uint32_t index);

struct ona__core {
    ona__core_desc desc;
    uv_thread_t main_thread;
    /* The services of this runtime (set by the assembly after ona__core_init), which the hosts
     * reach from a system as sys->core->services. Opaque here. */
    struct ona__services *services;
    /* A recording is made or replayed (digest.h): turns fold their messages, draws and sounds
     * into their systems' digests. Set by the assembly at create, read-only after. */
    bool digesting;
    bool detailing; /* a replay: the first messages a system takes in a frame are kept as text */
    /* The hosts the assembly registered (actor.h, ONA__HOST_*; NULL: none in that slot) and the
     * per-runtime state each one's prepare made, opaque here. Main writes them at create and
     * destroy; any thread reads them in between. */
    const ona__host *hosts[ONA__HOST_SLOTS];
    void *host_state[ONA__HOST_SLOTS];

    /* Handles -> systems (registry.c); `pending` (spawned since the last boundary) shares the
     * registry's moment of insertion but has its own lock. */
    ona__registry registry;
    uv_mutex_t pending_lock;
    ona__system **pending;
    uint32_t pending_count, pending_capacity;
    atomic_uint spawn_seq;
    atomic_uint outside_spawns; /* spawns from outside any system's code */

    /* Systems in spawn order (main thread). */
    ona__system **systems;
    uint32_t system_count, system_capacity;
    ona__system **ending; /* scratch for the boundary: systems ending there */

    /* Scheduler (scheduler.c). */
    ona__worker *workers; /* [0] is main */
    uint32_t thread_count;
    ona__system **frame_list;
    uint32_t frame_list_cap;
    /* Positions only grow (entries live at pos % cap), so a thread holding a stale cursor can
     * never claim an old entry: see scheduler.c. */
    atomic_ullong frame_list_count;  /* entries published */
    atomic_ullong frame_list_cursor; /* entries claimed */
    atomic_int active;               /* systems queued or running this frame */
    atomic_bool frame_running;
    atomic_bool stopping;
    atomic_uint epoch;         /* eventcount: bumped whenever work appears or the frame ends */
    atomic_int sleepers;       /* workers waiting on sleep_cond */
    atomic_bool main_sleeping; /* main waiting on main_cond */
    uv_mutex_t sleep_lock;
    uv_cond_t sleep_cond;
    uv_cond_t main_cond;
    uint64_t last_busy_ns, last_runs;
    /* Threads claim frame list entries in batches this frame: its turns are expected to be short
     * (main's, set at the frame's start from the last frame's runs). */
    atomic_bool claim_batches;
    /* What lets main skip a pass over every system at the frame's end: how many systems were
     * left parked in send when the frame was queued (main's), and whether a turn parked in send
     * or kept an error to log during the frame (set by that turn, cleared by main). */
    uint32_t parked_senders;
    atomic_bool send_parked, failures_kept;
    /* A boundary job (ona__core_parallel): main writes fn, ctx and count while no helper is in
     * (`job_helpers` 0), then opens it; threads claim indices from `job_next`. */
    ona__core_job_fn job_fn;
    void *job_ctx;
    atomic_bool job_open;
    atomic_uint job_count, job_next, job_done;
    atomic_int job_helpers; /* workers inside the job (main waits for none before it returns) */

    ona__trace trace; /* `tracing` changes only between frames */
    bool tracing;     /* turn slices are recorded: a trace file is written or `timeline` is on */
    bool timeline;    /* the inspector reads the slices after each frame (trace.c) */

    /* Guards every system's monitor list (monitor.c): ona.monitor may run on any thread. */
    uv_mutex_t monitor_lock;

    /* The declared order (order.c). */
    ona__order order;
    uint64_t frame_start_ns;

    uint64_t frame;
    double dt;
    bool in_step;
    atomic_bool quit;

    /* Statistics. Messages sent from C and by systems since freed (main thread); live systems'
     * own counts are added when statistics are read, so sending touches no shared counter. */
    uint64_t messages, deadlocks;
};

/* --- lifecycle.c ----------------------------------------------------------------------------- */

int ona__core_init(ona__core *core, const ona__core_desc *desc);
/* Stops the threads and destroys every system (exit runs for those whose init ran). */
void ona__core_free(ona__core *core);
bool ona__core_on_main(const ona__core *core);

typedef struct ona__spawn {
    const char *name;
    const ona__order_ref *after; /* copied; checked for cycles */
    uint32_t after_count;
    const ona__host *host;
    void *host_data; /* owned by the system from a successful spawn on */
    uint32_t mailbox_capacity, restart_limit;
    ona_failure_policy policy;
} ona__spawn;

/* The system whose code runs on this thread (a turn, or a script's chunk at spawn), or NULL. Enter
 * returns the one before, which leave puts back. A spawn records it as the new system's spawner. */
ona__system *ona__core_running(void);
ona__system *ona__core_enter(ona__system *sys);
void ona__core_leave(ona__system *previous);
/* Main, at create, after ona__core_init: registers `host` in `slot` and runs its prepare (its
 * error, or 0). */
int ona__core_add_host(ona__core *core, int slot, const ona__host *host);
/* Main, between frames: each host's between_frames (actor.h). */
void ona__core_hosts_between_frames(ona__core *core);
/* Main, at destroy, after ona__core_free: releases every registered host's state. */
void ona__core_release_hosts(ona__core *core);
/* Any thread. Creates a system and registers it: it has a handle and can be messaged at once,
 * and gets its first turn in the next frame. ONA_ELIMIT when max_systems systems exist (`err`
 * names the limit), ONA_ENOMEM. */
int ona__core_spawn(ona__core *core, const ona__spawn *spawn, ona__system **out, char *err,
                    size_t errsize);
/* A spawn whose host could not start it (its script failed to load): it goes away at the next
 * boundary without running exit. The spawning thread, before anything ran it. */
void ona__core_abandon(ona__core *core, ona__system *sys);
/* Main, between frames: kills, failures (restart after a backoff, or stop), stops, frees, and
 * spawns merged into `systems`. */
void ona__core_boundary(ona__core *core);
/* Whether a failure of `sys` pauses it rather than applying its policy: watching is on and its
 * host can load new code (it has a reload; not a one-shot). Any thread (reads immutable fields). */
bool ona__core_pauses(const ona__core *core, const ona__system *sys);

/* retake.c: copies of what the running turn took, for its re-run after a failure (its note).
 * The turn's thread. _start at a new turn; _take hands the next kept copy to `inbox` (0) or
 * says none is left (ONA_EEMPTY); _keep copies a message just taken into `inbox`; _end as the
 * turn ends (kept when it failed and the system pauses); _free when the system goes. */
void ona__retake_start(ona__system *sys);
int ona__retake_take(ona__system *sys);
void ona__retake_keep(ona__system *sys);
void ona__retake_end(ona__system *sys, bool failed);
void ona__retake_free(ona__system *sys);
/* Main, between frames, after a successful reload of `sys`: a paused system runs again with its
 * state kept, its next turn a new one (init again if init failed). True when it was paused. */
bool ona__core_resume(ona__core *core, ona__system *sys);
/* Why `sys` does not drain its mailbox, as a clause after its name ("is paused by an error at
 * ball.lua:42 (save a fix to resume it)", "is restarting ...", "is itself waiting to send to
 * 'x'", "never receives ...", "has not asked for a message since frame N", "takes fewer ...").
 * `since` is the frame a sender started waiting on it (0: not asked). Main between frames, or a
 * sender while `sys` is paused or restarting (it runs no turn then). */
void ona__core_stall_reason(const ona__system *sys, uint64_t since, char *out, size_t size);
/* Main, between frames: merges pending spawns into `systems` (so they are listed at once). */
void ona__core_merge_pending(ona__core *core);
/* Validation of the fields spawn descs share; NULL when fine, else what is wrong. */
const char *ona__core_check_spawn(const char *name, uint32_t mailbox_capacity,
                                  ona_failure_policy policy);
/* The handle of the live system named `name` (one that can take messages), or 0. Any thread. */
uint64_t ona__core_lookup(ona__core *core, const char *name);
/* Asks the runtime to quit after this frame. Any thread. */
void ona__core_quit(ona__core *core);
/* Systems spawned since the last boundary and not merged yet (any thread). */
uint32_t ona__core_pending_count(ona__core *core);

/* --- scheduler.c ----------------------------------------------------------------------------- */

int ona__scheduler_start(ona__core *core);
void ona__scheduler_stop(ona__core *core);
/* Runs the turns of one frame on all threads until quiescence (main thread). */
void ona__scheduler_run_frame(ona__core *core);
/* Main, between frames: calls fn(ctx, i) for every i < count, spread over the runtime's threads
 * (main among them), and returns when all are done. The calls run with no frame and no
 * current worker queue (a system woken by one is queued for the next frame, as by main), each
 * on a thread with its own watchdog slot. With one thread, or few items, main runs them alone. */
void ona__core_parallel(ona__core *core, uint32_t count, ona__core_job_fn fn, void *ctx);
/* Whether a boundary job is open with items not yet claimed (a worker's wait looks). */
bool ona__core_job_left(ona__core *core);

/* --- runq.c ---------------------------------------------------------------------------------- */

/* Makes a parked system runnable if it is still in `expected`. Any thread in a frame; main
 * between frames (queue_frame picks it up). Returns true when this call woke it. */
bool ona__runq_wake(ona__core *core, ona__system *sys, int expected, ona__resume resume);
/* The index of the thread running turns on this thread (0 = main), or -1 outside turns. */
int ona__runq_thread_index(void);
/* Sets the index ona__runq_thread_index returns on this thread (a worker helping with a
 * boundary job without its queue: see ona__core_parallel). */
void ona__runq_set_index(int index);
/* The worker running on this thread during a frame (NULL elsewhere); set by the scheduler. */
ona__worker *ona__runq_current(void);
void ona__runq_set_current(ona__worker *w);
/* Work for this thread: its own deque, then the frame list, then a steal. NULL when none. */
ona__system *ona__runq_find(ona__core *core, ona__worker *w);
/* The calling thread in a frame: queues a system already QUEUED and counted in `active` (a
 * successor released by the order) on this thread's deque. */
void ona__runq_ready(ona__core *core, ona__system *sys);
/* Main only: appends a system to the frame list; `active` must already count it. */
void ona__runq_append(ona__core *core, ona__system *sys);
/* Wakes up to `n` sleeping threads (all, and main, when n < 0) after work appeared. */
void ona__runq_notify(ona__core *core, int n);
/* Wakes main alone: the frame reached quiescence on a worker. */
void ona__runq_notify_main(ona__core *core);
/* Sleeps until work may have appeared, the frame ended, or the runtime stops. */
void ona__runq_wait(ona__core *core, ona__worker *w);

/* --- trace.c --------------------------------------------------------------------------------- */

int ona__trace_begin(ona__core *core, const char *path);
int ona__trace_end(ona__core *core);
/* Writes the frame's recorded slices to the trace file, or clears them when only the timeline
 * records them (main, after the turns). */
void ona__trace_write_frame(ona__core *core, uint64_t frame_start_ns, uint64_t frame_end_ns);
/* Main, after a picture: its "draw" (draw_ns to swap_ns) and "present" (swap_ns to end_ns)
 * slices on main's track. */
void ona__trace_write_main(ona__core *core, uint64_t draw_ns, uint64_t swap_ns, uint64_t end_ns);

#endif
