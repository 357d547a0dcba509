/*
 * actor.h: a system (an actor) as the core sees it, and the one set of actor operations that Lua
 * systems, native systems and the C API all use: send, receive, park, wake, kill. Internal.
 *
 * The core knows nothing of Lua or drawing. What runs a system's turns is its *host*, a table of
 * functions (ona__host) with the host's own data in `host_data`: the Lua host lives in
 * bindings/, the native host (C callbacks) in runtime/native/. The core calls the host to run a
 * turn, restart, reload, close and destroy; the host calls the actor functions below.
 *
 * Who owns what:
 *  - The fields under "identity" never change after spawn: any thread may read them.
 *  - The fields under "turn" belong to whichever thread runs the system's turn (a system runs on
 *    at most one thread at a time; its `run` state is the lock), and to main between frames.
 *    The host reads and writes them during its turn.
 *  - The mailbox is shared (MPSC). The list of senders parked on this system's full mailbox is
 *    guarded by `waiters_lock`.
 *  - Everything under "scheduler" and "lifecycle" is the core's; hosts never touch it. The "hot"
 *    group gathers fields of every group for the cache-line layout; each says whose it is (hosts
 *    touch only the "turn" ones and the identity). `wake_pending`, `wake_dirty` and
 *    `pops_unchecked` are the turn's, kept by actor.c.
 */
#ifndef ONA_ACTOR_H
#define ONA_ACTOR_H

#include "ona/runtime.h"

#include "common.h"
#include "delivery.h"
#include "digest.h"
#include "mailbox.h"
#include "message.h"
#include "order.h"
#include "recent.h"

#include <stdatomic.h>
#include <uv.h>

typedef struct ona__system ona__system;
typedef struct ona__core ona__core;

/* A system's draw state, kept by the services (services/draw_transform.c): its draws go through
 * x' = a x + c y + tx, y' = b x + d y + ty and into `target` (a canvas, 0: the screen) unless a
 * draw names its own. The core only makes it the identity at spawn and at each new turn. */
typedef struct ona__draw_frame {
    float a, b, c, d, tx, ty;
    uint32_t target;
    bool identity; /* the transform is the identity: draws pass untouched */
    bool all;      /* a saved copy pushed with "all": its pop restores the target too */
} ona__draw_frame;

/* The identity transform, the screen as target. */
static inline void ona__draw_frame_reset(ona__draw_frame *f) {
    *f = (ona__draw_frame){.a = 1, .d = 1, .identity = true};
}

/* How a turn ended, as the host reports it. */
typedef enum ona__turn {
    ONA__TURN_DONE = 0,   /* finished normally */
    ONA__TURN_PARK_RECV,  /* waits for a message (ona.receive on an empty mailbox) */
    ONA__TURN_PARK_SEND,  /* waits for room: `outgoing` is for `send_target` (ona.send, full) */
    ONA__TURN_NEXT_FRAME, /* yielded: continue it next frame */
    ONA__TURN_FAILED,     /* raised or returned an error: ona__actor_fail was called */
} ona__turn;

/* Why the host is asked to run the system. */
typedef enum ona__resume {
    ONA__RESUME_START = 0, /* a new turn: (init, then) process */
    ONA__RESUME_CONTINUE,  /* the turn yielded last frame: continue it */
    ONA__RESUME_MESSAGE,   /* the parked receive got a message: it is in `inbox` (handed over) */
    ONA__RESUME_NIL,       /* quiescence: the parked receive returns nil */
    ONA__RESUME_SENT,      /* the parked send went through */
    ONA__RESUME_SEND_FAILED, /* the parked send cannot complete: `wait_error` says why */
    /* The core's own, never passed to a host: */
    ONA__RESUME_RECV_READY, /* a message may be waiting: take it, or park again */
    ONA__RESUME_SEND_READY, /* room may be free: retry the send, or park again */
} ona__resume;

/* A host's table. The assembly registers each host in a slot of the core at create
 * (ona__core.hosts) and the core keeps the host's per-runtime state beside it (host_state); the
 * core and the other host reach a host only through this table. */
typedef struct ona__host {
    const char *kind; /* "lua", "native" */
    /* Main, at runtime create (after the core, before any spawn): makes the host's per-runtime
     * state into *state (NULL when it needs none). 0, or an ONA_E* that fails the create. */
    int (*prepare)(ona__core *core, void **state);
    /* Main, at runtime destroy (after every system is gone): frees what prepare made. Also
     * called after a failed prepare, with what it left in *state (NULL when nothing). */
    void (*release)(ona__core *core, void *state);
    /* Any thread: makes a system from the host's own desc (the Lua host: ona_spawn_desc, its
     * script resolved under the script roots; the native host: ona_system_desc) and sets *out.
     * The desc is validated here; errors are logged and returned (ONA_EINVAL, ONA_ENOENT,
     * ONA_ELIMIT, ONA_ENOMEM, or the script's load error), with out->id 0 and a Lua desc's `args`
     * released in every case. The spawn is pending: main between frames merges it. */
    int (*spawn)(ona__core *core, const void *desc, ona_system *out);
    /* Runs or continues the turn on the calling thread. */
    ona__turn (*run)(ona__system *sys, ona__resume why);
    /* Main, between frames: a fresh state for a failed system (0, or an error it logged). */
    int (*restart)(ona__system *sys);
    /* Main, between frames: a watched file at `path` changed: >0 the system reloaded its code,
     * 0 `path` is not its file, <0 the reload failed (logged; the old code keeps running). NULL
     * for a host without files (native): its systems neither reload nor pause. */
    int (*reload)(ona__system *sys, const char *path);
    /* Main, between frames, before any reload of the changed file at `path`: 0 when the file
     * is complete code for this host (or not code of its kind), else <0 with `err` set to
     * "file:line: message" (a save caught mid-write, or a syntax error), or ONA_EBUSY for an
     * empty file (a save between truncating and writing): no system reloads it. NULL for a
     * host without files. */
    int (*check)(const char *path, char *err, size_t errsize);
    /* Main, between frames: frees the host data; runs the script's exit first when asked. */
    void (*destroy)(ona__system *sys, bool run_exit);
    /* Any time the system does not run: memory in use, its peak, its cap (0 = none). */
    void (*memory)(const ona__system *sys, size_t *used, size_t *peak, size_t *cap);
    /* Main, between frames, after the boundary: the host's own upkeep on its per-runtime state
     * (the Lua host builds states ahead for the next spawns). NULL when it has none. */
    void (*between_frames)(ona__core *core, void *state);
} ona__host;

/* The core's host slots (ona__core.hosts): the script host (Lua), the C systems' host. */
enum { ONA__HOST_SCRIPT = 0, ONA__HOST_NATIVE, ONA__HOST_SLOTS };

struct ona__system {
    /* --- hot: what every frame's passes (queue, quiescence, boundary), every turn and every
     * sender read, first and together: an empty turn of a system touches one or two of its
     * cache lines rather than five (with a thousand systems each line is a miss).
     * Nothing here is written per message: the owner writes it once a resume, senders only read
     * `run`, `status` and `kill_requested`, parking senders add to `waiter_count`. The padding
     * after the group keeps the per-message counters below (`messages_in`, `pops_unchecked`,
     * `wake_pending`) off its lines (the allocator promises malloc's alignment, not 64), so a
     * send does not miss on a line the receiver dirties with each pop. Each field keeps the owner
     * its group below names. --- */
    _Atomic int run;          /* scheduler: ONA__RUN_*, the only field other threads read unowned */
    ona__resume resume;       /* scheduler: written by whoever queues it */
    ona_system_status status; /* lifecycle */
    uint32_t draw_seq;        /* turn: submission number of its next draw this frame */
    atomic_uint waiter_count; /* scheduler: senders parked on its full mailbox (waiters_lock) */
    bool turn_active;         /* scheduler: a turn is in progress, maybe parked */
    bool needs_init;          /* turn: the next new turn calls init first */
    bool nil_this_frame;      /* turn: receive returned nil this frame: later empty ones do too */
    bool one_shot;            /* turn: a script whose chunk is its whole life: stopped once it ran */
    bool sleeps;              /* turn: it has no per-frame work (no process), so a frame gives it
                                 a turn only when a message waits for it (set by its host) */
    bool failed;              /* lifecycle: a turn failed; handled at the frame boundary */
    atomic_bool kill_requested; /* lifecycle */
    uint32_t order_index;       /* order: among the members, ONA__ORDER_NONE outside the order */
    ona__core *core;          /* identity */
    const ona__host *host;    /* identity */
    void *host_data;          /* identity */
    uint64_t turns, turn_ns_total, last_turn_ns, max_turn_ns; /* turn */
    char pad_hot_[ONA_CACHE_LINE];

    /* --- identity (immutable after spawn) --- */
    uint64_t id;          /* the handle */
    uint32_t spawn_order; /* deterministic merge and iteration order */
    char name[64];
    ona__mailbox *mailbox;

    /* --- turn (the thread running it; main between frames) --- */
    ona_message outgoing;  /* encoded by the host; waiting for room while parked in send */
    ona__moves moves;      /* the sender's buffer handles in `outgoing` */
    ona_message inbox;     /* the message being received (handed over by a wake) */
    uint64_t send_target;  /* where `outgoing` goes while parked in send */
    char wait_error[256];  /* why a parked send failed (ONA__RESUME_SEND_FAILED) */
    ona__recent *recent;   /* its last messages while the inspector watches it (recent.h), or
                              NULL; set and freed by main between frames */
    ona__draw_frame draw;        /* the transform and target its draws go through */
    ona__draw_frame *draw_saved; /* the pushed copies (ONA__DRAW_STACK), made at the first push */
    uint32_t draw_depth;         /* how many are pushed this turn */
    uint64_t parks, messages_in, messages_out;
    uint32_t restarts, errors;
    /* The receiver this turn last sent to (actor.c, "Deferred wakes"): woken at its first message
     * of the turn, and again, if more came (`wake_dirty`) and it is parked, when the turn ends,
     * parks, sends elsewhere or finds a mailbox full. */
    ona__system *wake_pending;
    bool wake_dirty;
    uint32_t pops_unchecked; /* messages taken since the parked senders were last looked at */
    uint32_t pops_per_check; /* capacity/2: how many pops between looks (set at spawn) */
    /* Copies of what this turn took, for a re-run after it fails (retake.c). */
    ona_message *kept;
    uint32_t kept_count, kept_cap, kept_next; /* kept_next: the next copy a re-run takes */
    bool keeping;                             /* the system pauses on failure: it keeps */

    /* --- scheduler (core) --- */
    ona__system *next_waiter;
    uint32_t deadlock_mark;
    uv_mutex_t waiters_lock;
    ona__system *waiters_head, *waiters_tail;
    uint64_t park_start_ns; /* when its turn last parked (for the trace), 0 when not parked */
    uint64_t park_frame;    /* the frame its turn last parked in send (the long-wait warning) */
    bool trace_named;       /* its parked track has its name in the trace */

    /* --- order (order.c): `after` is identity; the rest main's between frames, and during a
     * frame read by all, `order_waiting` counted down by predecessors, `order_done_frame` and
     * `order_wait_ns` the turn's --- */
    ona__order_ref *after;
    uint32_t after_count;
    uint32_t order_place; /* 1.. in a topological order of the members (statistics), 0 none */
    ona__system **order_direct;
    uint32_t order_direct_count, order_direct_cap;
    ona__system **order_succ; /* released when this one's part of the frame ends */
    uint32_t order_succ_count, order_succ_cap;
    atomic_uint order_waiting; /* running predecessors still in their part of this frame */
    bool order_runs;           /* it runs this frame (members only: others leave it false) */
    uint32_t order_visit;
    uint64_t order_done_frame;
    uint64_t order_wait_ns; /* how long into this frame its predecessors kept it waiting (0 for
                               a system outside the order) */

    /* --- delivery (delivery.c): the turn's; main between frames --- */
    ona__stage stage;
    ona__tally tally;

    /* --- record (digest.h): what its turns took and gave this frame while the runtime records
     * or replays; the turn's, read and cleared by main between frames --- */
    uint64_t digest[ONA__DIGEST_KINDS];
    uint32_t digest_count[ONA__DIGEST_KINDS];
    bool interrupted; /* a budget interrupt ended one of its runs this frame (its own thread) */
    /* The first ONA__DETAIL_MESSAGES messages taken this frame: sender's spawn order + 1 (0:
     * from C) and the low half of each one's digest; while replaying (`detailing`) their text
     * too, ONA__DETAIL_TEXT bytes each, allocated at the first (freed with the system). */
    uint32_t detail_from[ONA__DETAIL_MESSAGES], detail_hash[ONA__DETAIL_MESSAGES];
    char *detail_text;

    /* --- lifecycle (core; main between frames, `failed` by the running thread) --- */
    /* Who spawned it (the system whose code ran on the spawning thread, NULL outside any) and
     * its number among that spawner's children (or among spawns from outside): the merge gives
     * spawn orders from these, so they are the same on any thread count. `spawn_parent` is only
     * read at the merge that follows the spawn. `children` is the running thread's. */
    ona__system *spawn_parent;
    uint32_t spawn_nth, children;
    bool merged;
    ona_failure_policy policy;
    uint32_t restart_limit;
    uint64_t restart_frame;
    /* The first line of the error that failed its last turn ("ball.lua:42: ..."), written by
     * the failing turn (ona__actor_fail), read by main between frames; why it ended, written by
     * main where its end is decided ("" until then). */
    char fail_reason[256];
    char end_reason[128];
    /* The whole error text of a turn that failed in this frame, waiting for main to log it after
     * the turns (ona__actor_log_failures), with the hash and length of its first line, which
     * systems failing alike share: the failing turn writes them, main frees the text. */
    char *fail_log;
    uint64_t fail_key_hash;
    size_t fail_key_len;
    /* The frame of its last receive (0: it never asked for a message); the turn's, read by main
     * between frames to say why its mailbox does not drain. */
    uint64_t receive_frame;

    /* --- monitors (monitor.c): the systems told of its lifecycle, under the core's
     * monitor_lock; main reads them between frames --- */
    uint64_t *monitors;
    uint32_t monitor_count, monitor_cap;
};

/* Folds one item of `kind` (ONA__DIGEST_*) into the system's digest of this frame. The
 * system's own turn only; callers check `core->digesting` first. */
static inline void ona__system_digest(ona__system *sys, int kind, uint64_t what) {
    sys->digest[kind] = ona__digest_word(sys->digest[kind] ? sys->digest[kind] : ONA__DIGEST_SEED,
                                         what);
    sys->digest_count[kind]++;
}

/* Scheduler states (`run`). Transitions out of the PARKED states race between the parking thread
 * and wakers, so they are CASes. */
enum {
    ONA__RUN_IDLE = 0,    /* no turn queued or running */
    ONA__RUN_QUEUED,      /* in a run queue or the frame list */
    ONA__RUN_RUNNING,     /* a thread runs its turn */
    ONA__RUN_PARKED_RECV, /* its turn waits for a message */
    ONA__RUN_PARKED_SEND, /* its turn waits for room in `send_target`'s mailbox */
};

/* The live system behind a handle, or NULL. Any thread; the pointer stays valid to the end of the
 * frame (systems are freed only at frame boundaries). */
ona__system *ona__actor_resolve(ona__core *core, uint64_t handle);

/* Sends `m` from `from` (NULL: from C outside any system) to `to` without waiting. On success the
 * message is in the mailbox (`m` is empty again; buffers lent by `moves`, if any, are moved) and
 * a parked receiver is woken with it: at once when `from` is NULL or outside a frame, else when
 * `from`'s turn ends or parks, when it sends to another system, or when a send finds a mailbox
 * full (actor.c, "Deferred wakes"). Errors: ONA_ESTALE (no such system; `why` says so),
 * ONA_EDEAD (stopped, killed or dying; `why` names it), ONA_EFULL (`m` untouched, buffers still
 * lent, `why` not written). `why` may be NULL. Any thread in a frame; main between frames. */
int ona__actor_send(ona__core *core, ona__system *from, uint64_t to, ona_message *m,
                    ona__moves *moves, char *why, size_t whysize);
/* Takes the next message into sys->inbox (releasing the previous one). Senders parked on sys's
 * full mailbox are woken after every capacity/2 messages taken and when the turn ends (actor.c,
 * "Deferred wakes"). 0 or ONA_EEMPTY. The system's own turn only. */
int ona__actor_receive(ona__system *sys);
/* Asks for a system's end at the next frame boundary (its exit runs then). ONA_ESTALE. */
int ona__actor_kill(ona__core *core, uint64_t handle);
/* Marks the running turn failed and logs `what` under the system's name: inside a frame, after
 * its turns (returns true: grouped with systems failing alike, and the pause that follows
 * announced there); outside one, or out of memory, at once (returns false). */
bool ona__actor_fail(ona__system *sys, const char *what);
/* Main, after a frame's turns: logs the errors of the turns that failed in it, once per error:
 * systems whose errors have the same first line (one module's bug hit by several systems) share
 * one line naming them all, with the first one's whole text. */
void ona__actor_log_failures(ona__core *core);
/* True when the system is running its turn (so it may park). */
bool ona__actor_in_turn(const ona__system *sys);
/* Can `target` still take messages (not stopped, not being killed)? */
bool ona__actor_alive(const ona__system *target);

/* Sends up to `n` messages from `from` (in a turn) to `to` with one reservation in the mailbox:
 * msgs[0..*sent) are moved in order (each is empty again), the rest are untouched. Returns 0
 * when all went, ONA_EFULL when the mailbox took fewer (maybe none), or the refusals of
 * ona__actor_send (nothing sent). Same wake as ona__actor_send. */
int ona__actor_send_many(ona__core *core, ona__system *from, uint64_t to, ona_message *msgs,
                         uint32_t n, uint32_t *sent);
/* Performs the turn's deferred wakes: the receiver it sent to, the senders parked on its own
 * mailbox. Called where every turn ends (ona__actor_run_turn); the turn's thread only. */
void ona__actor_flush_wakes(ona__system *sys);

/* Runs (or continues) a queued system's turn on the calling thread, handling parking and its
 * races; leaves `run` in its next state. Scheduler only. `t0` is ona__now_ns() read just before;
 * returns the clock at the end (each resume reads the clock once: an empty turn's clock reads
 * were ~10% of it on a KVM guest). */
uint64_t ona__actor_run_turn(ona__system *sys, uint64_t t0);
/* Waiter lists (core only). */
void ona__actor_waiters_remove(ona__system *target, ona__system *sys);

#endif
