/*
 * mailbox.c: a bounded multi-producer single-consumer queue of messages (mailbox.h).
 *
 * Design note. This is Dmitry Vyukov's bounded MPMC queue used with a single consumer: an array
 * of cells, each with a sequence number, and two positions that only grow. A producer claims the
 * position `tail` with a CAS when the cell there has sequence == tail (free), copies the message
 * in, and publishes it by storing sequence = tail + 1. The consumer takes the cell at `head` when
 * its sequence is head + 1 (ready), and frees it by storing sequence = head + capacity. No locks;
 * a producer never waits on another producer's copy except that the consumer sees cells in
 * position order, which is what gives per-producer FIFO order.
 *
 * Counters cost nothing on the fast path: pushed and popped are the positions themselves, `full`
 * is only counted on the refusal path, and the high-water mark is written only when it grows
 * (and `head` read only when it may have).
 *
 * push_many claims k consecutive places with one CAS: the consumer frees places in order, so the
 * last one being free means all are.
 *
 * Memory orders: the cell sequence is the only publication point (release on store, acquire on
 * load). `tail` and `head` are claimed/advanced with relaxed operations because the cell's
 * sequence, not the position, orders the message bytes.
 */
#include "mailbox.h"

#include "common.h"

#include <stdatomic.h>

typedef struct cell {
    atomic_size_t seq;
    ona__stamp stamp;
    ona_message msg;
} cell;

/* Producers' and the consumer's positions are a full cache line apart, so they never share one
 * (padding rather than _Alignas: the allocator hook promises malloc's alignment, not 64). */
struct ona__mailbox {
    atomic_size_t tail;        /* next position a producer claims */
    atomic_uint_fast64_t full; /* refused pushes */
    atomic_uint high_water;
    atomic_size_t head_seen; /* a recent `head`, for the high-water mark (note_size) */
    char pad_producers_[ONA_CACHE_LINE];
    atomic_size_t head; /* next position the consumer takes */
    char pad_consumer_[ONA_CACHE_LINE];
    size_t mask;
    uint32_t capacity;
    cell *cells;
};

enum { MAX_CAPACITY = 1u << 24 };

int ona__mailbox_create(uint32_t capacity, ona__mailbox **out) {
    if (!out || capacity == 0 || capacity > MAX_CAPACITY)
        return ONA_EINVAL;
    *out = NULL;
    uint32_t cap = 2;
    while (cap < capacity)
        cap <<= 1;
    ona__mailbox *mb = ona__calloc(1, sizeof *mb);
    if (!mb)
        return ONA_ENOMEM;
    mb->cells = ona__calloc(cap, sizeof(cell));
    if (!mb->cells) {
        ona__free(mb);
        return ONA_ENOMEM;
    }
    for (uint32_t i = 0; i < cap; i++)
        atomic_init(&mb->cells[i].seq, i);
    atomic_init(&mb->tail, 0);
    atomic_init(&mb->head, 0);
    atomic_init(&mb->full, 0);
    atomic_init(&mb->high_water, 0);
    atomic_init(&mb->head_seen, 0);
    mb->mask = cap - 1;
    mb->capacity = cap;
    *out = mb;
    return 0;
}

void ona__mailbox_destroy(ona__mailbox *mb) {
    if (!mb)
        return;
    ona_message m;
    ona_message_init(&m);
    while (ona__mailbox_pop(mb, &m) == 0)
        ona_message_release(&m);
    ona__free(mb->cells);
    ona__free(mb);
}

static void note_size(ona__mailbox *mb, size_t pos_after) {
    /* relaxed: an approximate occupancy is all the statistic promises. `head_seen` is an old
     * `head`, so pos_after - head_seen is at least the size: only when that bound passes the
     * mark is the consumer's line read (a push would otherwise miss on it after every pop). */
    unsigned seen = atomic_load_explicit(&mb->high_water, memory_order_relaxed);
    if (pos_after - atomic_load_explicit(&mb->head_seen, memory_order_relaxed) <= seen)
        return;
    size_t head = atomic_load_explicit(&mb->head, memory_order_relaxed);
    atomic_store_explicit(&mb->head_seen, head, memory_order_relaxed);
    uint32_t size = (uint32_t)(pos_after - head);
    while (size > seen && size <= mb->capacity &&
           !atomic_compare_exchange_weak_explicit(&mb->high_water, &seen, size,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

int ona__mailbox_push(ona__mailbox *mb, ona_message *m) {
    static const ona__stamp none;
    return ona__mailbox_push_stamped(mb, m, &none);
}

int ona__mailbox_push_stamped(ona__mailbox *mb, ona_message *m, const ona__stamp *stamp) {
    /* relaxed: the position is only a ticket; the cell's sequence orders the data. */
    size_t pos = atomic_load_explicit(&mb->tail, memory_order_relaxed);
    cell *c;
    for (;;) {
        c = &mb->cells[pos & mb->mask];
        /* acquire: the consumer's release of this cell (its reads of the old message) happens
         * before we overwrite it. */
        size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        intptr_t diff = (intptr_t)seq - (intptr_t)pos;
        if (diff == 0) {
            /* relaxed: claiming the ticket publishes nothing. */
            if (atomic_compare_exchange_weak_explicit(&mb->tail, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed))
                break;
        } else if (diff < 0) {
            /* relaxed: a statistic. */
            atomic_fetch_add_explicit(&mb->full, 1, memory_order_relaxed);
            return ONA_EFULL;
        } else {
            pos = atomic_load_explicit(&mb->tail, memory_order_relaxed);
        }
    }
    c->msg = *m;
    c->stamp = *stamp;
    /* release: the message bytes written above are visible to the consumer that sees pos + 1. */
    atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
    ona_message_init(m);
    note_size(mb, pos + 1);
    return 0;
}

uint32_t ona__mailbox_push_many(ona__mailbox *mb, ona_message *msgs, uint32_t n) {
    if (n == 0)
        return 0;
    /* relaxed: as in push, the position is a ticket. */
    size_t pos = atomic_load_explicit(&mb->tail, memory_order_relaxed);
    size_t want;
    for (;;) {
        cell *c = &mb->cells[pos & mb->mask];
        /* acquire: as in push. */
        intptr_t diff =
            (intptr_t)atomic_load_explicit(&c->seq, memory_order_acquire) - (intptr_t)pos;
        if (diff < 0) {
            /* relaxed: a statistic. */
            atomic_fetch_add_explicit(&mb->full, 1, memory_order_relaxed);
            return 0;
        }
        if (diff > 0) {
            pos = atomic_load_explicit(&mb->tail, memory_order_relaxed);
            continue;
        }
        /* `pos` is free. The consumer frees places in order, so when the last place wanted is
         * free every one before it is: estimate the room from `head` (relaxed: only a guess,
         * checked below), then confirm on the last cell. */
        size_t head = atomic_load_explicit(&mb->head, memory_order_relaxed);
        size_t used = pos - head;
        size_t room = used < mb->capacity ? mb->capacity - used : 1;
        want = n < room ? n : room;
        if (want > 1) {
            size_t last = pos + want - 1;
            /* acquire: the consumer's release of the last cell, which it released after every
             * earlier one, happens before we overwrite any of them. */
            if (atomic_load_explicit(&mb->cells[last & mb->mask].seq, memory_order_acquire) != last)
                want = 1;
        }
        /* relaxed: claiming the tickets publishes nothing. */
        if (atomic_compare_exchange_weak_explicit(&mb->tail, &pos, pos + want, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
    for (size_t i = 0; i < want; i++) {
        cell *c = &mb->cells[(pos + i) & mb->mask];
        c->msg = msgs[i];
        c->stamp = (ona__stamp){0};
        /* release: as in push, per cell (the consumer takes them one by one). */
        atomic_store_explicit(&c->seq, pos + i + 1, memory_order_release);
        ona_message_init(&msgs[i]);
    }
    note_size(mb, pos + want);
    return (uint32_t)want;
}

int ona__mailbox_pop(ona__mailbox *mb, ona_message *out) {
    ona__stamp ignored;
    return ona__mailbox_pop_stamped(mb, out, &ignored);
}

int ona__mailbox_pop_stamped(ona__mailbox *mb, ona_message *out, ona__stamp *stamp) {
    /* relaxed: only this (consumer) thread writes head. */
    size_t pos = atomic_load_explicit(&mb->head, memory_order_relaxed);
    cell *c = &mb->cells[pos & mb->mask];
    /* acquire: pairs with the producer's release; the message bytes are complete. */
    size_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    if (seq != pos + 1)
        return ONA_EEMPTY;
    *out = c->msg;
    *stamp = c->stamp;
    /* relaxed: head is read by others only for statistics and emptiness hints, which the
     * scheduler orders with its own fences. */
    atomic_store_explicit(&mb->head, pos + 1, memory_order_relaxed);
    /* release: our read of the message happens before a producer reuses the cell. */
    atomic_store_explicit(&c->seq, pos + mb->mask + 1, memory_order_release);
    return 0;
}

bool ona__mailbox_is_empty(const ona__mailbox *mb) {
    size_t pos = atomic_load_explicit(&mb->head, memory_order_relaxed);
    /* acquire: a ready cell means a message was published. */
    size_t seq = atomic_load_explicit(&mb->cells[pos & mb->mask].seq, memory_order_acquire);
    return seq != pos + 1;
}

bool ona__mailbox_is_full(const ona__mailbox *mb) {
    size_t pos = atomic_load_explicit(&mb->tail, memory_order_relaxed);
    /* acquire: a free cell at tail means the consumer released it. */
    size_t seq = atomic_load_explicit(&mb->cells[pos & mb->mask].seq, memory_order_acquire);
    return (intptr_t)seq - (intptr_t)pos < 0;
}

uint32_t ona__mailbox_size(const ona__mailbox *mb) {
    /* relaxed: a snapshot. Read head first so that tail - head never goes negative. */
    size_t head = atomic_load_explicit(&mb->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&mb->tail, memory_order_relaxed);
    size_t size = tail > head ? tail - head : 0;
    return (uint32_t)ONA_MIN(size, (size_t)mb->capacity);
}

uint32_t ona__mailbox_capacity(const ona__mailbox *mb) {
    return mb->capacity;
}

void ona__mailbox_stats_get(const ona__mailbox *mb, ona__mailbox_stats *out) {
    /* relaxed: statistics snapshots. */
    size_t head = atomic_load_explicit(&mb->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&mb->tail, memory_order_relaxed);
    out->popped = head;
    out->pushed = tail > head ? tail : head;
    out->full = atomic_load_explicit(&mb->full, memory_order_relaxed);
    out->high_water = atomic_load_explicit(&mb->high_water, memory_order_relaxed);
    out->capacity = mb->capacity;
}
