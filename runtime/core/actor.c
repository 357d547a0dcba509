/*
 * actor.c: send, receive, park, wake and kill, written once for every kind of system.
 *
 * Design note.
 *  - One path for a message: the sender's host encodes into `outgoing` (or the C API builds a
 *    message), ona__actor_send pushes it into the receiver's mailbox and, if the receiver is
 *    parked in receive, wakes it. The woken receiver's turn starts here, in
 *    ona__actor_run_turn, which pops the message into its `inbox` before its host resumes, so
 *    the host gets the message handed over instead of asking for it a second time.
 *  - Parking protocol (Dekker style, both sides seq_cst): the parking thread stores the PARKED
 *    state, fences, then re-checks the mailbox; a waker pushes (or pops), fences, then checks the
 *    state. At least one of them sees the other, so a wakeup is never lost; whichever wins the
 *    CAS out of the PARKED state runs the system. After the PARKED store the parking thread
 *    touches nothing of the system but that CAS: another thread may already be running it.
 *  - A sender parked on a full mailbox is on the receiver's waiter list (a FIFO under
 *    `waiters_lock`). Kills and stops are applied at the frame boundary (lifecycle.c), which
 *    takes the dying system off every list and fails the senders parked on it.
 *  - Deferred wakes. Waking on every message cost a seq_cst fence per push and per
 *    pop, and with several senders on a full mailbox each pop woke a sender that found room for
 *    one message and parked again: 4 -> 1 on 2 threads ran at a fifth of 1 thread's rate. Now:
 *    the first message a turn (or a resumed turn) sends to a receiver wakes it at once, so a
 *    sender that goes on computing never holds its receiver back; the next ones to the same
 *    receiver only mark it (`wake_pending`, `wake_dirty`), and the fence, the look at its
 *    state and the wake happen once more, when the sender's turn ends or parks, when it sends to
 *    another system, or when a send finds a mailbox full. The Dekker argument is
 *    unchanged, the fence just comes later: every push is still followed, on its thread, by a
 *    fence and a look at `run`. The receiver looks at its parked senders after every
 *    capacity/2 pops (`pops_unchecked`) and when its turn ends, and then wakes all of them. A
 *    sender that parks after seeing the mailbox full is seen by the first such look after the
 *    pop that frees its place: had that look's fence come before the sender's, the sender would
 *    have seen the place free. Every turn ends through ona__actor_flush_wakes (run_turn: done,
 *    failed, yielded, parked), so no wake is lost when a sender raises or is killed; sends from
 *    C outside a turn wake at once.
 */
#include "core.h"

#include <stdio.h>
#include <string.h>

ona__system *ona__actor_resolve(ona__core *core, uint64_t handle) {
    return ona__registry_resolve(&core->registry, handle);
}

bool ona__actor_alive(const ona__system *target) {
    /* relaxed: a kill is applied at the frame boundary; seeing it late only delays the refusal. */
    return target->status != ONA_SYSTEM_STOPPED &&
           !atomic_load_explicit(&target->kill_requested, memory_order_relaxed);
}

bool ona__actor_in_turn(const ona__system *sys) {
    /* relaxed: only the thread running the turn asks, and it set RUNNING itself. */
    return atomic_load_explicit(&sys->run, memory_order_relaxed) == ONA__RUN_RUNNING;
}

/* Why `to` cannot take messages, for error texts. A handle whose system has ended is stale
 * (ONA_ESTALE) for good; while the registry still remembers the name, the text names it. */
static int refuse(ona__core *core, uint64_t to, ona__system *target, char *why, size_t whysize) {
    if (target) {
        if (why)
            snprintf(why, whysize, "system '%s' is %s", target->name,
                     target->status == ONA_SYSTEM_STOPPED ? "stopped" : "being killed");
        return ONA_EDEAD;
    }
    char name[64];
    if (!why)
        return ONA_ESTALE;
    if (ona__registry_dead_name(&core->registry, to, name, sizeof name))
        snprintf(why, whysize, "no such system: '%s' has ended (its handle is stale)", name);
    else
        snprintf(why, whysize, "no such system (the handle %llu is stale or was never valid)",
                 (unsigned long long)to);
    return ONA_ESTALE;
}

static void wake_receiver(ona__core *core, ona__system *receiver) {
    /* seq_cst: Dekker with the parking receiver (store PARKED, fence, check mailbox); the
     * fence follows every push this thread made to `receiver` since the last one. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&receiver->run, memory_order_relaxed) == ONA__RUN_PARKED_RECV)
        ona__runq_wake(core, receiver, ONA__RUN_PARKED_RECV, ONA__RESUME_RECV_READY);
}

/* After a push to `target`: wake it now, or leave it to the end of `from`'s turn. Deferring needs
 * a turn that will end through ona__actor_flush_wakes: `from` is running its turn (outside turns,
 * e.g. a script's exit between frames, the wake happens at once). */
static void note_wake(ona__core *core, ona__system *from, ona__system *target) {
    if (!from || !ona__actor_in_turn(from)) {
        wake_receiver(core, target);
        return;
    }
    if (from->wake_pending == target) {
        from->wake_dirty = true;
        return;
    }
    if (from->wake_pending && from->wake_dirty)
        wake_receiver(core, from->wake_pending);
    /* The first message of a turn (or of a resume) to a receiver wakes it at once, so that a
     * sender that goes on computing does not hold its receiver back until its turn ends. */
    wake_receiver(core, target);
    from->wake_pending = target;
    from->wake_dirty = false;
}

/* Wakes every sender parked on sys's full mailbox, after pops. Only a sender the wake takes out
 * of PARKED_SEND leaves the list: one that registered but has not stored PARKED yet stays on
 * it, and either finds room in its own check (and takes itself off) or parks and is found by
 * the next look. Taking such a sender off without waking it lost it until the next frame when
 * other senders filled the mailbox before its check (test_wakes under TSan: 1,186 of 1,200
 * messages in the frame). */
static void wake_senders(ona__system *sys) {
    sys->pops_unchecked = 0;
    /* seq_cst: Dekker with the parking sender (register, store PARKED, fence, check room). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&sys->waiter_count, memory_order_relaxed) == 0)
        return;
    uv_mutex_lock(&sys->waiters_lock);
    ona__system *prev = NULL;
    for (ona__system *w = sys->waiters_head, *next; w; w = next) {
        next = w->next_waiter;
        if (!ona__runq_wake(sys->core, w, ONA__RUN_PARKED_SEND, ONA__RESUME_SEND_READY)) {
            prev = w;
            continue;
        }
        if (prev)
            prev->next_waiter = next;
        else
            sys->waiters_head = next;
        if (sys->waiters_tail == w)
            sys->waiters_tail = prev;
        /* w itself is not touched after its wake: another thread may already run it and append
         * it to another list (waiters_append resets its link). */
        /* relaxed: the lock orders the list; lookers read the count after a seq_cst fence. */
        atomic_fetch_sub_explicit(&sys->waiter_count, 1, memory_order_relaxed);
    }
    uv_mutex_unlock(&sys->waiters_lock);
}

void ona__actor_flush_wakes(ona__system *sys) {
    if (sys->wake_pending) {
        ona__system *r = sys->wake_pending;
        bool dirty = sys->wake_dirty;
        sys->wake_pending = NULL;
        sys->wake_dirty = false;
        if (dirty)
            wake_receiver(sys->core, r);
    }
    if (sys->pops_unchecked)
        wake_senders(sys);
}

int ona__actor_send(ona__core *core, ona__system *from, uint64_t to, ona_message *m,
                    ona__moves *moves, char *why, size_t whysize) {
    ona__system *target = ona__actor_resolve(core, to);
    if (!target || !ona__actor_alive(target))
        return refuse(core, to, target, why, whysize);
    m->sender = from ? from->id : 0;
    /* The queued copy must own the buffers the sender's handles lent it; if the push fails they
     * stay lent. The sender runs no Lua between the push and the kill of its handles, so nothing
     * can reach a buffer through a handle after the receiver may have taken it. */
    uint32_t lent_flags = m->flags;
    if (m->flags & ONA__MESSAGE_LENT_BUFFERS)
        m->flags = (m->flags & ~(uint32_t)ONA__MESSAGE_LENT_BUFFERS) | ONA__MESSAGE_OWNS_BUFFERS;
    if (!core->desc.immediate) {
        /* Ordered: nobody waits inside a frame, so there is no one to wake (delivery.c). */
        int rc = ona__delivery_send(core, from, target, m);
        if (rc) {
            m->flags = lent_flags;
            if (rc == ONA_ELIMIT && why) {
                /* A held target that runs again this frame is described by its status alone:
                 * the rest is its turn's, which may be running now. */
                char stalled[160] = "resumed this frame and has not taken its backlog yet";
                if (target->status != ONA_SYSTEM_RUNNING)
                    ona__core_stall_reason(target, 0, stalled, sizeof stalled);
                snprintf(why, whysize,
                         "'%s' %s; what was queued for it meanwhile reached its memory cap (%zu "
                         "bytes): the message was not sent",
                         target->name, stalled, target->stage.hold_bound);
            }
            return rc;
        }
        if (moves)
            ona__message_commit_moves(NULL, moves);
        if (from)
            from->messages_out++;
        else
            core->messages++;
        return 0;
    }
    int rc = ona__mailbox_push(target->mailbox, m);
    if (rc) {
        /* ONA_EFULL leaves `why` alone: a full mailbox is the common case of a send that waits,
         * and formatting a text nobody reads would cost more than the push. The receiver of a
         * full mailbox is woken now: the sender waits for it or goes elsewhere. */
        m->flags = lent_flags;
        if (from && from->wake_pending)
            ona__actor_flush_wakes(from);
        return rc;
    }
    if (moves)
        ona__message_commit_moves(NULL, moves);
    if (from)
        from->messages_out++;
    else
        core->messages++; /* from C: main thread only */
    note_wake(core, from, target);
    return 0;
}

int ona__actor_send_many(ona__core *core, ona__system *from, uint64_t to, ona_message *msgs,
                         uint32_t n, uint32_t *sent) {
    *sent = 0;
    ona__system *target = ona__actor_resolve(core, to);
    if (!target || !ona__actor_alive(target))
        return refuse(core, to, target, NULL, 0);
    uint64_t id = from ? from->id : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!core->desc.immediate || (msgs[i].flags & ONA__MESSAGE_LENT_BUFFERS)) {
            /* Ordered delivery, or buffers lent by handles (never from the C API's writer): one
             * by one, through the path that stamps each message, makes the queued copy own its
             * buffers and undoes it on a refusal. */
            for (uint32_t j = 0; j < n; j++) {
                int rc = ona__actor_send(core, from, to, &msgs[j], NULL, NULL, 0);
                if (rc)
                    return rc;
                (*sent)++;
            }
            return 0;
        }
        msgs[i].sender = id;
    }
    uint32_t k = ona__mailbox_push_many(target->mailbox, msgs, n);
    *sent = k;
    if (k) {
        if (from)
            from->messages_out += k;
        else
            core->messages += k;
        note_wake(core, from, target);
    }
    if (k == n)
        return 0;
    if (from && from->wake_pending)
        ona__actor_flush_wakes(from);
    return ONA_EFULL;
}

static int take(ona__system *sys) {
    if (!sys->core->desc.immediate)
        return ona__delivery_take(sys);
    ona_message_release(&sys->inbox);
    if (ona__mailbox_pop(sys->mailbox, &sys->inbox) != 0)
        return ONA_EEMPTY;
    sys->messages_in++;
    if (sys->recent)
        ona__recent_record(sys->recent, sys->core->frame, &sys->inbox);
    /* Parked senders are looked at every capacity/2 pops, and at the turn's end (file note). */
    if (++sys->pops_unchecked >= sys->pops_per_check)
        wake_senders(sys);
    return 0;
}

int ona__actor_receive(ona__system *sys) {
    sys->receive_frame = sys->core->frame;
    /* A re-run of a failed turn takes what that turn took first (retake.c). */
    if (ona__retake_take(sys) == 0)
        return 0;
    int rc = take(sys);
    if (rc == 0)
        ona__retake_keep(sys);
    return rc;
}

int ona__actor_kill(ona__core *core, uint64_t handle) {
    ona__system *target = ona__actor_resolve(core, handle);
    if (!target)
        return ONA_ESTALE;
    /* relaxed: read by main at the frame boundary, after the frame's synchronisation. */
    atomic_store_explicit(&target->kill_requested, true, memory_order_relaxed);
    return 0;
}

bool ona__actor_fail(ona__system *sys, const char *what) {
    sys->failed = true;
    sys->errors++;
    size_t first = strcspn(what, "\n");
    snprintf(sys->fail_reason, sizeof sys->fail_reason, "%.*s", (int)first, what);
    /* acquire: pairs with the scheduler's release store; a turn runs only inside the frame,
     * whose end (on main) logs what is kept here. Outside a frame it is logged at once. */
    if (atomic_load_explicit(&sys->core->frame_running, memory_order_acquire)) {
        size_t n = strlen(what);
        char *copy = ona__malloc(n + 1);
        if (copy) {
            memcpy(copy, what, n + 1);
            ona__free(sys->fail_log);
            sys->fail_log = copy;
            sys->fail_key_len = first;
            sys->fail_key_hash = ona__digest_bytes(ONA__DIGEST_SEED, what, first);
            /* relaxed: main reads it after the frame's end, which ordered this turn. */
            atomic_store_explicit(&sys->core->failures_kept, true, memory_order_relaxed);
            return true;
        }
    }
    ona_log(ONA_LOG_ERROR, sys->name, "%s", what);
    return false;
}

/* The systems named on one grouped error line; the rest are counted. */
enum { FAILURE_NAMES_SHOWN = 16 };

void ona__actor_log_failures(ona__core *core) {
    /* relaxed: after the frame's end, which ordered every turn that set it. */
    if (!atomic_exchange_explicit(&core->failures_kept, false, memory_order_relaxed))
        return;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        if (!sys->fail_log)
            continue;
        char where[FAILURE_NAMES_SHOWN * (ONA_MAX_NAME_BYTES + 2) + 64];
        size_t used = (size_t)snprintf(where, sizeof where, "%s", sys->name);
        uint32_t count = 1;
        for (uint32_t j = i + 1; j < core->system_count; j++) {
            ona__system *o = core->systems[j];
            if (!o->fail_log || o->fail_key_hash != sys->fail_key_hash ||
                o->fail_key_len != sys->fail_key_len ||
                memcmp(o->fail_log, sys->fail_log, sys->fail_key_len) != 0)
                continue;
            if (count < FAILURE_NAMES_SHOWN && used < sizeof where)
                used += (size_t)snprintf(where + used, sizeof where - used, ", %s", o->name);
            count++;
            ona__free(o->fail_log);
            o->fail_log = NULL;
        }
        if (count > FAILURE_NAMES_SHOWN && used < sizeof where)
            used += (size_t)snprintf(where + used, sizeof where - used, " and %u more",
                                     count - FAILURE_NAMES_SHOWN);
        if (count > 1 && used < sizeof where)
            snprintf(where + used, sizeof where - used, " (%u systems)", count);
        ona_log(ONA_LOG_ERROR, where, "%s", sys->fail_log);
        if (ona__core_pauses(core, sys))
            ona_log(ONA_LOG_WARN, "hot reload", "%s paused: %.*s; save a fix to resume", where,
                    (int)sys->fail_key_len, sys->fail_log);
        ona__free(sys->fail_log);
        sys->fail_log = NULL;
    }
}

/* --- Waiter lists ---------------------------------------------------------------------------- */

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

void ona__actor_waiters_remove(ona__system *target, ona__system *sys) {
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
        /* relaxed: as in waiters_append. */
        atomic_fetch_sub_explicit(&target->waiter_count, 1, memory_order_relaxed);
        break;
    }
    uv_mutex_unlock(&target->waiters_lock);
}

/* --- Turns ----------------------------------------------------------------------------------- */

/* Does the core's part of a resume before the host sees it. Returns the reason to hand the host,
 * or -1 when the system must park again without running (`*turn` says how). */
static int prepare(ona__system *sys, ona__turn *turn) {
    ona__core *core = sys->core;
    switch (sys->resume) {
    case ONA__RESUME_RECV_READY:
        if (ona__actor_receive(sys) == 0)
            return ONA__RESUME_MESSAGE;
        *turn = ONA__TURN_PARK_RECV;
        return -1;
    case ONA__RESUME_SEND_READY: {
        int rc = ona__actor_send(core, sys, sys->send_target, &sys->outgoing, &sys->moves,
                                 sys->wait_error, sizeof sys->wait_error);
        if (rc == 0)
            return ONA__RESUME_SENT;
        if (rc == ONA_EFULL) {
            *turn = ONA__TURN_PARK_SEND;
            return -1;
        }
        ona_message_release(&sys->outgoing);
        return ONA__RESUME_SEND_FAILED;
    }
    case ONA__RESUME_SEND_FAILED:
        ona_message_release(&sys->outgoing);
        return ONA__RESUME_SEND_FAILED;
    case ONA__RESUME_NIL:
        sys->nil_this_frame = true;
        return ONA__RESUME_NIL;
    default:
        return sys->resume;
    }
}

uint64_t ona__actor_run_turn(ona__system *sys, uint64_t t0) {
    ona__core *core = sys->core;
    bool ordered = !core->desc.immediate;
    if (sys->resume == ONA__RESUME_START) {
        sys->last_turn_ns = 0;
        ona__retake_start(sys);
        /* Each turn draws from the identity transform onto the screen, with nothing pushed. */
        ona__draw_frame_reset(&sys->draw);
        sys->draw_depth = 0;
    }
    if (ordered && sys->stage.gathered != core->frame)
        ona__delivery_gather(sys);
    for (;;) {
        ona__turn outcome = ONA__TURN_DONE;
        int why = prepare(sys, &outcome);
        if (why >= 0) {
            ona__system *previous = ona__core_enter(sys);
            outcome = sys->host->run(sys, (ona__resume)why);
            ona__core_leave(previous);
            if (outcome == ONA__TURN_FAILED)
                ona_message_release(&sys->outgoing);
        }
        /* Every way out of a turn passes here: the deferred wakes happen before the system is
         * parked or released (after that another thread may own it). */
        ona__actor_flush_wakes(sys);
        /* One clock read a resume: its end is the next resume's start (and the park's). */
        uint64_t t1 = ona__now_ns();
        uint64_t ns = t1 - t0;
        t0 = t1;
        sys->turn_ns_total += ns;
        sys->last_turn_ns += ns;
        if (ordered && outcome == ONA__TURN_PARK_RECV) {
            /* Ordered: what this turn may see was all there when it started; an empty receive
             * is the end of it. */
            sys->resume = ONA__RESUME_NIL;
            continue;
        }
        /* Where this system's part of the frame ends (or, immediate, where it first waits), its
         * successors in the order may start: ona__order_done, before `run` lets it go. */
        switch (outcome) {
        case ONA__TURN_DONE:
        case ONA__TURN_FAILED:
            ona__retake_end(sys, outcome == ONA__TURN_FAILED);
            sys->turns++;
            if (sys->last_turn_ns > sys->max_turn_ns)
                sys->max_turn_ns = sys->last_turn_ns;
            sys->turn_active = false;
            ona__order_done(core, sys);
            /* release: the next thread to run this system sees everything this turn wrote. */
            atomic_store_explicit(&sys->run, ONA__RUN_IDLE, memory_order_release);
            return t1;
        case ONA__TURN_NEXT_FRAME:
            sys->resume = ONA__RESUME_CONTINUE;
            ona__order_done(core, sys);
            atomic_store_explicit(&sys->run, ONA__RUN_IDLE, memory_order_release);
            return t1;
        case ONA__TURN_PARK_RECV: {
            sys->parks++;
            sys->park_start_ns = t1;
            ona__order_done(core, sys);
            /* seq_cst (store, fence, load): Dekker with wake_receiver, see the file note. After
             * this store another thread may own the system. */
            atomic_store_explicit(&sys->run, ONA__RUN_PARKED_RECV, memory_order_seq_cst);
            atomic_thread_fence(memory_order_seq_cst);
            int expected = ONA__RUN_PARKED_RECV;
            if (!ona__mailbox_is_empty(sys->mailbox) &&
                atomic_compare_exchange_strong_explicit(&sys->run, &expected, ONA__RUN_RUNNING,
                                                        memory_order_acq_rel,
                                                        memory_order_relaxed)) {
                sys->resume = ONA__RESUME_RECV_READY;
                sys->park_start_ns = 0;
                continue;
            }
            return t1;
        }
        case ONA__TURN_PARK_SEND: {
            sys->parks++;
            sys->park_start_ns = t1;
            sys->park_frame = core->frame;
            /* relaxed: read by main at quiescence, after this turn's release of `active`. */
            atomic_store_explicit(&core->send_parked, true, memory_order_relaxed);
            ona__system *target = ona__actor_resolve(core, sys->send_target);
            if (!target || !ona__actor_alive(target)) {
                refuse(core, sys->send_target, target, sys->wait_error, sizeof sys->wait_error);
                sys->resume = ONA__RESUME_SEND_FAILED;
                continue;
            }
            ona__order_done(core, sys);
            if (ordered) {
                /* Backpressure: tried again at the start of a frame whose backlog leaves room
                 * (queue_frame); nobody wakes it within this one. It is on the receiver's
                 * waiter list all the same, so the receiver's end fails its send by name and
                 * statistics show who waits. release: as for IDLE. */
                waiters_append(target, sys);
                atomic_store_explicit(&sys->run, ONA__RUN_PARKED_SEND, memory_order_release);
                return t1;
            }
            waiters_append(target, sys);
            /* seq_cst: Dekker with ona__actor_receive (pop, fence, read waiters). */
            atomic_store_explicit(&sys->run, ONA__RUN_PARKED_SEND, memory_order_seq_cst);
            atomic_thread_fence(memory_order_seq_cst);
            int expected = ONA__RUN_PARKED_SEND;
            if (!ona__mailbox_is_full(target->mailbox) &&
                atomic_compare_exchange_strong_explicit(&sys->run, &expected, ONA__RUN_RUNNING,
                                                        memory_order_acq_rel,
                                                        memory_order_relaxed)) {
                ona__actor_waiters_remove(target, sys);
                sys->resume = ONA__RESUME_SEND_READY;
                sys->park_start_ns = 0;
                continue;
            }
            return t1;
        }
        }
    }
}
