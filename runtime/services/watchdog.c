/*
 * watchdog.c: the turn budget (watchdog.h). A thread, "ona-watchdog", wakes every 10 ms, finds
 * the runs of system code that are past their budget, and interrupts them or names them.
 *
 * Design note.
 *  - One slot per thread running turns (main is slot 0, also between frames). The thread that
 *    runs system code is the slot's owner; the watchdog only reads what the owner published, and
 *    may *claim* a slot to look at its run. A slot's `state` is the protocol:
 *      IDLE -> RUNNING (owner, begin; release store publishes the scope and its deadline)
 *      RUNNING -> IDLE (owner, end: a CAS, the fast path; no lock)
 *      RUNNING -> CLAIMED -> RUNNING | ARMED (watchdog, under `lock`)
 *      ARMED -> IDLE (owner, end: under `lock`, after disarming)
 *    While a slot is CLAIMED or ARMED its run cannot end without `lock`, which the watchdog holds
 *    for its whole scan, so the scope, the system's name and the interrupt's target (a lua_State)
 *    stay valid while the watchdog uses them. An ending owner that finds the slot claimed waits
 *    on the lock for the scan to finish: the only time a turn waits for the watchdog.
 *  - The deadline is also kept in an atomic of the slot so that the watchdog claims only runs
 *    that look late; a stale deadline read (the run ended and another began) only costs a claim
 *    that finds the newer run in time and gives it back.
 *  - Interrupting is the host's business (the Lua host sets a count hook that raises the budget
 *    error, bindings/lua_turn.c). A run that stays past its budget 100 ms after it was
 *    interrupted, or that has no interrupt at all (native systems), is named in the log at once
 *    and then once a second until it ends. With the bundled LuaJIT (built with
 *    LUAJIT_ENABLE_CHECKHOOK, cmake/luajit.cmake) that is a Lua run inside a long C function or
 *    FFI call, interrupted when it returns; with the system's (-DONA_LUAJIT=system, no
 *    CHECKHOOK) also a JIT-compiled loop, which never reaches the hook. The report says which
 *    (ONA_LUAJIT_CHECKHOOK, a compile definition of the build).
 *  - Turns publish with two atomic stores and one CAS; nothing on the turn path takes a lock
 *    unless its run was interrupted. A run's start is read from CLOCK_MONOTONIC_COARSE (a few ns
 *    where the precise clock costs ~30 ns, a measurable share of an empty turn; see
 *    benchmarks/results/budget.md) plus that clock's resolution (a few ms), so a run is never
 *    stopped before its budget and at most a resolution after it.
 *  - The watchdog sleeps until the earliest deadline it saw, or a tick at most, so a run is
 *    interrupted soon after its budget rather than up to a tick later. The tick is a tenth of
 *    the smallest budget published so far (1-100 ms; 100 ms with the default 1 s budget): a run
 *    that begins just after a look is seen by the next one, at most a tenth of its budget late
 *    (10 ms before the first run; the first run of a new, smaller budget: at most the sleep in
 *    progress, <= 100 ms: bench_budget's 20 ms runs once saw 79 ms that way). A fixed
 *    10 ms tick woke the thread ~100 times a second whether turns ran or not, ~0.6% of a core
 *    on a KVM guest, taken from llvmpipe's rasteriser threads (bunnymark).
 *  - A turn may also have a slice (watch.slice_ns, the Lua host's budget share): past it, and
 *    once its thread has used slice_cpu_ns more of CPU time (read through the thread's CPU
 *    clock, only for runs already late), the watchdog calls `preempt` (the host suspends the
 *    turn where it can), again every 10 ms until the run ends, and watches it for its budget;
 *    an interrupted run is interrupted again at each look too (a hook set from this thread can
 *    be lost by the VM). The CPU evidence
 *    keeps a turn that is late only because the machine is busy whole. A run asked to step
 *    aside is not armed: it ends by the fast path, and its own thread disarms the hook
 *    (scope->preempted, ordered by the end's CAS).
 *    Once a slice shorter than the tick was published (a turn continued after stepping aside
 *    gets 10 ms), the watchdog looks at least that often, so later slices end within two.
 */
#include "watchdog.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef ONA_LUAJIT_CHECKHOOK
#error "ONA_LUAJIT_CHECKHOOK is a compile definition of the build (cmake/luajit.cmake)"
#endif

enum { SLOT_IDLE = 0, SLOT_RUNNING, SLOT_CLAIMED, SLOT_ARMED };

#define TICK_MIN_NS 1000000ull        /* the watchdog looks at least this far apart */
#define TICK_MAX_NS 100000000ull      /* and at most this far apart */
#define TICK_FIRST_NS 10000000ull     /* before any budget was published */
#define REPORT_EVERY_NS 1000000000ull /* naming a run that cannot be stopped */
#define STUCK_AFTER_NS 100000000ull   /* an interrupted run still going is stuck */
#define MIN_WAIT_NS 200000ull         /* the shortest sleep (a deadline that is due) */
#define ASK_AGAIN_NS 10000000ull      /* a run asked to step aside or stop, asked again */

typedef struct slot {
    atomic_int state;
    atomic_ullong deadline_ns;
    ona__watch_scope *scope; /* published by the RUNNING store; read by a claimer */
    /* The owner thread's CPU clock, set by its first begin (before the RUNNING store). */
    clockid_t cpu_clock;
    bool has_cpu_clock;
    /* The watchdog's own. */
    uint64_t armed_ns, last_report_ns, report_run;
    /* The run whose CPU time is being watched past its wall share (its slice deadline names it),
     * and its thread's CPU clock when the watch began. */
    uint64_t cpu_run, cpu_mark_ns;
    /* Slots of different threads never share a cache line (ona__calloc does not align to one,
     * so padding rather than _Alignas). */
    char pad[ONA_CACHE_LINE];
} slot;

struct ona__watchdog {
    ona__core *core;
    uint32_t slot_count;
    slot *slots;
    uv_thread_t thread;
    uv_mutex_t lock;
    uv_cond_t cond;
    bool stop;          /* under lock */
    uint64_t coarse_ns; /* CLOCK_MONOTONIC_COARSE's resolution */
    /* The smallest budget published so far (UINT64_MAX: none): the watchdog looks every tenth
     * of it (see the design note). */
    atomic_ullong min_budget_ns;
    /* The smallest slice published so far (UINT64_MAX: none): the watchdog looks at least that
     * often, so a turn steps aside within two slices. */
    atomic_ullong min_slice_ns;
};

static _Thread_local ona__watch_scope *current;

/* The start of a run: the coarse clock plus its resolution, never before the real start (see the
 * design note). */
static uint64_t start_ns(const ona__watchdog *wd) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + wd->coarse_ns;
}

ona__watch_scope *ona__watchdog_current(void) {
    return current;
}

/* --- The publishing side --------------------------------------------------------------------- */

/* The earliest time the watchdog has something to do for the run: its budget's end, or its
 * slice's while it was not asked to step aside yet. */
static uint64_t deadline_of(const ona__watch_scope *scope) {
    uint64_t deadline = scope->started_ns + scope->watch.budget_ns;
    if (scope->watch.preempt && !scope->preempted && scope->slice_deadline_ns < deadline)
        deadline = scope->slice_deadline_ns;
    return deadline;
}

static void publish(ona__watchdog *wd, int index, ona__watch_scope *scope) {
    slot *s = &wd->slots[index];
    s->scope = scope;
    /* relaxed: read only as a hint; the state's release store below orders it. */
    atomic_store_explicit(&s->deadline_ns, deadline_of(scope), memory_order_relaxed);
    /* release: a claimer that sees RUNNING sees the scope. */
    atomic_store_explicit(&s->state, SLOT_RUNNING, memory_order_release);
}

static void unpublish(ona__watchdog *wd, int index, ona__watch_scope *scope) {
    slot *s = &wd->slots[index];
    int expected = SLOT_RUNNING;
    /* acq_rel: takes the slot back from the watchdog's last release (its reads of the scope are
     * done) and gives it up in one step. */
    if (atomic_compare_exchange_strong_explicit(&s->state, &expected, SLOT_IDLE,
                                                memory_order_acq_rel, memory_order_acquire))
        return;
    /* Claimed (a scan is looking at it) or armed: wait for the scan, then disarm. */
    uv_mutex_lock(&wd->lock);
    /* relaxed: the lock orders it against the watchdog's writes. */
    if (atomic_load_explicit(&s->state, memory_order_relaxed) == SLOT_ARMED && scope->watch.disarm)
        scope->watch.disarm(scope->watch.target);
    /* relaxed: under the lock, which the next claimer takes. */
    atomic_store_explicit(&s->state, SLOT_IDLE, memory_order_relaxed);
    uv_mutex_unlock(&wd->lock);
}

void ona__watchdog_begin(ona__watchdog *wd, const ona__watch *watch, ona__watch_scope *scope) {
    scope->wd = wd;
    scope->slot = -1;
    scope->raised = false;
    scope->preempted = false;
    scope->message[0] = '\0';
    if (!wd || !watch->budget_ns)
        return;
    /* relaxed: a hint for the watchdog's sleep; a lost race is redone by the next begin. Read
     * (not written) on nearly every turn, so the line stays shared. */
    if (watch->budget_ns < atomic_load_explicit(&wd->min_budget_ns, memory_order_relaxed))
        atomic_store_explicit(&wd->min_budget_ns, watch->budget_ns, memory_order_relaxed);
    if (watch->preempt && watch->slice_ns &&
        watch->slice_ns < atomic_load_explicit(&wd->min_slice_ns, memory_order_relaxed))
        atomic_store_explicit(&wd->min_slice_ns, watch->slice_ns, memory_order_relaxed);
    int index = ona__runq_thread_index();
    if (index < 0 && ona__core_on_main(wd->core))
        index = 0;
    if (index < 0 || (uint32_t)index >= wd->slot_count)
        return;
    if (watch != &scope->watch) /* the Lua host describes its runs in place */
        scope->watch = *watch;
    scope->slot = index;
    scope->outer = current;
    slot *own = &wd->slots[index];
    if (!own->has_cpu_clock) /* once per thread: read by the watchdog after the RUNNING store */
        own->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &own->cpu_clock) == 0;
    /* The outer run waits while this one runs (an outer run of another runtime on the same
     * thread has its own slot there and keeps it). */
    if (current && current->wd == wd && current->slot == index)
        unpublish(wd, index, current);
    uint64_t now = start_ns(wd);
    scope->started_ns = scope->watch.since_ns ? scope->watch.since_ns : now;
    scope->slice_deadline_ns = now + scope->watch.slice_ns;
    publish(wd, index, scope);
    current = scope;
}

void ona__watchdog_end(ona__watch_scope *scope) {
    if (scope->slot < 0)
        return;
    ona__watchdog *wd = scope->wd;
    unpublish(wd, scope->slot, scope);
    /* Asked to step aside: its hook is still set (unpublish disarms only an interrupted run). */
    if (scope->preempted && scope->watch.disarm)
        scope->watch.disarm(scope->watch.target);
    current = scope->outer;
    if (current && current->wd == wd && current->slot == scope->slot) {
        /* The outer run was paused: the inner one's time is not its own. */
        uint64_t inner = start_ns(wd) - scope->started_ns;
        current->started_ns += inner;
        current->slice_deadline_ns += inner;
        publish(wd, scope->slot, current);
    }
    scope->slot = -1;
}

/* --- The watchdog thread --------------------------------------------------------------------- */

static const char *base_name(const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* Formats the report of a run that cannot be stopped. Called with the slot claimed or armed. */
static void stuck_report(const ona__watch_scope *scope, uint64_t now, char *who, size_t whosize,
                         char *text, size_t size) {
    snprintf(who, whosize, "%s", scope->watch.system);
    unsigned long long ms = (now - scope->started_ns) / 1000000u;
    if (scope->watch.interrupt)
        snprintf(text, size,
#if ONA_LUAJIT_CHECKHOOK
                 "runaway %s: %llu ms in %s, not interrupted yet (a C function or FFI call is "
                 "interrupted when it returns)",
#else
                 "runaway %s: %llu ms in %s, cannot be interrupted (LuaJIT without CHECKHOOK: a "
                 "JIT-compiled loop never reaches the hook)",
#endif
                 scope->watch.what, ms, scope->watch.script ? base_name(scope->watch.script) : "?");
    else
        snprintf(text, size, "runaway %s: %llu ms in native code, cannot be interrupted",
                 scope->watch.what, ms);
}

/* The CPU time the slot's thread has used, or UINT64_MAX when it cannot be read. */
static uint64_t thread_cpu_ns(const slot *s) {
    struct timespec ts;
    if (!s->has_cpu_clock || clock_gettime(s->cpu_clock, &ts) != 0)
        return UINT64_MAX;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Whether a run past its slice deadline (claimed) is to step aside now: once its thread has also
 * used slice_cpu_ns of CPU since the watchdog first found it late, so that a turn late because
 * the machine is busy, not because it computes, is never split. Sets the next look in
 * `*next_look`. */
static bool slice_due(slot *s, const ona__watch_scope *scope, uint64_t now, uint64_t *next_look) {
    uint64_t need = scope->watch.slice_cpu_ns;
    if (!need)
        return true;
    uint64_t cpu = thread_cpu_ns(s);
    if (cpu == UINT64_MAX)
        return true; /* no CPU clock: wall time alone */
    if (s->cpu_run != scope->slice_deadline_ns) {
        s->cpu_run = scope->slice_deadline_ns;
        s->cpu_mark_ns = cpu;
        *next_look = now + need;
        return false;
    }
    uint64_t used = cpu - s->cpu_mark_ns;
    if (used >= need)
        return true;
    *next_look = now + (need - used);
    return false;
}

/* Looks at one slot (under `lock`). Fills who/text when a report is due. */
static bool check_slot(slot *s, uint64_t now, char *who, size_t whosize, char *text, size_t size) {
    /* acquire: pairs with the owner's release of RUNNING (the deadline is a hint anyway). */
    int state = atomic_load_explicit(&s->state, memory_order_acquire);
    if (state == SLOT_ARMED) {
        /* It cannot end while we hold the lock: its scope is valid. Interrupted again at each
         * look (see ASK_AGAIN_NS below: a hook set from this thread can be lost). */
        if (now - s->armed_ns >= ASK_AGAIN_NS)
            s->scope->watch.interrupt(s->scope->watch.target);
        if (now - s->armed_ns < STUCK_AFTER_NS || now - s->last_report_ns < REPORT_EVERY_NS)
            return false;
        s->last_report_ns = now;
        stuck_report(s->scope, now, who, whosize, text, size);
        return true;
    }
    /* relaxed: a hint; the claim below decides. */
    if (state != SLOT_RUNNING || now < atomic_load_explicit(&s->deadline_ns, memory_order_relaxed))
        return false;
    int expected = SLOT_RUNNING;
    /* acq_rel: acquire the owner's scope; pairs with the owner's CAS in unpublish. */
    if (!atomic_compare_exchange_strong_explicit(&s->state, &expected, SLOT_CLAIMED,
                                                 memory_order_acq_rel, memory_order_relaxed))
        return false;
    ona__watch_scope *scope = s->scope;
    bool report = false;
    int next = SLOT_RUNNING;
    /* Not `now - started`: a run begun during this scan may have started after `now`. */
    if (scope->started_ns + scope->watch.budget_ns > now) {
        uint64_t next_look = 0;
        if (scope->watch.preempt && scope->slice_deadline_ns <= now) {
            if (scope->preempted || slice_due(s, scope, now, &next_look)) {
                /* Asked to step aside, and asked again every ASK_AGAIN_NS until the run ends
                 * (or its budget does): the VM can lose a hook set from another thread, as
                 * LuaJIT's dispatch update for a hook races with its own when it starts or
                 * stops recording a trace; setting it twice is harmless. */
                scope->watch.preempt(scope->watch.target);
                scope->preempted = true;
                next_look = now + ASK_AGAIN_NS;
            }
            uint64_t deadline = deadline_of(scope);
            if (next_look && next_look < deadline)
                deadline = next_look;
            /* relaxed: a hint, as in publish; the release store below orders it. */
            atomic_store_explicit(&s->deadline_ns, deadline, memory_order_relaxed);
        }
    } else {
        if (scope->watch.interrupt) {
            scope->watch.interrupt(scope->watch.target);
            s->armed_ns = now;
            s->last_report_ns = 0;
            next = SLOT_ARMED;
        } else {
            if (s->report_run != scope->started_ns) {
                s->report_run = scope->started_ns;
                s->last_report_ns = 0;
            }
            if (now - s->last_report_ns >= REPORT_EVERY_NS) {
                s->last_report_ns = now;
                stuck_report(scope, now, who, whosize, text, size);
                report = true;
            }
        }
    }
    /* release: the owner's acquiring CAS sees what interrupt() wrote. */
    atomic_store_explicit(&s->state, next, memory_order_release);
    return report;
}

/* How long the watchdog sleeps between looks when no deadline is nearer: a tenth of the smallest
 * budget published, within [TICK_MIN_NS, TICK_MAX_NS]; TICK_FIRST_NS until a budget is. */
static uint64_t tick_ns(ona__watchdog *wd) {
    /* relaxed: a hint (see min_budget_ns). */
    uint64_t min_budget = atomic_load_explicit(&wd->min_budget_ns, memory_order_relaxed);
    if (min_budget == UINT64_MAX)
        return TICK_FIRST_NS;
    uint64_t tick = ONA_MIN(min_budget / 10, TICK_MAX_NS);
    tick = ONA_MIN(tick, atomic_load_explicit(&wd->min_slice_ns, memory_order_relaxed));
    return ONA_MAX(tick, TICK_MIN_NS);
}

static void watchdog_main(void *arg) {
    ona__watchdog *wd = arg;
    pthread_setname_np(pthread_self(), "ona-watchdog");
    uv_mutex_lock(&wd->lock);
    uint64_t wait = tick_ns(wd);
    while (!wd->stop) {
        (void)uv_cond_timedwait(&wd->cond, &wd->lock, wait);
        if (wd->stop)
            break;
        uint64_t now = ona__now_ns();
        wait = tick_ns(wd);
        for (uint32_t i = 0; i < wd->slot_count; i++) {
            slot *s = &wd->slots[i];
            char who[64], text[320];
            if (check_slot(s, now, who, sizeof who, text, sizeof text))
                ona_log(ONA_LOG_ERROR, who, "%s", text);
            /* relaxed: hints for how long to sleep; a run begun later is caught a tick later. */
            if (atomic_load_explicit(&s->state, memory_order_relaxed) == SLOT_RUNNING) {
                uint64_t deadline = atomic_load_explicit(&s->deadline_ns, memory_order_relaxed);
                if (deadline > now && deadline - now < wait)
                    wait = deadline - now;
            }
        }
        wait = ONA_MAX(wait, MIN_WAIT_NS);
    }
    uv_mutex_unlock(&wd->lock);
}

int ona__watchdog_start(ona__core *core, ona__watchdog **out) {
    *out = NULL;
    ona__watchdog *wd = ona__calloc(1, sizeof *wd);
    if (!wd)
        return ONA_ENOMEM;
    wd->core = core;
    atomic_init(&wd->min_budget_ns, UINT64_MAX);
    atomic_init(&wd->min_slice_ns, UINT64_MAX);
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0)
        wd->coarse_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
    wd->slot_count = core->desc.threads;
    wd->slots = ona__calloc(wd->slot_count, sizeof *wd->slots);
    if (!wd->slots) {
        ona__free(wd);
        return ONA_ENOMEM;
    }
    if (uv_mutex_init(&wd->lock) || uv_cond_init(&wd->cond)) {
        ona__free(wd->slots);
        ona__free(wd);
        return ONA_EIO;
    }
    if (uv_thread_create(&wd->thread, watchdog_main, wd)) {
        uv_cond_destroy(&wd->cond);
        uv_mutex_destroy(&wd->lock);
        ona__free(wd->slots);
        ona__free(wd);
        return ONA_EIO;
    }
    *out = wd;
    return 0;
}

void ona__watchdog_stop(ona__watchdog *wd) {
    if (!wd)
        return;
    uv_mutex_lock(&wd->lock);
    wd->stop = true;
    uv_cond_signal(&wd->cond);
    uv_mutex_unlock(&wd->lock);
    uv_thread_join(&wd->thread);
    uv_cond_destroy(&wd->cond);
    uv_mutex_destroy(&wd->lock);
    ona__free(wd->slots);
    ona__free(wd);
}
