/*
 * runq.c: where runnable systems wait during a frame, and how idle threads sleep until there are
 * some (core.h). The scheduler (scheduler.c) runs the frame and its threads on top of this; the
 * actor (actor.c) and the lifecycle wake parked systems into it.
 *
 * Design note.
 *  - A frame's new turns are known when it starts, so they go into one array, the frame list, in
 *    spawn order; threads claim entries with a CAS on a cursor (lock-free, no per-queue pushes).
 *    Work that appears during the frame (a parked system woken by a message or by room in a
 *    mailbox) goes onto the waking thread's own Chase-Lev deque (deque.c), where it runs next,
 *    LIFO, while the sender's data is hot, and idle threads steal it FIFO. A system is in at
 *    most one queue at a time (its `run` state says so), so a deque never holds more than
 *    max_systems entries and never grows.
 *  - Order of looking for work: own deque, frame list, steal. A thief leaves a deque's last
 *    system to its owner, who woke it as its turn ended or parked (actor.c's deferred wakes)
 *    and runs it next on the same core: a ping-pong or a sender/receiver pair stays on one
 *    core instead of moving its Lua states between caches. Only a deque with two or more is a
 *    reason to wake or to steal (which is also all that ona__runq_wake notifies for).
 *  - Sleep. Idle threads wait on an eventcount (epoch + mutex + condvar): a waiter reads the
 *    epoch, re-checks for work, then sleeps until the epoch moves. During a frame a thread that
 *    runs out of work first spins for SPIN_NS (pause, watching the epoch), not
 *    counted as a sleeper, so a wake in that window costs the waker no futex call and the woken
 *    no trip through the kernel (4 -> 1 on 2 threads made ~4,000 context switches per
 *    million messages, each several microseconds). Main waits on
 *    its own condvar, so the frame's last turn on a worker wakes main alone, and a frame that
 *    runs entirely on main makes no wake-up call at all. A thread wakes a sleeper mid-frame only
 *    when its own deque holds work beyond what it runs next.
 */
#include "core.h"

/* How long an idle thread spins in a frame before it sleeps: about two futex wake-ups. */
enum { SPIN_NS = 20000 };

static _Thread_local ona__worker *tls_worker;
/* The thread's index while it is a worker, or helps with a boundary job without its queue. */
static _Thread_local int tls_index = -1;

ona__worker *ona__runq_current(void) {
    return tls_worker;
}

void ona__runq_set_current(ona__worker *w) {
    tls_worker = w;
    tls_index = w ? (int)w->index : -1;
}

void ona__runq_set_index(int index) {
    tls_index = index;
}

int ona__runq_thread_index(void) {
    return tls_index;
}

/* --- Eventcount ------------------------------------------------------------------------------ */

/* Wakes up to `n` sleeping workers (all, and main, when n < 0) after work appeared; when no
 * worker sleeps, wakes main if it does, since main takes work like any thread. */
void ona__runq_notify(ona__core *core, int n) {
    /* seq_cst: pairs with the sleeper's epoch read + sleeping mark (see wait_for_work). */
    atomic_fetch_add_explicit(&core->epoch, 1, memory_order_seq_cst);
    if (n == 0)
        return;
    bool workers = atomic_load_explicit(&core->sleepers, memory_order_seq_cst) > 0;
    bool main = atomic_load_explicit(&core->main_sleeping, memory_order_seq_cst);
    if (!workers && !main)
        return;
    uv_mutex_lock(&core->sleep_lock);
    if (n < 0) {
        uv_cond_broadcast(&core->sleep_cond);
        uv_cond_signal(&core->main_cond);
    } else if (workers) {
        for (int i = 0; i < n; i++)
            uv_cond_signal(&core->sleep_cond);
    } else {
        uv_cond_signal(&core->main_cond);
    }
    uv_mutex_unlock(&core->sleep_lock);
}

/* Wakes main alone: the frame reached quiescence on a worker. Idle workers stay asleep. */
void ona__runq_notify_main(ona__core *core) {
    atomic_fetch_add_explicit(&core->epoch, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&core->main_sleeping, memory_order_seq_cst))
        return;
    uv_mutex_lock(&core->sleep_lock);
    uv_cond_signal(&core->main_cond);
    uv_mutex_unlock(&core->sleep_lock);
}

/* Work another thread may take: the frame list, or a deque holding at least `min` systems. */
static bool has_work(ona__core *core, long long min) {
    /* acquire: pairs with the release publication of frame list entries. */
    if (atomic_load_explicit(&core->frame_list_cursor, memory_order_relaxed) <
        atomic_load_explicit(&core->frame_list_count, memory_order_acquire))
        return true;
    for (uint32_t i = 0; i < core->thread_count; i++)
        if (ona__deque_size(&core->workers[i].deque) >= min)
            return true;
    return false;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("pause");
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* Spins up to SPIN_NS while the frame runs, for a notify; true when one came. It watches the
 * epoch alone, which every notify moves (work for others, the frame's last turn for main): the
 * deques' ends and `active` are written on every turn, and a spinner reading them would make
 * each of those writes miss (a ping-pong on 2 threads went from ~800 to ~1,000 ns a round trip
 * while the deques were polled). */
static bool spin_for_work(ona__core *core, unsigned epoch) {
    uint64_t t0 = 0;
    for (uint32_t i = 1;; i++) {
        cpu_relax();
        if ((i & 15) != 0)
            continue;
        /* acquire: as in wait (the frame's state and work queued under it). */
        if (!atomic_load_explicit(&core->frame_running, memory_order_acquire) ||
            atomic_load_explicit(&core->stopping, memory_order_acquire))
            return false;
        /* relaxed: a hint; the caller looks for the work itself. */
        if (atomic_load_explicit(&core->epoch, memory_order_relaxed) != epoch)
            return true;
        if ((i & 255) == 0) {
            uint64_t now = ona__now_ns();
            if (!t0)
                t0 = now;
            else if (now - t0 > SPIN_NS)
                return false;
        }
    }
}

void ona__runq_wait(ona__core *core, ona__worker *w) {
    bool is_main = w->index == 0;
    unsigned epoch = atomic_load_explicit(&core->epoch, memory_order_seq_cst);
    if (spin_for_work(core, epoch))
        return;
    if (is_main)
        atomic_store_explicit(&core->main_sleeping, true, memory_order_seq_cst);
    else
        atomic_fetch_add_explicit(&core->sleepers, 1, memory_order_seq_cst);
    bool ready = atomic_load_explicit(&core->stopping, memory_order_acquire) ||
                 (!is_main && ona__core_job_left(core)) ||
                 (atomic_load_explicit(&core->frame_running, memory_order_acquire) &&
                  (has_work(core, 2) ||
                   (is_main && atomic_load_explicit(&core->active, memory_order_acquire) == 0)));
    if (!ready) {
        uv_cond_t *cond = is_main ? &core->main_cond : &core->sleep_cond;
        uv_mutex_lock(&core->sleep_lock);
        while (atomic_load_explicit(&core->epoch, memory_order_seq_cst) == epoch &&
               !atomic_load_explicit(&core->stopping, memory_order_acquire))
            uv_cond_wait(cond, &core->sleep_lock);
        uv_mutex_unlock(&core->sleep_lock);
    }
    if (is_main)
        atomic_store_explicit(&core->main_sleeping, false, memory_order_seq_cst);
    else
        atomic_fetch_sub_explicit(&core->sleepers, 1, memory_order_seq_cst);
}

/* --- Queues ---------------------------------------------------------------------------------- */

/* Claims the next frame list entry, or, in a frame of short turns, a batch of them: a share of
 * what is left (so each thread gets some) of at most ONA__CLAIM_BATCH, kept in w->batch. With
 * ten thousand turns of ~150 ns on 2 threads, a claim per turn (a contended CAS, its line moving
 * between the cores) cost more than the turn. */
static ona__system *claim_frame_list(ona__core *core, ona__worker *w) {
    /* relaxed: the claim itself; the entries were published by the acquire-read count. */
    unsigned long long c = atomic_load_explicit(&core->frame_list_cursor, memory_order_relaxed);
    unsigned long long end;
    while (c < (end = atomic_load_explicit(&core->frame_list_count, memory_order_acquire))) {
        unsigned long long take = 1;
        /* relaxed: a policy; either answer is correct. */
        if (atomic_load_explicit(&core->claim_batches, memory_order_relaxed)) {
            take = (end - c) / (2ull * core->thread_count);
            take = take < 1 ? 1 : take > ONA__CLAIM_BATCH ? ONA__CLAIM_BATCH : take;
        }
        if (atomic_compare_exchange_weak_explicit(&core->frame_list_cursor, &c, c + take,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            for (unsigned long long i = 1; i < take; i++)
                w->batch[i - 1] = core->frame_list[(c + i) % core->frame_list_cap];
            w->batch_next = 0;
            w->batch_count = (uint32_t)(take - 1);
            return core->frame_list[c % core->frame_list_cap];
        }
    }
    return NULL;
}

/* Main only: appends a system to the frame list. `active` must already count it. Unclaimed
 * entries never exceed the capacity: a frame queues each system at most three times (its turn,
 * a nil at quiescence, a failed send in a deadlock) and starts with every entry claimed. */
void ona__runq_append(ona__core *core, ona__system *sys) {
    unsigned long long n = atomic_load_explicit(&core->frame_list_count, memory_order_relaxed);
    ONA_ASSERT(n - atomic_load_explicit(&core->frame_list_cursor, memory_order_relaxed) <
               core->frame_list_cap);
    core->frame_list[n % core->frame_list_cap] = sys;
    /* release: threads that see the new count see the entry and the system's queued state. */
    atomic_store_explicit(&core->frame_list_count, n + 1, memory_order_release);
}

ona__system *ona__runq_find(ona__core *core, ona__worker *w) {
    ona__system *sys = ona__deque_pop(&w->deque);
    if (sys)
        return sys;
    if (w->batch_next < w->batch_count)
        return w->batch[w->batch_next++];
    sys = claim_frame_list(core, w);
    if (sys)
        return sys;
    uint32_t n = core->thread_count;
    if (n < 2)
        return NULL;
    /* xorshift: where to start stealing, so thieves spread over victims. */
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 17;
    w->rng ^= w->rng << 5;
    uint32_t start = w->rng % n;
    /* Locality: a thread's last queued system is the one it woke as its turn ended or parked
     * and runs next, with the waker's data hot; thieves leave it (every thread empties its own
     * deque before it looks elsewhere or sleeps, so it is never stranded). */
    for (uint32_t i = 0; i < n; i++) {
        ona__worker *victim = &core->workers[(start + i) % n];
        if (victim == w || ona__deque_size(&victim->deque) < 2)
            continue;
        sys = ona__deque_steal(&victim->deque);
        if (sys) {
            w->steals++;
            return sys;
        }
    }
    return NULL;
}

bool ona__runq_wake(ona__core *core, ona__system *sys, int expected, ona__resume resume) {
    int exp = expected;
    /* acq_rel: acquire the parker's writes (its Lua state); release nothing yet. */
    if (!atomic_compare_exchange_strong_explicit(&sys->run, &exp, ONA__RUN_QUEUED,
                                                 memory_order_acq_rel, memory_order_relaxed))
        return false;
    sys->resume = resume;
    if (tls_worker)
        /* relaxed: the waker is itself counted in `active` (it is running), so the count cannot
         * reach zero before this increment; ordering to main comes from the waker's decrement. */
        atomic_fetch_add_explicit(&core->active, 1, memory_order_relaxed);
    ona__worker *w = tls_worker;
    if (!w)
        return true; /* main between frames: queue_frame picks up ONA__RUN_QUEUED systems */
    ona__deque_push(&w->deque, sys);
    if (ona__deque_size(&w->deque) >= 2)
        ona__runq_notify(core, 1);
    return true;
}


void ona__runq_ready(ona__core *core, ona__system *sys) {
    ona__worker *w = tls_worker;
    ONA_ASSERT(w != NULL);
    ona__deque_push(&w->deque, sys);
    if (ona__deque_size(&w->deque) >= 2)
        ona__runq_notify(core, 1);
}
