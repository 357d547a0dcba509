/*
 * render_queue.c: thread-local render queues and their merge (render_queue.h).
 *
 * Design note. A queue is touched by one thread during a frame (the thread that owns it runs
 * systems, and a system's draw appends to the running thread's queue) and by main after the
 * frame's end, which synchronises with every worker's last turn; so no field needs an atomic.
 * Memory is kept from frame to frame: after the first frames a queue only grows when a frame
 * draws more than any before, so the per-frame path does not allocate.
 *
 * A draw that continues the previous entry (same system and key, next submission
 * number) extends it instead of adding one, so a system drawing 10,000 sprites of one texture
 * makes one entry, and the merge sorts a handful of entries rather than every sprite.
 *
 * Canvas passes. A draw's key names its target; the merge gives every canvas drawn into this
 * frame a pass, ordered so that a canvas is complete before a pass that samples it (a canvas
 * sampling itself is refused where it is drawn: bindings and ona_ctx_draw_ex), then the screen.
 * The order depends only on the entries, never on threads, like the rest of the merge.
 */
#include "render_queue.h"

#include "common.h"

#include <stddef.h>

_Static_assert(sizeof(ona_sprite) == sizeof(ona__sprite), "public and GPU sprite layouts agree");
_Static_assert(offsetof(ona_sprite, tint) == offsetof(ona__sprite, tint), "tint offset");
_Static_assert(offsetof(ona_sprite, src_w) == offsetof(ona__sprite, src_w), "src offset");

void ona__render_queue_init(ona__render_queue *q) {
    memset(q, 0, sizeof *q);
}

void ona__render_queue_free(ona__render_queue *q) {
    ona__free(q->draws);
    ona__free(q->sprites);
    ona__free(q->settings);
    ona__render_queue_init(q);
}

void ona__render_queue_clear(ona__render_queue *q) {
    q->draw_count = 0;
    q->sprite_count = 0;
    q->setting_count = 0;
}

static bool same_key(const ona__draw_key *a, const ona__draw_key *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

int ona__render_queue_push(ona__render_queue *q, const ona__draw_key *key, uint32_t order,
                           uint32_t *seq, const ona_sprite *sprites, uint32_t count) {
    if (count == 0)
        return 0;
    if (count > UINT32_MAX - q->sprite_count)
        return ONA_ENOMEM;
    if (ona__grow((void **)&q->sprites, &q->sprite_capacity, q->sprite_count + count,
                  sizeof *q->sprites))
        return ONA_ENOMEM;
    ona__draw *last = q->draw_count ? &q->draws[q->draw_count - 1] : NULL;
    bool extends = last && same_key(&last->key, key) && last->order == order &&
                   last->seq + last->count == *seq && last->first + last->count == q->sprite_count;
    if (!extends) {
        if (ona__grow((void **)&q->draws, &q->draw_capacity, q->draw_count + 1, sizeof *q->draws))
            return ONA_ENOMEM;
        last = &q->draws[q->draw_count++];
        *last = (ona__draw){*key, order, *seq, q->sprite_count, 0, 0, 0};
    }
    memcpy(q->sprites + q->sprite_count, sprites, (size_t)count * sizeof *sprites);
    q->sprite_count += count;
    last->count += count;
    *seq += count;
    return 0;
}

int ona__render_queue_set(ona__render_queue *q, uint32_t order, uint32_t *seq,
                          const ona__setting *setting) {
    if (ona__grow((void **)&q->settings, &q->setting_capacity, q->setting_count + 1,
                  sizeof *q->settings))
        return ONA_ENOMEM;
    ona__setting *s = &q->settings[q->setting_count++];
    *s = *setting;
    s->order = order;
    s->seq = (*seq)++;
    return 0;
}

static int cmp_draw(const void *pa, const void *pb) {
    const ona__draw *a = *(ona__draw *const *)pa, *b = *(ona__draw *const *)pb;
    if (a->pass != b->pass)
        return a->pass < b->pass ? -1 : 1;
    if (a->key.layer != b->key.layer)
        return a->key.layer < b->key.layer ? -1 : 1;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

static int cmp_setting(const void *pa, const void *pb) {
    const ona__setting *a = *(const ona__setting *const *)pa;
    const ona__setting *b = *(const ona__setting *const *)pb;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

static int cmp_u32(const void *pa, const void *pb) {
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* The index of canvas `id` in the sorted, distinct `ids`, or -1. */
static int find_id(const uint32_t *ids, uint32_t n, uint32_t id) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids[mid] == id)
            return (int)mid;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Orders the canvas passes so that a canvas drawn into this frame is complete before any pass
 * that samples it: Kahn's algorithm taking the smallest id among the ready canvases, and, where
 * the dependencies form a cycle, the smallest id left (that canvas samples the others as they
 * were at the end of the last frame). The first 64 canvases (by id) are ordered this way; any
 * more follow in id order. Writes each entry's pass rank. */
static int order_passes(ona__render_list *list) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < list->count; i++)
        if (list->sorted[i]->key.target)
            n++;
    if (ona__grow((void **)&list->passes, &list->pass_capacity, n, sizeof *list->passes))
        return ONA_ENOMEM;
    n = 0;
    for (uint32_t i = 0; i < list->count; i++)
        if (list->sorted[i]->key.target)
            list->passes[n++] = list->sorted[i]->key.target;
    if (n > 1)
        qsort(list->passes, n, sizeof *list->passes, cmp_u32);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < n; i++)
        if (distinct == 0 || list->passes[distinct - 1] != list->passes[i])
            list->passes[distinct++] = list->passes[i];
    list->pass_count = distinct;

    enum { MAX_ORDERED = 64 };
    uint32_t ordered = ONA_MIN(distinct, (uint32_t)MAX_ORDERED);
    uint64_t needs[MAX_ORDERED] = {0}; /* needs[t] bit c: pass t samples canvas c */
    for (uint32_t i = 0; i < list->count; i++) {
        const ona__draw *d = list->sorted[i];
        if (!d->key.target || d->key.texture == d->key.target)
            continue;
        int t = find_id(list->passes, distinct, d->key.target);
        int c = find_id(list->passes, distinct, d->key.texture);
        if (t >= 0 && c >= 0 && (uint32_t)t < ordered && (uint32_t)c < ordered)
            needs[t] |= 1ull << c;
    }
    uint32_t rank[MAX_ORDERED];
    uint64_t done = 0;
    for (uint32_t r = 0; r < ordered; r++) {
        int pick = -1, fallback = -1;
        for (uint32_t t = 0; t < ordered && pick < 0; t++) {
            if (done & (1ull << t))
                continue;
            if (fallback < 0)
                fallback = (int)t;
            if ((needs[t] & ~done & ~(1ull << t)) == 0)
                pick = (int)t;
        }
        if (pick < 0)
            pick = fallback; /* a cycle */
        done |= 1ull << pick;
        rank[pick] = r;
    }
    for (uint32_t i = 0; i < list->count; i++) {
        ona__draw *d = list->sorted[i];
        if (!d->key.target) {
            d->pass = distinct;
            continue;
        }
        int t = find_id(list->passes, distinct, d->key.target);
        d->pass = (uint32_t)t < ordered ? rank[t] : (uint32_t)t;
    }
    /* The passes in drawing order. */
    uint32_t by_rank[MAX_ORDERED];
    for (uint32_t t = 0; t < ordered; t++)
        by_rank[rank[t]] = list->passes[t];
    if (ordered)
        memcpy(list->passes, by_rank, ordered * sizeof *list->passes);
    return 0;
}

int ona__render_merge(ona__render_queue *const *queues, uint32_t queue_count,
                      ona__render_list *list) {
    uint32_t total = 0, settings = 0;
    list->sprite_total = 0;
    for (uint32_t i = 0; i < queue_count; i++) {
        total += queues[i]->draw_count;
        settings += queues[i]->setting_count;
        list->sprite_total += queues[i]->sprite_count;
    }
    list->count = 0;
    list->setting_count = 0;
    list->pass_count = 0;
    if (ona__grow((void **)&list->sorted, &list->capacity, total, sizeof *list->sorted) ||
        ona__grow((void **)&list->settings, &list->setting_capacity, settings,
                  sizeof *list->settings))
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < queue_count; i++) {
        for (uint32_t d = 0; d < queues[i]->draw_count; d++) {
            queues[i]->draws[d].queue = i;
            list->sorted[list->count++] = &queues[i]->draws[d];
        }
        for (uint32_t s = 0; s < queues[i]->setting_count; s++)
            list->settings[list->setting_count++] = &queues[i]->settings[s];
    }
    if (order_passes(list))
        return ONA_ENOMEM;
    /* (pass, layer, order, seq) is unique per entry (one system's seq never repeats in a frame)
     * and so is (order, seq) per setting, so qsort's instability cannot change the result. */
    if (list->count > 1)
        qsort(list->sorted, list->count, sizeof *list->sorted, cmp_draw);
    if (list->setting_count > 1)
        qsort(list->settings, list->setting_count, sizeof *list->settings, cmp_setting);
    return 0;
}

void ona__render_list_free(ona__render_list *list) {
    ona__free(list->sorted);
    ona__free(list->settings);
    ona__free(list->passes);
    memset(list, 0, sizeof *list);
}
