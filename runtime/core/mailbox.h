/*
 * mailbox.h: a bounded multi-producer single-consumer queue of messages, one per system.
 *
 * Any thread may push; only the owning system's turn (one thread at a time) pops. Push never
 * blocks and never drops: a full mailbox returns ONA_EFULL and leaves the message with the
 * caller. Parking on a full or empty mailbox is the scheduler's business, not the mailbox's.
 */
#ifndef ONA_MAILBOX_H
#define ONA_MAILBOX_H

#include "ona/message.h"

typedef struct ona__mailbox ona__mailbox;

/* What ordered delivery (delivery.c) needs to put a message in its place: the frame it was sent
 * in, the sender's spawn order + 1 (0: from C or the runtime), the sender's number of the message
 * in that frame, and the sender's place in the declared order + 1 (0: in none). Carried beside
 * the message in its cell; immediate delivery leaves it zero. */
typedef struct ona__stamp {
    uint64_t frame;
    uint32_t order;
    uint32_t seq;
    uint32_t place;
} ona__stamp;

typedef struct ona__mailbox_stats {
    uint64_t pushed;     /* messages accepted */
    uint64_t popped;     /* messages taken by the receiver */
    uint64_t full;       /* pushes refused because the mailbox was full */
    uint32_t high_water; /* most messages queued at once */
    uint32_t capacity;
} ona__mailbox_stats;

/* Capacity is rounded up to a power of two (at least 2, at most 1 << 24). Errors: ONA_EINVAL,
 * ONA_ENOMEM. */
int ona__mailbox_create(uint32_t capacity, ona__mailbox **out);
/* Releases every message still queued. No thread may use the mailbox any more. */
void ona__mailbox_destroy(ona__mailbox *mb);

/* Any thread. Moves *m into the mailbox (then *m is empty) and returns 0, or returns ONA_EFULL
 * and leaves *m untouched. */
int ona__mailbox_push(ona__mailbox *mb, ona_message *m);
/* As push, with the stamp stored beside the message. */
int ona__mailbox_push_stamped(ona__mailbox *mb, ona_message *m, const ona__stamp *stamp);
/* Any thread. Moves msgs[0..k) into the mailbox with one claim of k consecutive places, in
 * order (each is empty again), and returns k: n, or fewer (0 when full) when the mailbox has
 * room for fewer. msgs[k..n) are untouched. */
uint32_t ona__mailbox_push_many(ona__mailbox *mb, ona_message *msgs, uint32_t n);
/* Consumer only. Moves the oldest message into *out (which must be empty) and returns 0, or
 * returns ONA_EEMPTY. Messages from one producer come out in the order it pushed them. */
int ona__mailbox_pop(ona__mailbox *mb, ona_message *out);
/* As pop, also copying the message's stamp into *stamp. */
int ona__mailbox_pop_stamped(ona__mailbox *mb, ona_message *out, ona__stamp *stamp);

/* Any thread; a snapshot that may be stale by the time it returns. The scheduler orders it
 * against its own state with seq_cst fences. */
bool ona__mailbox_is_empty(const ona__mailbox *mb);
bool ona__mailbox_is_full(const ona__mailbox *mb);
uint32_t ona__mailbox_size(const ona__mailbox *mb);
uint32_t ona__mailbox_capacity(const ona__mailbox *mb);

/* Any thread; counters are relaxed snapshots. */
void ona__mailbox_stats_get(const ona__mailbox *mb, ona__mailbox_stats *out);

#endif
