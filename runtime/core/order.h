/*
 * order.h: the declared order between systems (a spawn's `after`), and how a frame keeps it.
 * Internal.
 *
 * A system may be after systems already spawned, named by handle or by name (a name means every
 * system of that name, those spawned later included). In each frame a system's part starts only
 * once every system before it (directly or through others) has finished its part; systems with
 * no order between them run in parallel. A system that does not run this frame (paused,
 * restarting, ended, waiting on backpressure) drops out and nobody waits for it; the order
 * through it still holds.
 *
 * Main rebuilds the order between frames when systems came or went and plans each frame; during
 * the frame the threads only read it, except the per-frame counts (atomic) that release a
 * successor when its last predecessor is done.
 */
#ifndef ONA_ORDER_H
#define ONA_ORDER_H

#include "ona/runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ona__system ona__system;
typedef struct ona__core ona__core;

enum { ONA__ORDER_NONE = UINT32_MAX };

/* One entry of `after`: a system's handle, or (handle 0) every system of a name. */
typedef struct ona__order_ref {
    uint64_t handle;
    char name[64];
} ona__order_ref;

typedef struct ona__order {
    bool dirty;                /* systems came or went: rebuild before the next frame */
    ona__system **members;     /* systems with an order, in spawn order */
    uint32_t count, cap;
    uint64_t *bits;            /* each member's transitive predecessors, `words` words each */
    size_t bits_cap;
    uint32_t words;
    uint32_t visit;            /* stamp for walks */
} ona__order;

/* Turns a public desc's `after` and `after_names` into refs (out holds ONA_MAX_AFTER): 0, or
 * ONA_EINVAL with err saying what is wrong. */
int ona__order_refs(const ona_system *after, uint32_t after_count, const char *const *names,
                    uint32_t name_count, ona__order_ref *out, uint32_t *count, char *err,
                    size_t errsize);
/* Any thread, in ona__core_spawn: refuses an `after` list that would make a cycle with the systems
 * that exist or are pending, writing "'a' after 'b' after 'a' is a cycle" (or why a ref is bad)
 * into err. 0 or ONA_EINVAL. */
int ona__order_check(ona__core *core, const char *name, const ona__order_ref *after,
                     uint32_t count, char *err, size_t errsize);
/* Main, before a frame: rebuilds the members and their predecessors when systems came or went. */
void ona__order_update(ona__core *core);
/* Main, before a frame, once every member's `order_runs` says whether it runs this frame: how
 * many running predecessors each running member waits for (`order_waiting`), and whom each
 * releases (`order_succ`). */
void ona__order_plan(ona__core *core);
/* Whether a message stamped with sender place `place` (order index + 1; 0 none) comes from a
 * system before `receiver`. Any thread in a frame. */
bool ona__order_before(const ona__system *receiver, uint32_t place);
/* The turn's thread, once per frame when the system's part of it ends (done, yielded, failed,
 * waiting on backpressure; in immediate delivery also at its first park): releases successors
 * whose last predecessor it was. */
void ona__order_done(ona__core *core, ona__system *sys);
void ona__order_free(ona__order *order);

#endif
