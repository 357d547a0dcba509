/*
 * delivery.c: ordered delivery (delivery.h), the default way messages reach a system.
 *
 * Design note.
 *  - The rule. A system's part of frame f sees, in one canonical order, every message sent to it
 *    before frame f that it has not taken yet, and every message sent in frame f by a system
 *    that is before it in the declared order (order.c). Anything else (sent this frame by a
 *    system after it or unordered with it, from C, from the runtime) is held for its next turn.
 *    Predecessors finish their part of the frame before a successor's starts (the scheduler
 *    waits for them), so when the successor gathers, all it may see is already there, and what
 *    is held does not depend on which thread ran first.
 *  - Canonical order: (frame sent, sender's spawn order, sender's count of sends that frame);
 *    messages from C come first in their frame (spawn order 0), in the order they arrived.
 *    Messages go through the mailbox's cells as before, each with its stamp beside it; the order
 *    they arrive in does not matter, because the stage sorts them (a check first: one sender's
 *    messages arrive sorted, and most stages hold one sender's).
 *  - Backpressure, decided only from what is the same on every run: a sender may send a receiver
 *    at most capacity - backlog messages in a frame, where backlog is what the receiver had
 *    waiting at the frame's start (`backlog_start`, written by main at the boundary). Past that
 *    the send waits: the sender's part of the frame ends there (its successors start), and its
 *    send is tried again at the start of a later frame whose backlog leaves room. So a receiver
 *    holds at most (number of its senders) x capacity messages, a predecessor that floods its
 *    successor never waits for a turn that cannot start, and nothing is dropped.
 *  - Held receivers. A paused or restarting system takes no turn, so backpressure would park
 *    its senders for as long as it waits for a fix. Instead it is held (main sets it at the
 *    pause or failure, and lifts it at the boundary after its first turn again): sends to it
 *    skip the capacity check and queue in the cells and the overflow, counted in bytes against
 *    its memory cap; the send that would pass that is refused (ONA_ELIMIT, the sender's error,
 *    naming the receiver and why it is stalled). Its first turn gathers the whole backlog in
 *    canonical order.
 *  - Several senders may fill the cells in one frame: a send that finds none free goes into the
 *    overflow, a locked array the receiver drains with the mailbox. It is rare and never the
 *    fast path.
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

int ona__stage_init(ona__stage *st, uint32_t capacity) {
    memset(st, 0, sizeof *st);
    st->capacity = capacity;
    atomic_init(&st->over_n, 0);
    atomic_init(&st->outside, 0);
    atomic_init(&st->outside_seq, 0);
    atomic_init(&st->refused, 0);
    atomic_init(&st->held_bytes, 0);
    atomic_init(&st->sent_frame, 0);
    if (uv_mutex_init(&st->lock))
        return ONA_ENOMEM;
    st->live = true;
    return 0;
}

uint32_t ona__stage_free(ona__stage *st) {
    uint32_t n = 0;
    if (!st->live)
        return 0;
    for (uint32_t i = st->head; i < st->count; i++, n++)
        ona_message_release(&st->items[i].msg);
    for (uint32_t i = 0; i < st->over_count; i++, n++)
        ona_message_release(&st->over[i].msg);
    ona__free(st->items);
    ona__free(st->scratch);
    ona__free(st->over);
    uv_mutex_destroy(&st->lock);
    memset(st, 0, sizeof *st);
    return n;
}

void ona__tally_free(ona__tally *t) {
    ona__free(t->entries);
    memset(t, 0, sizeof *t);
}

/* Grows `*items` (of `*cap`) to hold `need`; false when out of memory. */
static bool reserve(ona__staged **items, uint32_t *cap, uint32_t need) {
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    ona__staged *p = ona__realloc(*items, (size_t)n * sizeof *p);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}

/* --- The send side --------------------------------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* The count of messages `t`'s system sent `to` in `frame`, or NULL when out of memory. Entries
 * of earlier frames are free: the table empties itself at each new frame. */
static uint32_t *tally_slot(ona__tally *t, uint64_t to, uint64_t frame) {
    if (t->seq_frame != frame) {
        t->seq_frame = frame;
        t->seq = 0;
        t->used = 0;
    } else if (t->cap && t->entries[t->last].to == to && t->entries[t->last].frame == frame) {
        return &t->entries[t->last].n;
    }
    if (2 * (t->used + 1) > t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 16;
        ona__tally_entry *e = ona__calloc(cap, sizeof *e);
        if (!e)
            return NULL;
        for (uint32_t i = 0; i < t->cap; i++) {
            ona__tally_entry *old = &t->entries[i];
            if (old->frame != frame || old->to == 0)
                continue;
            uint32_t j = (uint32_t)mix(old->to) & (cap - 1);
            while (e[j].to)
                j = (j + 1) & (cap - 1);
            e[j] = *old;
        }
        ona__free(t->entries);
        t->entries = e;
        t->cap = cap;
    }
    uint32_t j = (uint32_t)mix(to) & (t->cap - 1);
    for (;;) {
        ona__tally_entry *e = &t->entries[j];
        if (e->frame != frame || e->to == 0) {
            *e = (ona__tally_entry){to, frame, 0};
            t->used++;
            t->last = j;
            return &e->n;
        }
        if (e->to == to) {
            t->last = j;
            return &e->n;
        }
        j = (j + 1) & (t->cap - 1);
    }
}

static int push(ona__system *target, ona_message *m, const ona__stamp *stamp) {
    if (ona__mailbox_push_stamped(target->mailbox, m, stamp) == 0)
        return 0;
    ona__stage *st = &target->stage;
    uv_mutex_lock(&st->lock);
    bool ok = reserve(&st->over, &st->over_cap, st->over_count + 1);
    if (ok) {
        st->over[st->over_count++] = (ona__staged){*stamp, *m};
        /* release: the receiver that reads the count under the lock sees the entry; the count
         * alone is a hint that there is something to lock for. */
        atomic_store_explicit(&st->over_n, st->over_count, memory_order_release);
    }
    uv_mutex_unlock(&st->lock);
    if (!ok)
        return ONA_ENOMEM;
    ona_message_init(m);
    return 0;
}

/* A send to a held receiver: counts m's bytes against its bound; false (nothing counted) when
 * they would pass it. */
static bool hold_take(ona__stage *st, const ona_message *m, size_t *bytes) {
    *bytes = sizeof *m + (m->heap ? m->capacity : 0);
    /* relaxed: a count that only bounds itself; no data is published through it. */
    size_t before = atomic_fetch_add_explicit(&st->held_bytes, *bytes, memory_order_relaxed);
    if (before + *bytes <= st->hold_bound)
        return true;
    atomic_fetch_sub_explicit(&st->held_bytes, *bytes, memory_order_relaxed);
    return false;
}

static void hold_give_back(ona__stage *st, size_t bytes) {
    /* relaxed: as in hold_take. */
    atomic_fetch_sub_explicit(&st->held_bytes, bytes, memory_order_relaxed);
}

void ona__delivery_hold(ona__system *sys, size_t bound) {
    sys->stage.hold = true;
    sys->stage.hold_bound = bound;
}

int ona__delivery_notice(ona__core *core, ona__system *target, ona_message *m) {
    /* relaxed: as for C's sends. */
    ona__stamp stamp = {
        .frame = core->frame,
        .seq = atomic_fetch_add_explicit(&target->stage.outside_seq, 1, memory_order_relaxed),
    };
    /* relaxed: main between frames; the next frame's start publishes it (see mailbox_quiet). */
    atomic_store_explicit(&target->stage.sent_frame, core->frame, memory_order_relaxed);
    return push(target, m, &stamp);
}

int ona__delivery_send(ona__core *core, ona__system *from, ona__system *target, ona_message *m) {
    uint32_t cap = target->stage.capacity;
    uint32_t backlog = target->stage.backlog_start;
    ona__stamp stamp = {.frame = core->frame};
    /* A held receiver (paused, restarting) takes what is sent past its capacity, up to its
     * bound: its senders never wait on it. */
    bool held = target->stage.hold;
    size_t bytes = 0;
    if (held && !hold_take(&target->stage, m, &bytes))
        return ONA_ELIMIT;
    if (from) {
        uint32_t *n = tally_slot(&from->tally, target->id, core->frame);
        if (!n) {
            hold_give_back(&target->stage, bytes);
            return ONA_ENOMEM;
        }
        if (!held && backlog + *n >= cap) {
            /* relaxed: a statistic. */
            atomic_fetch_add_explicit(&target->stage.refused, 1, memory_order_relaxed);
            return ONA_EFULL;
        }
        if (*n == 0) /* relaxed: see mailbox_quiet */
            atomic_store_explicit(&target->stage.sent_frame, core->frame, memory_order_relaxed);
        stamp.order = from->spawn_order + 1;
        stamp.seq = from->tally.seq;
        stamp.place = from->order_index == ONA__ORDER_NONE ? 0 : from->order_index + 1;
        int rc = push(target, m, &stamp);
        if (rc) {
            hold_give_back(&target->stage, bytes);
            return rc;
        }
        from->tally.seq++;
        (*n)++;
        return 0;
    }
    /* relaxed: C's sends are not part of the deterministic contract; the count bounds them. */
    uint32_t n = atomic_fetch_add_explicit(&target->stage.outside, 1, memory_order_relaxed);
    if (!held && backlog + n >= cap) {
        atomic_fetch_sub_explicit(&target->stage.outside, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&target->stage.refused, 1, memory_order_relaxed);
        return ONA_EFULL;
    }
    stamp.seq = atomic_fetch_add_explicit(&target->stage.outside_seq, 1, memory_order_relaxed);
    atomic_store_explicit(&target->stage.sent_frame, core->frame, memory_order_relaxed);
    int rc = push(target, m, &stamp);
    if (rc) {
        atomic_fetch_sub_explicit(&target->stage.outside, 1, memory_order_relaxed);
        hold_give_back(&target->stage, bytes);
    }
    return rc;
}

/* --- The receive side ------------------------------------------------------------------------ */

static int compare(const ona__stamp *a, const ona__stamp *b) {
    if (a->frame != b->frame)
        return a->frame < b->frame ? -1 : 1;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

static int compare_staged(const void *a, const void *b) {
    return compare(&((const ona__staged *)a)->stamp, &((const ona__staged *)b)->stamp);
}

/* True when the mailbox is known to be empty (the stage's note on sent_frame). A send is marked
 * before its push, and every send this turn may see happened before it starts (an earlier frame,
 * or a predecessor that finished), so a mark it misses is a send of this frame by a system it is
 * not after: held for the next turn anyway, and that gather looks (its frame is not < empty_at).
 * Main at the boundary sees every mark of the frame. */
static bool mailbox_quiet(const ona__stage *st) {
    /* relaxed: ordered by the frame's synchronisation and the order's waits, as above. */
    return atomic_load_explicit(&st->sent_frame, memory_order_relaxed) < st->empty_at;
}

void ona__delivery_gather(ona__system *sys) {
    ona__stage *st = &sys->stage;
    uint64_t frame = sys->core->frame;
    st->gathered = frame;
    if (st->head) {
        memmove(st->items, st->items + st->head, (size_t)(st->count - st->head) * sizeof *st->items);
        st->count -= st->head;
        st->head = 0;
    }
    /* The mailbox first, then the overflow: a message left behind for want of memory is taken at
     * the next gather, still in its place in the order (the stage sorts). */
    if (mailbox_quiet(st)) {
        st->empty_at = frame;
    } else {
        for (;;) {
            if (ona__mailbox_is_empty(sys->mailbox)) {
                st->empty_at = frame;
                break;
            }
            if (!reserve(&st->items, &st->cap, st->count + 1))
                break;
            ona__staged *e = &st->items[st->count];
            if (ona__mailbox_pop_stamped(sys->mailbox, &e->msg, &e->stamp) != 0)
                break;
            st->count++;
        }
    }
    /* acquire: pairs with the release in push (a hint; the lock orders the entries). */
    if (atomic_load_explicit(&st->over_n, memory_order_acquire)) {
        uv_mutex_lock(&st->lock);
        if (reserve(&st->items, &st->cap, st->count + st->over_count)) {
            memcpy(st->items + st->count, st->over, (size_t)st->over_count * sizeof *st->over);
            st->count += st->over_count;
            st->over_count = 0;
            atomic_store_explicit(&st->over_n, 0, memory_order_relaxed);
        }
        uv_mutex_unlock(&st->lock);
    }
    bool sorted = true;
    for (uint32_t i = 1; i < st->count && sorted; i++)
        sorted = compare(&st->items[i - 1].stamp, &st->items[i].stamp) <= 0;
    if (!sorted)
        qsort(st->items, st->count, sizeof *st->items, compare_staged);
    /* This turn's messages first (a stable partition): earlier frames' and this frame's from
     * predecessors. The held ones keep their order behind them. */
    uint32_t kept = 0, held = 0;
    for (uint32_t i = 0; i < st->count; i++) {
        ona__staged *e = &st->items[i];
        bool now = e->stamp.frame < frame || ona__order_before(sys, e->stamp.place);
        if (now) {
            if (held)
                st->items[kept] = *e;
            kept++;
        } else {
            if (!reserve(&st->scratch, &st->scratch_cap, held + 1)) {
                /* Out of memory: this and the rest are seen now rather than lost. */
                for (uint32_t j = i; j < st->count; j++)
                    st->items[kept++] = st->items[j];
                break;
            }
            st->scratch[held++] = *e;
        }
    }
    if (held)
        memcpy(st->items + kept, st->scratch, (size_t)held * sizeof *st->scratch);
    st->ready = kept;
}

int ona__delivery_take(ona__system *sys) {
    ona__stage *st = &sys->stage;
    ona_message_release(&sys->inbox);
    if (st->head >= st->ready) {
        st->drained = st->gathered; /* it asked for more than this turn had: it keeps up */
        return ONA_EEMPTY;
    }
    uint32_t from = st->items[st->head].stamp.order; /* the sender's spawn order + 1 */
    sys->inbox = st->items[st->head++].msg;
    sys->messages_in++;
    if (sys->core->digesting) /* a recording's digest: who sent what, in the order taken */
        ona__digest_take(sys, from);
    if (sys->recent)
        ona__recent_record(sys->recent, sys->core->frame, &sys->inbox);
    return 0;
}

uint32_t ona__delivery_backlog(ona__system *sys) {
    ona__stage *st = &sys->stage;
    /* relaxed: a count, exact between frames (the frame's end ordered every send). */
    return st->count - st->head + (mailbox_quiet(st) ? 0 : ona__mailbox_size(sys->mailbox)) +
           atomic_load_explicit(&st->over_n, memory_order_relaxed);
}

uint32_t ona__delivery_backlog_before(ona__system *sys, uint64_t frame) {
    ona__stage *st = &sys->stage;
    uint32_t n = mailbox_quiet(st) ? 0 : ona__mailbox_count_before(sys->mailbox, frame);
    for (uint32_t i = st->head; i < st->count; i++)
        n += st->items[i].stamp.frame < frame;
    /* relaxed: a hint; the lock orders the entries. */
    if (atomic_load_explicit(&st->over_n, memory_order_relaxed)) {
        uv_mutex_lock(&st->lock);
        for (uint32_t i = 0; i < st->over_count; i++)
            n += st->over[i].stamp.frame < frame;
        uv_mutex_unlock(&st->lock);
    }
    return n;
}

bool ona__delivery_full(const ona__system *target) {
    return !target->stage.hold && target->stage.backlog_start >= target->stage.capacity;
}

bool ona__delivery_waiting(const ona__system *sys) {
    const ona__stage *st = &sys->stage;
    /* relaxed: between frames (the frame's end ordered every send). */
    return st->head < st->count || atomic_load_explicit(&st->over_n, memory_order_relaxed) ||
           (!mailbox_quiet(st) && !ona__mailbox_is_empty(sys->mailbox));
}

void ona__delivery_boundary(ona__core *core) {
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        /* A receiver that in the last frame asked for more messages than it had keeps up: it
         * takes that frame's messages now, so they are in flight, not backlog. One that did not
         * (paused, restarting, waiting, or not receiving) is behind by all it holds. */
        ona__stage *st = &sys->stage;
        if (st->hold && sys->status == ONA_SYSTEM_RUNNING && st->gathered == core->frame) {
            /* It ran a turn again and took its backlog: ordinary backpressure from now on. */
            st->hold = false;
            atomic_store_explicit(&st->held_bytes, 0, memory_order_relaxed);
        }
        bool keeps_up = st->drained == core->frame && sys->status == ONA_SYSTEM_RUNNING;
        st->backlog_start = keeps_up ? ona__delivery_backlog_before(sys, core->frame)
                                     : ona__delivery_backlog(sys);
        /* relaxed: main between frames; the next frame's start publishes it. */
        atomic_store_explicit(&sys->stage.outside, 0, memory_order_relaxed);
    }
}
