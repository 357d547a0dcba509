/*
 * scheduler.c: the threads that run turns, and a frame from its start to its end at
 * quiescence. Where runnable systems wait and how idle threads sleep is runq.c.
 *
 * Design note.
 *  - Threads. N threads run turns: N-1 workers (uv_thread_create_ex, named "ona-worker-N", with
 *    8 MiB stacks) plus the main thread while it is inside ona_runtime_step. Worker 0 is main.
 *  - Quiescence. `active` counts systems queued or running. Every transition into the queued
 *    state increments it before the system becomes visible in a queue, and a thread decrements
 *    it only after it has finished touching the system, so `active == 0` means no thread can
 *    make more work: only main may then add some. Main, finding no work and active == 0, hands
 *    `nil` to every system parked in receive (receive returns nil at quiescence), and once none
 *    is left breaks cycles of systems parked in send on each other (a deadlock, reported by name;
 *    their sends fail). When neither applies the frame is over. Systems parked in send on a
 *    mailbox whose owner finished its turn stay parked into the next frame.
 *  - Tiny frames. Waking a sleeping thread costs microseconds, more than a small frame's whole
 *    work. So main wakes helpers at frame start only when the last frame's turns took long
 *    enough to be worth sharing (SHARE_THRESHOLD_NS of work per extra thread), counting what
 *    sharing costs per run (SHARE_COST_PER_RUN_NS: a thousand turns of 250 ns each were twice
 *    as slow shared as alone). A frame too small to share, or made of runs too short to share,
 *    runs on main alone and costs what a single thread would.
 *  - Boundary jobs. Between frames main may hand out independent items (the systems to ask about
 *    a changed file: ona__core_parallel) to the sleeping workers: it opens the job and wakes
 *    them, all claim indices from one counter, main waits for the done count, closes the job
 *    and waits for every helper to leave before the job's fields may change again. Helpers run
 *    items without their queue (what they wake is queued for the next frame, as by main) but
 *    keep their thread index, so the watchdog bounds each item in their slot.
 */
#include "core.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>

enum {
    SHARE_THRESHOLD_NS = 50000,
    /* What sharing a frame costs per run (a turn or a resume), on top of the run itself: the
     * contended claim of the frame list and the system's lines moving to the other core. The
     * bench_frames run of 2026-12-01 (1,000 idle Lua systems: 250 us a frame alone, 515 us
     * shared) puts it near 400 ns. */
    SHARE_COST_PER_RUN_NS = 400,
    /* A frame whose runs took less than this on average claims them in batches. */
    SHORT_RUN_NS = 2000,
};

/* A worker's stack: 8 MiB, the usual main-thread stack, so a turn has the same room on any thread.
 * The prelude bounds C nesting (coroutine resumes, gsub callbacks: 200 levels, each at most ~9 KB,
 * more under ASan) well inside it, so a runaway recursion is a Lua error, never a fault. The
 * memory is reserved, not committed: untouched pages cost nothing. */
#define ONA__WORKER_STACK ((size_t)8 << 20)

/* Tells `active` of the thread's ended runs. acq_rel: our work on those systems happens before
 * main's quiescence handling. The last run of the frame wakes main alone, and only when it ran
 * elsewhere: main finds active == 0 itself when it ran that turn. A thread tells before it looks
 * at `active` or waits for work, so the frame cannot end, nor main sleep, on an untold count. */
static void finish_runs(ona__core *core, ona__worker *w) {
    uint32_t n = w->finished;
    if (!n)
        return;
    w->finished = 0;
    if (atomic_fetch_sub_explicit(&core->active, (int)n, memory_order_acq_rel) == (int)n &&
        w->index != 0)
        ona__runq_notify_main(core);
}

/* Runs a system's turn, from t0: the end of the run just before on this thread when it went
 * straight on to this one (finding the system is then counted in its turn, ~tens of ns), else 0
 * and the clock is read. Returns the run's end: one clock read a run rather than two, which was
 * a sixth of an empty native turn. */
static uint64_t run_system(ona__core *core, ona__worker *w, ona__system *sys, uint64_t t0) {
    /* relaxed: we own the system (taken from a queue, which synchronised with its queuer). */
    ONA_ASSERT(atomic_load_explicit(&sys->run, memory_order_relaxed) == ONA__RUN_QUEUED);
    atomic_store_explicit(&sys->run, ONA__RUN_RUNNING, memory_order_relaxed);
    if (!t0)
        t0 = ona__now_ns();
    if (core->tracing && sys->park_start_ns) {
        ona__trace_record(&w->trace, sys, ONA__TRACE_PARKED, sys->park_start_ns, t0);
        sys->park_start_ns = 0;
    }
    uint64_t t1 = ona__actor_run_turn(sys, t0);
    w->busy_ns += t1 - t0;
    w->runs++;
    /* The system may be running elsewhere by now (it parked and was woken): `sys` is only used
     * as a name to look up when the trace is written, after the frame. */
    if (core->tracing)
        ona__trace_record(&w->trace, sys, ONA__TRACE_TURN, t0, t1);
    /* In a frame of short turns the count goes to `active` when the thread runs out of work
     * (finish_runs): one contended subtraction a batch rather than one a turn. */
    w->finished++;
    /* relaxed: a policy; the count is told before the thread waits either way. */
    if (!atomic_load_explicit(&core->claim_batches, memory_order_relaxed))
        finish_runs(core, w);
    return t1;
}

/* --- Threads --------------------------------------------------------------------------------- */

bool ona__core_job_left(ona__core *core) {
    /* seq_cst: pairs with main's open, after the epoch read of a thread about to sleep. The
     * counts are relaxed: a stale answer costs one look at the job (help_with_job decides). */
    return atomic_load_explicit(&core->job_open, memory_order_seq_cst) &&
           atomic_load_explicit(&core->job_next, memory_order_relaxed) <
               atomic_load_explicit(&core->job_count, memory_order_relaxed);
}

/* Claims and runs items of the open boundary job until none is left. */
static void run_job_items(ona__core *core) {
    uint32_t i;
    /* relaxed: the claim; the job's fields were published by the open (seq_cst) read before. */
    uint32_t count = atomic_load_explicit(&core->job_count, memory_order_relaxed);
    while ((i = atomic_fetch_add_explicit(&core->job_next, 1, memory_order_relaxed)) < count) {
        core->job_fn(core->job_ctx, i);
        /* release: the item's effects happen before main's acquire of the count. */
        atomic_fetch_add_explicit(&core->job_done, 1, memory_order_release);
    }
}

/* A worker's share of a boundary job. It counts itself in before it looks (seq_cst, like main's
 * close and count read): main either sees it in and waits, or closed the job before it looked,
 * so no helper reads the job's fields once main may change them. */
static void help_with_job(ona__core *core, ona__worker *w) {
    atomic_fetch_add_explicit(&core->job_helpers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&core->job_open, memory_order_seq_cst)) {
        ona__runq_set_current(NULL); /* between frames: no queue of its own, as main */
        ona__runq_set_index((int)w->index);
        run_job_items(core);
        ona__runq_set_current(w);
    }
    atomic_fetch_sub_explicit(&core->job_helpers, 1, memory_order_seq_cst);
}

void ona__core_parallel(ona__core *core, uint32_t count, ona__core_job_fn fn, void *ctx) {
    if (core->thread_count < 2 || count < 2 * core->thread_count) {
        for (uint32_t i = 0; i < count; i++)
            fn(ctx, i);
        return;
    }
    /* No helper is in (the last job waited for them all): the fields are main's to write. */
    core->job_fn = fn;
    core->job_ctx = ctx;
    atomic_store_explicit(&core->job_count, count, memory_order_relaxed);
    atomic_store_explicit(&core->job_next, 0, memory_order_relaxed);
    atomic_store_explicit(&core->job_done, 0, memory_order_relaxed);
    atomic_store_explicit(&core->job_open, true, memory_order_seq_cst);
    ona__runq_notify(core, -1);
    run_job_items(core);
    /* acquire: every item's effects, released by its thread's count. */
    while (atomic_load_explicit(&core->job_done, memory_order_acquire) < count)
        sched_yield();
    atomic_store_explicit(&core->job_open, false, memory_order_seq_cst);
    while (atomic_load_explicit(&core->job_helpers, memory_order_seq_cst) > 0)
        sched_yield();
}

static void worker_main(void *arg) {
    ona__worker *w = arg;
    ona__core *core = w->core;
    ona__runq_set_current(w);
    uint64_t t = 0; /* the end of the last run, while runs follow each other */
    while (!atomic_load_explicit(&core->stopping, memory_order_acquire)) {
        if (ona__core_job_left(core)) {
            help_with_job(core, w);
            continue;
        }
        ona__system *sys = NULL;
        if (atomic_load_explicit(&core->frame_running, memory_order_acquire))
            sys = ona__runq_find(core, w);
        if (sys) {
            t = run_system(core, w, sys, t);
        } else {
            t = 0;
            finish_runs(core, w);
            ona__runq_wait(core, w);
        }
    }
    ona__runq_set_current(NULL);
}

static void worker_entry(void *arg) {
    ona__worker *w = arg;
    char name[16];
    snprintf(name, sizeof name, "ona-worker-%u", w->index);
    pthread_setname_np(pthread_self(), name);
    worker_main(arg);
}

int ona__scheduler_start(ona__core *core) {
    uint32_t n = core->desc.threads;
    core->workers = ona__calloc(n, sizeof *core->workers);
    core->frame_list_cap = 3 * core->desc.max_systems + 16;
    core->frame_list = ona__calloc(core->frame_list_cap, sizeof *core->frame_list);
    if (!core->workers || !core->frame_list)
        return ONA_ENOMEM;
    atomic_init(&core->frame_list_count, 0);
    atomic_init(&core->frame_list_cursor, 0);
    atomic_init(&core->active, 0);
    atomic_init(&core->frame_running, false);
    atomic_init(&core->stopping, false);
    atomic_init(&core->epoch, 0);
    atomic_init(&core->sleepers, 0);
    atomic_init(&core->job_open, false);
    atomic_init(&core->job_count, 0);
    atomic_init(&core->job_next, 0);
    atomic_init(&core->job_done, 0);
    atomic_init(&core->job_helpers, 0);
    atomic_init(&core->send_parked, false);
    atomic_init(&core->claim_batches, false);
    atomic_init(&core->failures_kept, false);
    atomic_init(&core->main_sleeping, false);
    if (uv_mutex_init(&core->sleep_lock) || uv_cond_init(&core->sleep_cond) ||
        uv_cond_init(&core->main_cond))
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        ona__worker *w = &core->workers[i];
        w->index = i;
        w->rng = 2463534242u + i * 7919u;
        w->core = core;
        if (ona__deque_init(&w->deque, core->desc.max_systems))
            return ONA_ENOMEM;
    }
    core->thread_count = 1;
    for (uint32_t i = 1; i < n; i++) {
        uv_thread_options_t opts = {UV_THREAD_HAS_STACK_SIZE, ONA__WORKER_STACK};
        if (uv_thread_create_ex(&core->workers[i].thread, &opts, worker_entry, &core->workers[i]))
            return ONA_ETHREAD;
        core->thread_count = i + 1;
    }
    core->thread_count = n;
    return 0;
}

void ona__scheduler_stop(ona__core *core) {
    if (!core->workers)
        return;
    atomic_store_explicit(&core->stopping, true, memory_order_release);
    ona__runq_notify(core, -1);
    for (uint32_t i = 1; i < core->thread_count; i++)
        uv_thread_join(&core->workers[i].thread);
    for (uint32_t i = 0; i < core->desc.threads; i++) {
        ona__deque_free(&core->workers[i].deque);
        ona__trace_buffer_free(&core->workers[i].trace);
    }
    ona__free(core->workers);
    core->workers = NULL;
    ona__free(core->frame_list);
    core->frame_list = NULL;
    uv_mutex_destroy(&core->sleep_lock);
    uv_cond_destroy(&core->sleep_cond);
    uv_cond_destroy(&core->main_cond);
}

/* --- Quiescence ------------------------------------------------------------------------------ */

/* Hands nil to every system parked in receive. Returns how many were queued. All of them are
 * taken out of the parked state before any is published: were one published early, a worker
 * could run it while main is still in this loop, and its sends would wake a later receiver with
 * a message instead of its nil, so what a receiver sees would depend on timing. */
static uint32_t release_receivers(ona__core *core) {
    unsigned long long base = atomic_load_explicit(&core->frame_list_count, memory_order_relaxed);
    uint32_t n = 0;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        int expected = ONA__RUN_PARKED_RECV;
        /* relaxed: only a parked system can be taken (the CAS decides); skipping the others
         * saves a locked instruction a system. acq_rel: take ownership from the parker. */
        if (atomic_load_explicit(&sys->run, memory_order_relaxed) == ONA__RUN_PARKED_RECV &&
            atomic_compare_exchange_strong_explicit(&sys->run, &expected, ONA__RUN_QUEUED,
                                                    memory_order_acq_rel, memory_order_relaxed)) {
            sys->resume = ONA__RESUME_NIL;
            ONA_ASSERT(base + n - atomic_load_explicit(&core->frame_list_cursor,
                                                       memory_order_relaxed) <
                       core->frame_list_cap);
            core->frame_list[(base + n) % core->frame_list_cap] = sys;
            n++;
        }
    }
    if (n) {
        /* relaxed: active == 0 here and only main changes it now; published below. */
        atomic_fetch_add_explicit(&core->active, (int)n, memory_order_relaxed);
        /* release: threads that see the new count see the entries and their queued state. */
        atomic_store_explicit(&core->frame_list_count, base + n, memory_order_release);
    }
    return n;
}

/* Finds cycles of systems parked in send on each other and fails their sends. Returns how many
 * systems were queued. Each parked sender has one outgoing edge (its target), so following
 * edges from each unvisited system finds every cycle once. */
static uint32_t break_deadlocks(ona__core *core) {
    uint32_t queued = 0;
    /* relaxed: at quiescence, after every turn's release of `active`. */
    if (!core->parked_senders && !atomic_load_explicit(&core->send_parked, memory_order_relaxed))
        return 0; /* nobody waits to send: no cycle */
    for (uint32_t i = 0; i < core->system_count; i++)
        core->systems[i]->deadlock_mark = 0;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *start = core->systems[i];
        uint32_t walk = i + 1;
        ona__system *s = start;
        while (s && s->deadlock_mark == 0 &&
               atomic_load_explicit(&s->run, memory_order_acquire) == ONA__RUN_PARKED_SEND) {
            s->deadlock_mark = walk;
            s = ona__actor_resolve(core, s->send_target);
        }
        if (!s || s->deadlock_mark != walk)
            continue; /* reached a running, idle or earlier-visited system: no new cycle */
        /* s is on a cycle found in this walk: describe it, then fail every member's send. */
        char text[256];
        size_t len = 0;
        ona__system *c = s;
        do {
            int w = snprintf(text + len, sizeof text - len, "%s -> ", c->name);
            if (w > 0)
                len = ONA_MIN(sizeof text - 1, len + (size_t)w);
            c = ona__actor_resolve(core, c->send_target);
        } while (c && c != s);
        snprintf(text + len, sizeof text - len, "%s", s->name);
        ona_log(ONA_LOG_ERROR, "scheduler",
                "deadlock: %s (each waits to send to the next, whose mailbox is full); their "
                "sends fail",
                text);
        core->deadlocks++;
        c = s;
        do {
            ona__system *next = ona__actor_resolve(core, c->send_target);
            /* The cycle text is cut to fit; the full one is in the log above. */
            int cut = (int)sizeof c->wait_error - 80;
            snprintf(c->wait_error, sizeof c->wait_error,
                     "deadlock: %.*s (each waits to send to the next, whose mailbox is full)", cut,
                     text);
            if (next)
                ona__actor_waiters_remove(next, c);
            int expected = ONA__RUN_PARKED_SEND;
            if (atomic_compare_exchange_strong_explicit(&c->run, &expected, ONA__RUN_QUEUED,
                                                        memory_order_acq_rel,
                                                        memory_order_relaxed)) {
                c->resume = ONA__RESUME_SEND_FAILED;
                atomic_fetch_add_explicit(&core->active, 1, memory_order_relaxed);
                ona__runq_append(core, c);
                queued++;
            }
            c = next;
        } while (c && c != s);
    }
    return queued;
}

/* --- Long waits ------------------------------------------------------------------------------ */

enum {
    LONG_WAIT_FIRST = 30,   /* half a second at 60 frames a second */
    LONG_WAIT_FRAMES = 300, /* then every 5 s */
};

/* A sender parked on a full mailbox across many frames is waiting on a system that does not
 * drain it: say so, by name and with why (paused by an error at file:line, restarting, waiting
 * itself, never receiving, or slow), after LONG_WAIT_FIRST frames and then every
 * LONG_WAIT_FRAMES, so a game stalled on a deaf receiver is never silent. Counted in frames, not
 * seconds, so what a run logs does not depend on the machine's speed. Main, while queueing the
 * frame. */
static void warn_long_wait(ona__core *core, ona__system *sys, ona__system *target) {
    uint64_t waited = core->frame - sys->park_frame;
    if (waited != LONG_WAIT_FIRST &&
        (waited < LONG_WAIT_FRAMES || (waited - LONG_WAIT_FIRST) % LONG_WAIT_FRAMES != 0))
        return;
    char why[200];
    ona__core_stall_reason(target, sys->park_frame, why, sizeof why);
    ona_log(ONA_LOG_WARN, sys->name,
            "has waited %llu frames to send to '%s', whose mailbox is full (capacity %u): '%s' "
            "%s",
            (unsigned long long)waited, target->name, ona__mailbox_capacity(target->mailbox),
            target->name, why);
}

/* --- The frame ------------------------------------------------------------------------------- */

/* Whether a sleeping system (one with no per-frame work) has something to do this frame: its
 * init, or a message. A member of the order takes its turn in every frame it runs: what its
 * predecessors send it this frame is not there yet. */
static bool asleep_woken(ona__core *core, const ona__system *sys) {
    if (sys->needs_init || sys->order_index != ONA__ORDER_NONE)
        return true;
    return core->desc.immediate ? !ona__mailbox_is_empty(sys->mailbox)
                                : ona__delivery_waiting(sys);
}

/* Queues every system that gets a turn this frame, in spawn order, and publishes them.
 * `active` is set before the entries become visible: a thread still looking for work from the
 * last frame may claim one at once. */
static uint32_t queue_frame(ona__core *core) {
    unsigned long long base = atomic_load_explicit(&core->frame_list_count, memory_order_relaxed);
    uint32_t n = 0, listed = 0;
    core->parked_senders = 0;
    atomic_store_explicit(&core->send_parked, false, memory_order_relaxed);
    ona__order_update(core);
    core->frame_start_ns = ona__now_ns();
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        sys->nil_this_frame = false;
        sys->draw_seq = 0;
        if (sys->order_index != ONA__ORDER_NONE) {
            sys->order_runs = false;
            sys->order_wait_ns = 0;
        }
        if (sys->status != ONA_SYSTEM_RUNNING || sys->one_shot)
            continue;
        int run = atomic_load_explicit(&sys->run, memory_order_relaxed);
        if (run == ONA__RUN_IDLE) {
            if (!sys->turn_active) {
                if (sys->sleeps && !asleep_woken(core, sys))
                    continue; /* nothing to do this frame */
                sys->resume = ONA__RESUME_START;
                sys->turn_active = true;
            }
            /* else: resume was set to RESUME_CONTINUE when the turn yielded. */
        } else if (run == ONA__RUN_PARKED_SEND) {
            ona__system *target = ona__actor_resolve(core, sys->send_target);
            bool alive = target && target->status != ONA_SYSTEM_STOPPED;
            bool full = alive && (core->desc.immediate ? ona__mailbox_is_full(target->mailbox)
                                                       : ona__delivery_full(target));
            if (full) {
                warn_long_wait(core, sys, target);
                core->parked_senders++;
                continue; /* still waiting for room */
            }
            if (target)
                ona__actor_waiters_remove(target, sys);
            if (!alive)
                snprintf(sys->wait_error, sizeof sys->wait_error,
                         "the receiving system went away while this one waited for room in its "
                         "mailbox; the message was not sent");
            sys->resume = alive ? ONA__RESUME_SEND_READY : ONA__RESUME_SEND_FAILED;
        } else {
            /* Woken between frames (its resume is set); nothing else is possible here. */
            ONA_ASSERT(run == ONA__RUN_QUEUED);
        }
        atomic_store_explicit(&sys->run, ONA__RUN_QUEUED, memory_order_relaxed);
        n++;
        if (sys->order_index != ONA__ORDER_NONE) {
            sys->order_runs = true; /* listed below, or released by its predecessors */
            continue;
        }
        core->frame_list[(base + listed++) % core->frame_list_cap] = sys;
    }
    /* Members of the order wait for their running predecessors: queued and counted in `active`
     * now, listed only when none is left (order.c). */
    if (core->order.count) {
        ona__order_plan(core);
        for (uint32_t i = 0; i < core->order.count; i++) {
            ona__system *sys = core->order.members[i];
            if (sys->order_runs &&
                atomic_load_explicit(&sys->order_waiting, memory_order_relaxed) == 0)
                core->frame_list[(base + listed++) % core->frame_list_cap] = sys;
        }
    }
    /* relaxed: published by the release store of the count below. */
    atomic_store_explicit(&core->active, (int)n, memory_order_relaxed);
    /* release: threads that see the count see the entries, their queued state and `active`. */
    atomic_store_explicit(&core->frame_list_count, base + listed, memory_order_release);
    return listed;
}

void ona__scheduler_run_frame(ona__core *core) {
    ona__worker *w = &core->workers[0];
    ona__runq_set_current(w);
    for (uint32_t i = 0; i < core->thread_count; i++)
        core->workers[i].busy_ns = core->workers[i].runs = 0;
    /* Short turns (the last frame's mean) are claimed in batches: see runq.c. */
    bool batches = core->last_runs && core->last_busy_ns < core->last_runs * SHORT_RUN_NS;
    atomic_store_explicit(&core->claim_batches, batches, memory_order_relaxed);
    uint32_t n = queue_frame(core);
    atomic_store_explicit(&core->frame_running, true, memory_order_release);

/* Wake helpers only when last frame's work was worth sharing (see the file note). */
    uint32_t helpers = core->thread_count - 1;
    if (core->frame > 1) {
        /* The work sharing would save (half of it on 2 threads) against what it costs: shared,
         * a frame of T ns in R runs takes about T/2 + R * SHARE_COST_PER_RUN_NS. */
        uint64_t cost = 2 * core->last_runs * SHARE_COST_PER_RUN_NS;
        uint64_t gain = core->last_busy_ns > cost ? core->last_busy_ns - cost : 0;
        uint64_t worth = gain / SHARE_THRESHOLD_NS;
        if (worth < helpers)
            helpers = (uint32_t)worth;
    }
    if (n < 2)
        helpers = 0;
    else if (helpers > n - 1)
        helpers = n - 1;
    ona__runq_notify(core, (int)helpers);

    uint64_t t = 0; /* as in worker_main */
    for (;;) {
        ona__system *sys = ona__runq_find(core, w);
        if (sys) {
            t = run_system(core, w, sys, t);
            continue;
        }
        t = 0;
        finish_runs(core, w);
        if (atomic_load_explicit(&core->active, memory_order_acquire) == 0) {
            /* Ordered, a receive never waits: nobody is parked in it. */
            uint32_t woken = core->desc.immediate ? release_receivers(core) : 0;
            if (woken == 0)
                woken = break_deadlocks(core);
            if (woken == 0)
                break;
            if (woken > 1)
                ona__runq_notify(core, (int)ONA_MIN(woken - 1, core->thread_count - 1));
            continue;
        }
        ona__runq_wait(core, w);
    }
    atomic_store_explicit(&core->frame_running, false, memory_order_release);
    ona__actor_log_failures(core); /* the frame's errors, once per error */
    uint64_t busy = 0, runs = 0;
    for (uint32_t i = 0; i < core->thread_count; i++) {
        busy += core->workers[i].busy_ns;
        runs += core->workers[i].runs;
    }
    core->last_busy_ns = busy;
    core->last_runs = runs;
    ona__runq_set_current(NULL);
}
