/*
 * delivery.h: ordered delivery, the default (ona_runtime_desc.delivery): what a system receives
 * in a turn is a function of the game's inputs alone, never of thread count or timing. Internal.
 *
 * Each system has a stage (its receive side: messages taken out of the mailbox, in their
 * canonical order, split into the ones this turn may see and the ones held for the next) and a
 * tally (its send side: how many messages it sent each receiver this frame). The turn's thread
 * owns both; main owns them between frames. The overflow (messages that found the mailbox's
 * cells taken) is shared and locked.
 */
#ifndef ONA_DELIVERY_H
#define ONA_DELIVERY_H

#include "mailbox.h"

#include <stdatomic.h>
#include <uv.h>

typedef struct ona__system ona__system;
typedef struct ona__core ona__core;

typedef struct ona__staged {
    ona__stamp stamp;
    ona_message msg;
} ona__staged;

typedef struct ona__stage {
    ona__staged *items; /* [head, ready) this turn's, [ready, count) held for the next */
    uint32_t head, ready, count, cap;
    uint64_t gathered; /* the frame whose messages were last gathered */
    uint64_t drained;  /* the last frame whose turn took all it had and asked for more */
    ona__staged *scratch;
    uint32_t scratch_cap;
    /* Sends that found every cell taken (many senders in one frame): locked, rare. */
    uv_mutex_t lock;
    ona__staged *over;
    uint32_t over_count, over_cap;
    atomic_uint over_n; /* over_count, readable without the lock */
    /* Messages sent before the last frame and still not taken, counted when the frame starts
     * (main writes it between frames; senders read it): what backpressure compares against the
     * capacity, the same on every thread count. Messages of the last frame are in flight, not
     * backlog: an unordered receiver takes them this frame. */
    uint32_t backlog_start;
    uint32_t capacity; /* the mailbox's, for senders' checks */
    atomic_uint outside; /* messages sent from C this frame (no tally of their own) */
    atomic_uint outside_seq;
    atomic_ullong refused; /* sends told to wait (backpressure), a statistic */
    /* Held: while the system is paused or restarting, and until its first turn after, sends to
     * it skip the capacity check (nobody waits on a receiver that cannot drain); the bytes they
     * queue meanwhile (`held_bytes`, counted by the senders) are bounded by `hold_bound`, its
     * memory cap. `hold` and `hold_bound` are main's, written between frames. */
    bool hold;
    size_t hold_bound;
    atomic_size_t held_bytes;
    /* Whether the mailbox can hold anything, without reading its lines: `sent_frame` is the
     * last frame in which anyone sent to it (a system's first send to it in a frame, every send
     * from C), `empty_at` the last frame whose gather found it empty (the receiver's). While
     * sent_frame < empty_at it is empty: an idle system's gather and boundary skip it. */
    atomic_ullong sent_frame;
    uint64_t empty_at;
    bool live; /* initialised and not yet freed */
} ona__stage;

/* The bound of a held receiver without a memory cap of its own (uncapped, or native). */
#define ONA__HOLD_BOUND_DEFAULT ((size_t)64 << 20)

typedef struct ona__tally_entry {
    uint64_t to, frame;
    uint32_t n;
} ona__tally_entry;

typedef struct ona__tally {
    ona__tally_entry *entries; /* open addressing by receiver handle */
    uint32_t cap, used;
    uint32_t last;      /* index of the entry the last send used: most sends repeat it */
    uint64_t seq_frame; /* the frame `seq` counts in */
    uint32_t seq;
} ona__tally;

int ona__stage_init(ona__stage *st, uint32_t capacity);
/* Releases every message still staged or in the overflow; returns how many. Main. */
uint32_t ona__stage_free(ona__stage *st);
void ona__tally_free(ona__tally *t);

/* Ordered send from `from` (NULL: C outside any system) to `target`: 0, or ONA_EFULL when the
 * receiver already had `capacity` messages waiting at the frame's start counting what this
 * sender sent it this frame (then `m` is untouched), ONA_ELIMIT when the receiver is held and
 * what was queued for it meanwhile would pass its bound (`m` untouched), or ONA_ENOMEM. */
int ona__delivery_send(ona__core *core, ona__system *from, ona__system *target, ona_message *m);
/* A message from the runtime (a monitor's notice) to `target`: stamped as from C in the current
 * frame, never refused by backpressure. 0 or ONA_ENOMEM. Main between frames, or `target`'s own
 * turn. */
int ona__delivery_notice(ona__core *core, ona__system *target, ona_message *m);
/* Main, between frames: `sys` pauses or waits to restart; sends to it are held (see the stage)
 * with `bound` bytes. */
void ona__delivery_hold(ona__system *sys, size_t bound);
/* At the start of a system's part of a frame, on its thread: takes every message out of the
 * mailbox and the overflow, puts them in canonical order and marks which this turn sees. */
void ona__delivery_gather(ona__system *sys);
/* The next message this turn sees, into sys->inbox: 0 or ONA_EEMPTY. */
int ona__delivery_take(ona__system *sys);
/* Messages waiting for the system (staged, in the mailbox, in the overflow). Main between frames
 * (exact), or a snapshot. */
uint32_t ona__delivery_backlog(ona__system *sys);
/* Of those, the ones sent before `frame`. Main between frames. */
uint32_t ona__delivery_backlog_before(ona__system *sys, uint64_t frame);
/* Whether a send to `target` would wait on backpressure this frame for a sender that has sent it
 * nothing yet: its backlog at the frame's start fills its capacity. */
bool ona__delivery_full(const ona__system *target);

/* Whether a message waits for sys: one held or not yet taken, in its mailbox, or in its
 * overflow. Main between frames, when every send of the last frame has ended, for either
 * delivery (immediate delivery uses only the mailbox). */
bool ona__delivery_waiting(const ona__system *sys);
/* Main, at the frame boundary: every system's backlog_start, the C counts reset. */
void ona__delivery_boundary(ona__core *core);

#endif
