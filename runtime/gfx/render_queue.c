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
    ona__render_queue_init(q);
}

void ona__render_queue_clear(ona__render_queue *q) {
    q->draw_count = 0;
    q->sprite_count = 0;
    q->has_setting = false;
}

static int grow(void **array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity)
        return 0;
    uint32_t cap = *capacity ? *capacity : 64;
    while (cap < need) {
        if (cap > UINT32_MAX / 2)
            return ONA_ENOMEM;
        cap *= 2;
    }
    void *grown = ona__realloc(*array, (size_t)cap * elem);
    if (!grown)
        return ONA_ENOMEM;
    *array = grown;
    *capacity = cap;
    return 0;
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
    if (grow((void **)&q->sprites, &q->sprite_capacity, q->sprite_count + count,
             sizeof *q->sprites))
        return ONA_ENOMEM;
    ona__draw *last = q->draw_count ? &q->draws[q->draw_count - 1] : NULL;
    bool extends = last && same_key(&last->key, key) && last->order == order &&
                   last->seq + last->count == *seq && last->first + last->count == q->sprite_count;
    if (!extends) {
        if (grow((void **)&q->draws, &q->draw_capacity, q->draw_count + 1, sizeof *q->draws))
            return ONA_ENOMEM;
        last = &q->draws[q->draw_count++];
        *last = (ona__draw){*key, order, *seq, q->sprite_count, 0, 0};
    }
    memcpy(q->sprites + q->sprite_count, sprites, (size_t)count * sizeof *sprites);
    q->sprite_count += count;
    last->count += count;
    *seq += count;
    return 0;
}

static bool setting_after(const ona__setting *a, uint32_t order, uint32_t seq) {
    return order > a->order || (order == a->order && seq > a->seq);
}

void ona__render_queue_set(ona__render_queue *q, uint32_t order, uint32_t *seq,
                           const ona__camera *camera, const float clear[4]) {
    uint32_t s = (*seq)++;
    if (q->has_setting && !setting_after(&q->setting, order, s)) {
        /* An earlier setting (by spawn order) than the one kept: keep only what it lacks. */
        if (camera && !q->setting.has_camera) {
            q->setting.has_camera = true;
            q->setting.camera = *camera;
        }
        if (clear && !q->setting.has_clear) {
            q->setting.has_clear = true;
            memcpy(q->setting.clear, clear, sizeof q->setting.clear);
        }
        return;
    }
    ona__setting next = q->has_setting ? q->setting : (ona__setting){0};
    next.order = order;
    next.seq = s;
    if (camera) {
        next.has_camera = true;
        next.camera = *camera;
    }
    if (clear) {
        next.has_clear = true;
        memcpy(next.clear, clear, sizeof next.clear);
    }
    q->setting = next;
    q->has_setting = true;
}

static int cmp_draw(const void *pa, const void *pb) {
    const ona__draw *a = *(ona__draw *const *)pa, *b = *(ona__draw *const *)pb;
    if (a->key.layer != b->key.layer)
        return a->key.layer < b->key.layer ? -1 : 1;
    if (a->order != b->order)
        return a->order < b->order ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

/* Merges the camera/clear settings: per field, the one set last in (order, seq) wins. */
static void merge_setting(ona__render_list *list, const ona__setting *s) {
    if (!list->has_setting) {
        list->setting = *s;
        list->has_setting = true;
        return;
    }
    ona__setting *m = &list->setting;
    bool later = setting_after(m, s->order, s->seq);
    if (s->has_camera && (later || !m->has_camera)) {
        m->camera = s->camera;
        m->has_camera = true;
    }
    if (s->has_clear && (later || !m->has_clear)) {
        memcpy(m->clear, s->clear, sizeof m->clear);
        m->has_clear = true;
    }
    if (later) {
        m->order = s->order;
        m->seq = s->seq;
    }
}

int ona__render_merge(ona__render_queue *const *queues, uint32_t queue_count,
                      ona__render_list *list) {
    uint32_t total = 0;
    list->sprite_total = 0;
    list->has_setting = false;
    for (uint32_t i = 0; i < queue_count; i++) {
        total += queues[i]->draw_count;
        list->sprite_total += queues[i]->sprite_count;
    }
    if (grow((void **)&list->sorted, &list->capacity, total, sizeof *list->sorted))
        return ONA_ENOMEM;
    list->count = 0;
    for (uint32_t i = 0; i < queue_count; i++) {
        for (uint32_t d = 0; d < queues[i]->draw_count; d++) {
            queues[i]->draws[d].queue = i;
            list->sorted[list->count++] = &queues[i]->draws[d];
        }
        if (queues[i]->has_setting)
            merge_setting(list, &queues[i]->setting);
    }
    /* (layer, order, seq) is unique per entry (one system's seq never repeats in a frame), so
     * qsort's instability cannot change the result. */
    if (list->count > 1)
        qsort(list->sorted, list->count, sizeof *list->sorted, cmp_draw);
    return 0;
}

void ona__render_list_free(ona__render_list *list) {
    ona__free(list->sorted);
    memset(list, 0, sizeof *list);
}
