/*
 * deque.h: a fixed-capacity Chase-Lev work-stealing deque of pointers. Internal.
 *
 * One thread, the owner, pushes and pops at the bottom (LIFO); any thread steals from the top
 * (FIFO). The deque never grows: the caller guarantees it never holds more items than its
 * capacity (the scheduler does, since a system is in at most one queue at a time), and pushing
 * into a full deque is a caller bug that ONA_ASSERT catches in debug and sanitizer builds.
 * NULL cannot be stored: pop and steal return NULL for "nothing".
 */
#ifndef ONA_DEQUE_H
#define ONA_DEQUE_H

#include "common.h"

#include <stdatomic.h>

typedef struct ona__deque {
    /* Thieves' end and the owner's end a cache line apart (padding, not _Alignas: deques live
     * inside structs allocated with malloc's alignment). */
    atomic_llong top;
    char pad_top_[ONA_CACHE_LINE];
    atomic_llong bottom;
    char pad_bottom_[ONA_CACHE_LINE];
    _Atomic(void *) *slots;
    long long mask;
} ona__deque;

/* Makes an empty deque holding at least `capacity` items (rounded up to a power of two, at least
 * 2). Not thread-safe: call before the deque is shared. Errors: ONA_ENOMEM. */
int ona__deque_init(ona__deque *d, uint32_t capacity);
/* Frees the slots. No thread may use the deque any more; safe on a zeroed or freed deque. */
void ona__deque_free(ona__deque *d);

/* Owner only. Adds `item` (not NULL) at the bottom. The deque must not be full. */
void ona__deque_push(ona__deque *d, void *item);
/* Owner only. Takes the newest item (LIFO), or returns NULL when the deque is empty or a thief
 * took its last item first. */
void *ona__deque_pop(ona__deque *d);
/* Any thread. Takes the oldest item (FIFO), or returns NULL when the deque is empty or another
 * thread took that item first (the caller looks elsewhere or retries). */
void *ona__deque_steal(ona__deque *d);
/* Any thread. How many items the deque holds, as a hint: stale by the time it returns, and may
 * be momentarily -1 while the owner pops from an empty deque. Never use it for correctness. */
long long ona__deque_size(ona__deque *d);

#endif
