/*
 * order.c: the declared order between systems (order.h).
 *
 * Design note.
 *  - Members are the systems with an `after` list and the systems such lists resolve to. Main
 *    resolves the lists (names to every system of that name) when systems came or went, sorts
 *    the members topologically and gives each the set of its transitive predecessors as a bit
 *    set over the members' indexes: delivery asks "is the sender before me?" once a message.
 *    Systems outside the order cost nothing here.
 *  - Each frame main plans who waits for whom among the members that run this frame: walking a
 *    member's direct predecessors, a predecessor that runs is waited for, one that does not is
 *    walked through to its own. A member with nothing to wait for goes into the frame list with
 *    the others; the rest are queued (counted in `active`, so the frame cannot end under them)
 *    but placed in no queue until the last of their predecessors ends its part and pushes them.
 *  - Cycles are refused at spawn, against every system that exists or is pending. Two spawns on
 *    two threads in one frame could still close one between them; the rebuild finds it, logs it
 *    by name, and leaves those systems unordered.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ref_matches(const ona__order_ref *r, const ona__system *s) {
    return r->handle ? r->handle == s->id : strcmp(r->name, s->name) == 0;
}

static bool refs_system(const ona__system *y, const ona__system *x) {
    for (uint32_t i = 0; i < y->after_count; i++)
        if (ref_matches(&y->after[i], x))
            return true;
    return false;
}

int ona__order_refs(const ona_system *after, uint32_t after_count, const char *const *names,
                    uint32_t name_count, ona__order_ref *out, uint32_t *count, char *err,
                    size_t errsize) {
    *count = 0;
    if ((after_count && !after) || (name_count && !names)) {
        snprintf(err, errsize, "after: a count without its list");
        return ONA_EINVAL;
    }
    if ((uint64_t)after_count + name_count > ONA_MAX_AFTER) {
        snprintf(err, errsize, "after: %u entries, more than ONA_MAX_AFTER (%d)",
                 after_count + name_count, ONA_MAX_AFTER);
        return ONA_EINVAL;
    }
    for (uint32_t i = 0; i < after_count; i++) {
        if (!after[i].id) {
            snprintf(err, errsize, "after[%u]: the handle is 0", i + 1);
            return ONA_EINVAL;
        }
        out[*count] = (ona__order_ref){.handle = after[i].id};
        (*count)++;
    }
    for (uint32_t i = 0; i < name_count; i++) {
        if (!names[i] || !names[i][0] || strlen(names[i]) > ONA_MAX_NAME_BYTES) {
            snprintf(err, errsize, "after: name %u is %s", i + 1,
                     !names[i] || !names[i][0] ? "empty" : "longer than 63 bytes");
            return ONA_EINVAL;
        }
        out[*count] = (ona__order_ref){0};
        snprintf(out[*count].name, sizeof out[*count].name, "%s", names[i]);
        (*count)++;
    }
    return 0;
}

/* --- The check at spawn ---------------------------------------------------------------------- */

static void append_name(char *err, size_t errsize, size_t *len, const char *name, bool last) {
    int w = snprintf(err + *len, errsize - *len, "'%s'%s", name, last ? "" : " after ");
    if (w > 0)
        *len = ONA_MIN(errsize - 1, *len + (size_t)w);
}

int ona__order_check(ona__core *core, const char *name, const ona__order_ref *after,
                     uint32_t count, char *err, size_t errsize) {
    if (count == 0)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        const ona__order_ref *r = &after[i];
        if (r->handle) {
            ona__system *s = ona__actor_resolve(core, r->handle);
            if (!s) {
                snprintf(err, errsize,
                         "after[%u]: no such system (the handle %llu is stale or was never "
                         "valid)",
                         i + 1, (unsigned long long)r->handle);
                return ONA_EINVAL;
            }
        } else if (!r->name[0]) {
            snprintf(err, errsize, "after[%u]: a name is empty", i + 1);
            return ONA_EINVAL;
        } else if (strcmp(r->name, name) == 0) {
            snprintf(err, errsize, "'%s' after '%s' is a cycle", name, name);
            return ONA_EINVAL;
        }
    }
    /* Every system that could be on a path: those with an order of their own. */
    uv_mutex_lock(&core->pending_lock);
    uint32_t n = 0, total = core->system_count + core->pending_count;
    ona__system **c = ona__malloc((size_t)(total ? total : 1) * sizeof *c);
    int32_t *parent = ona__malloc((size_t)(total ? total : 1) * sizeof *parent);
    if (!c || !parent) {
        uv_mutex_unlock(&core->pending_lock);
        ona__free(c);
        ona__free(parent);
        snprintf(err, errsize, "out of memory checking the order");
        return ONA_ENOMEM;
    }
    for (uint32_t i = 0; i < core->system_count; i++)
        if (core->systems[i]->after_count && core->systems[i]->status != ONA_SYSTEM_STOPPED)
            c[n++] = core->systems[i];
    for (uint32_t i = 0; i < core->pending_count; i++)
        if (core->pending[i]->after_count && core->pending[i]->status != ONA_SYSTEM_STOPPED)
            c[n++] = core->pending[i];
    /* Breadth first from the new system along "is after": parent[i] is where c[i] was reached
     * from (-1: from the new system itself, which only name refs can reach), -2 unreached. */
    for (uint32_t i = 0; i < n; i++) {
        parent[i] = -2;
        for (uint32_t k = 0; k < c[i]->after_count; k++)
            if (!c[i]->after[k].handle && strcmp(c[i]->after[k].name, name) == 0)
                parent[i] = -1;
    }
    int rc = 0;
    for (bool grew = true; grew && rc == 0;) {
        grew = false;
        for (uint32_t i = 0; i < n && rc == 0; i++) {
            if (parent[i] == -2)
                continue;
            bool hit = false;
            for (uint32_t k = 0; k < count && !hit; k++)
                hit = ref_matches(&after[k], c[i]);
            if (hit) {
                size_t len = 0;
                append_name(err, errsize, &len, name, false);
                for (int32_t j = (int32_t)i; j >= 0; j = parent[j])
                    append_name(err, errsize, &len, c[j]->name, false);
                append_name(err, errsize, &len, name, true);
                snprintf(err + len, errsize - len, " is a cycle");
                rc = ONA_EINVAL;
                break;
            }
            for (uint32_t j = 0; j < n; j++)
                if (parent[j] == -2 && refs_system(c[j], c[i])) {
                    parent[j] = (int32_t)i;
                    grew = true;
                }
        }
    }
    uv_mutex_unlock(&core->pending_lock);
    ona__free(c);
    ona__free(parent);
    return rc;
}

/* --- Rebuild --------------------------------------------------------------------------------- */

static bool push_ptr(ona__system ***arr, uint32_t *count, uint32_t *cap, ona__system *s) {
    if (*count == *cap) {
        uint32_t n = *cap ? 2 * *cap : 8;
        ona__system **p = ona__realloc(*arr, (size_t)n * sizeof *p);
        if (!p)
            return false;
        *arr = p;
        *cap = n;
    }
    (*arr)[(*count)++] = s;
    return true;
}

static int by_name(const void *a, const void *b) {
    const ona__system *x = *(ona__system *const *)a, *y = *(ona__system *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->spawn_order < y->spawn_order ? -1 : x->spawn_order > y->spawn_order);
}

static void add_member(ona__order *o, ona__system *s) {
    if (s->order_index != ONA__ORDER_NONE)
        return;
    if (!push_ptr(&o->members, &o->count, &o->cap, s))
        return;
    s->order_index = o->count - 1;
}

static int by_spawn(const void *a, const void *b) {
    const ona__system *x = *(ona__system *const *)a, *y = *(ona__system *const *)b;
    return x->spawn_order < y->spawn_order ? -1 : x->spawn_order > y->spawn_order;
}

static void rebuild(ona__core *core) {
    ona__order *o = &core->order;
    o->dirty = false;
    /* The old members may have ended and been freed: every live system is reset below. */
    o->count = 0;
    bool any = false;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *s = core->systems[i];
        s->order_index = ONA__ORDER_NONE;
        s->order_runs = false;
        s->order_wait_ns = 0;
        s->order_place = 0;
        s->order_direct_count = 0;
        any |= s->after_count > 0;
    }
    o->words = 0;
    if (!any)
        return;
    /* Names resolve through a copy of the systems sorted by name. */
    ona__system **sorted = ona__malloc((size_t)core->system_count * sizeof *sorted);
    if (!sorted) {
        ona_log(ONA_LOG_ERROR, "scheduler", "out of memory building the order; this frame runs "
                                            "unordered");
        return;
    }
    memcpy(sorted, core->systems, (size_t)core->system_count * sizeof *sorted);
    qsort(sorted, core->system_count, sizeof *sorted, by_name);
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *v = core->systems[i];
        if (!v->after_count)
            continue;
        o->visit++;
        for (uint32_t k = 0; k < v->after_count; k++) {
            const ona__order_ref *r = &v->after[k];
            if (r->handle) {
                ona__system *u = ona__actor_resolve(core, r->handle);
                if (u && u != v && u->order_visit != o->visit) {
                    u->order_visit = o->visit;
                    push_ptr(&v->order_direct, &v->order_direct_count, &v->order_direct_cap, u);
                }
                continue;
            }
            /* lower bound of the name */
            uint32_t lo = 0, hi = core->system_count;
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (strcmp(sorted[mid]->name, r->name) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < core->system_count && strcmp(sorted[lo]->name, r->name) == 0; lo++) {
                ona__system *u = sorted[lo];
                if (u != v && u->order_visit != o->visit) {
                    u->order_visit = o->visit;
                    push_ptr(&v->order_direct, &v->order_direct_count, &v->order_direct_cap, u);
                }
            }
        }
        if (v->order_direct_count) {
            add_member(o, v);
            for (uint32_t k = 0; k < v->order_direct_count; k++)
                add_member(o, v->order_direct[k]);
        }
    }
    ona__free(sorted);
    if (o->count == 0)
        return;
    /* Members in spawn order, so indexes (and what iterates them) are the same every run. */
    qsort(o->members, o->count, sizeof *o->members, by_spawn);
    for (uint32_t i = 0; i < o->count; i++)
        o->members[i]->order_index = i;
    o->words = (o->count + 63) / 64;
    size_t need = (size_t)o->count * o->words;
    if (need > o->bits_cap) {
        uint64_t *b = ona__realloc(o->bits, need * sizeof *b);
        if (!b) {
            for (uint32_t i = 0; i < o->count; i++)
                o->members[i]->order_index = ONA__ORDER_NONE;
            o->count = o->words = 0;
            ona_log(ONA_LOG_ERROR, "scheduler", "out of memory building the order; this frame "
                                                "runs unordered");
            return;
        }
        o->bits = b;
        o->bits_cap = need;
    }
    memset(o->bits, 0, need * sizeof *o->bits);
    /* Predecessor sets in rounds: a member is done once all its direct predecessors are. A round
     * that finishes nobody leaves only cycles (closed by concurrent spawns). */
    uint32_t left = o->count;
    bool *done = ona__calloc(o->count, sizeof *done);
    if (!done) {
        for (uint32_t i = 0; i < o->count; i++)
            o->members[i]->order_index = ONA__ORDER_NONE;
        o->count = o->words = 0;
        return;
    }
    while (left) {
        uint32_t finished = 0;
        for (uint32_t i = 0; i < o->count; i++) {
            ona__system *v = o->members[i];
            if (done[i])
                continue;
            bool ready = true;
            for (uint32_t k = 0; k < v->order_direct_count && ready; k++)
                ready = done[v->order_direct[k]->order_index];
            if (!ready)
                continue;
            uint64_t *bv = o->bits + (size_t)i * o->words;
            for (uint32_t k = 0; k < v->order_direct_count; k++) {
                uint32_t u = v->order_direct[k]->order_index;
                const uint64_t *bu = o->bits + (size_t)u * o->words;
                for (uint32_t w = 0; w < o->words; w++)
                    bv[w] |= bu[w];
                bv[u / 64] |= 1ull << (u % 64);
            }
            done[i] = true;
            v->order_place = o->count - left + 1;
            finished++;
            left--;
        }
        if (finished)
            continue;
        for (uint32_t i = 0; i < o->count; i++) {
            ona__system *v = o->members[i];
            if (done[i])
                continue;
            ona_log(ONA_LOG_ERROR, v->name,
                    "is on a cycle of `after` closed by systems spawned in the same frame; its "
                    "order is dropped");
            v->order_direct_count = 0;
        }
    }
    ona__free(done);
}

void ona__order_update(ona__core *core) {
    if (core->order.dirty)
        rebuild(core);
}

/* --- The frame ------------------------------------------------------------------------------- */

void ona__order_plan(ona__core *core) {
    ona__order *o = &core->order;
    for (uint32_t i = 0; i < o->count; i++) {
        ona__system *v = o->members[i];
        v->order_succ_count = 0;
        atomic_store_explicit(&v->order_waiting, 0, memory_order_relaxed);
    }
    ona__system **stack = NULL;
    uint32_t depth = 0, cap = 0;
    for (uint32_t i = 0; i < o->count; i++) {
        ona__system *v = o->members[i];
        if (!v->order_runs)
            continue;
        uint32_t waits = 0;
        o->visit++;
        depth = 0;
        for (uint32_t k = 0; k < v->order_direct_count; k++)
            push_ptr(&stack, &depth, &cap, v->order_direct[k]);
        while (depth) {
            ona__system *u = stack[--depth];
            if (u->order_visit == o->visit)
                continue;
            u->order_visit = o->visit;
            if (u->order_runs) {
                if (push_ptr(&u->order_succ, &u->order_succ_count, &u->order_succ_cap, v))
                    waits++;
                continue;
            }
            for (uint32_t k = 0; k < u->order_direct_count; k++)
                push_ptr(&stack, &depth, &cap, u->order_direct[k]);
        }
        /* relaxed: published with the frame list (release) before any thread runs a turn. */
        atomic_store_explicit(&v->order_waiting, waits, memory_order_relaxed);
    }
    ona__free(stack);
}

bool ona__order_before(const ona__system *receiver, uint32_t place) {
    if (place == 0 || receiver->order_index == ONA__ORDER_NONE)
        return false;
    const ona__order *o = &receiver->core->order;
    uint32_t u = place - 1;
    if (u >= o->count)
        return false;
    const uint64_t *b = o->bits + (size_t)receiver->order_index * o->words;
    return (b[u / 64] >> (u % 64)) & 1;
}

void ona__order_done(ona__core *core, ona__system *sys) {
    if (sys->order_index == ONA__ORDER_NONE || !sys->order_runs ||
        sys->order_done_frame == core->frame)
        return;
    sys->order_done_frame = core->frame;
    for (uint32_t i = 0; i < sys->order_succ_count; i++) {
        ona__system *v = sys->order_succ[i];
        /* acq_rel: this part's sends happen before the successor's gather; the last releaser
         * acquires every earlier one's (a chain of RMWs on one counter). */
        if (atomic_fetch_sub_explicit(&v->order_waiting, 1, memory_order_acq_rel) == 1) {
            v->order_wait_ns = ona__now_ns() - core->frame_start_ns;
            ona__runq_ready(core, v);
        }
    }
}

void ona__order_free(ona__order *order) {
    ona__free(order->members);
    ona__free(order->bits);
    memset(order, 0, sizeof *order);
}
