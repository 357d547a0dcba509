/*
 * deque.c: the fixed-capacity Chase-Lev work-stealing deque (deque.h).
 *
 * Design note. This is the deque of Lê, Pop, Cohen and Zappa Nardelli, "Correct and Efficient
 * Work-Stealing for Weak Memory Models" (PPoPP 2013), without the growing array, and with
 * seq_cst operations in place of the paper's seq_cst fences so that ThreadSanitizer, which does
 * not model fences, understands them. `top` and `bottom` only grow (bottom dips by one inside
 * pop and comes back); slot i lives at index i & mask, so the indices wrap around the array
 * freely. The owner alone writes `bottom` and the slots; thieves and the owner's pop of the last
 * item race for `top` with a CAS, and the winner of that CAS owns the item.
 *
 * Items in [top, bottom) are in the deque. The capacity is never exceeded (see deque.h), so a
 * push never overwrites a slot that a thief may still be reading: a thief reads slot t only
 * while t < bottom, and the owner reuses that slot only once bottom - top < capacity again, that
 * is, after top moved past t, which makes the thief's CAS fail and its read unused.
 */
#include "deque.h"

int ona__deque_init(ona__deque *d, uint32_t capacity) {
    long long cap = 2;
    while (cap < (long long)capacity)
        cap <<= 1;
    d->slots = ona__calloc((size_t)cap, sizeof *d->slots);
    if (!d->slots)
        return ONA_ENOMEM;
    d->mask = cap - 1;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    return 0;
}

void ona__deque_free(ona__deque *d) {
    ona__free(d->slots);
    d->slots = NULL;
    d->mask = 0;
}

void ona__deque_push(ona__deque *d, void *item) {
    ONA_ASSERT(item != NULL);
    /* relaxed: only the owner writes bottom. */
    long long b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    /* relaxed: top only grows, and every pop or steal the caller counts on having made room
     * happened before this push, so the value read is never older than the caller's bound. */
    ONA_ASSERT(b - atomic_load_explicit(&d->top, memory_order_relaxed) <= d->mask);
    /* relaxed: the slot is published by the release store of bottom below. */
    atomic_store_explicit(&d->slots[b & d->mask], item, memory_order_relaxed);
    /* release: a thief that reads bottom sees the slot and whatever the owner wrote into the
     * item before pushing it. */
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
}

void *ona__deque_pop(ona__deque *d) {
    /* relaxed: only the owner writes bottom. */
    long long b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    /* seq_cst: the store of bottom and the load of top must not reorder (the paper's fence). */
    atomic_store_explicit(&d->bottom, b, memory_order_seq_cst);
    long long t = atomic_load_explicit(&d->top, memory_order_seq_cst);
    if (t > b) {
        /* Empty. relaxed: restoring the owner's own value; nothing to publish. */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    /* relaxed: the owner wrote this slot itself. */
    void *item = atomic_load_explicit(&d->slots[b & d->mask], memory_order_relaxed);
    if (t == b) {
        /* The last item: race the thieves for it. seq_cst as in the paper; relaxed on failure
         * because the value read is not used. */
        if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            item = NULL;
        /* relaxed: top is now b + 1 either way; bottom returns to it, publishing nothing. */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
    return item;
}

void *ona__deque_steal(ona__deque *d) {
    /* seq_cst: top before bottom, in one total order with ona__deque_pop's operations. */
    long long t = atomic_load_explicit(&d->top, memory_order_seq_cst);
    long long b = atomic_load_explicit(&d->bottom, memory_order_seq_cst);
    if (t >= b)
        return NULL;
    /* relaxed: the seq_cst load of bottom (after the owner's release store) ordered the slot;
     * if the owner has since reused it, top moved and the CAS below fails. */
    void *item = atomic_load_explicit(&d->slots[t & d->mask], memory_order_relaxed);
    /* seq_cst: one total order with the owner's pop of the last item; relaxed on failure
     * because the value read is not used. */
    if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return NULL; /* lost the race; the caller looks elsewhere or retries */
    return item;
}

long long ona__deque_size(ona__deque *d) {
    /* relaxed: a hint for waking helpers and for has_work; never used for correctness. */
    long long b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    long long t = atomic_load_explicit(&d->top, memory_order_relaxed);
    return b - t;
}
