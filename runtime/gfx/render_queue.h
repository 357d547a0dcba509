/*
 * render_queue.h: thread-local render queues and their deterministic merge. Internal.
 *
 * Each thread that runs turns owns one queue. A system's draw call appends to the queue of the
 * thread running it: no lock, no atomic. A queue entry is a run of sprites that one system drew
 * in a row with the same texture and layer, tagged (layer, system spawn order, submission
 * number); after the frame's turns the main thread sorts the entries of all queues by that tag
 * (stable and independent of which thread ran what), copies the sprites once into the GPU's
 * mapped buffer, and turns consecutive entries with the same texture into one draw.
 */
#ifndef ONA_RENDER_QUEUE_H
#define ONA_RENDER_QUEUE_H

#include "ona/gfx.h"

#include "gfx_gl.h"

/* What a run of sprites is drawn with. Sprites pushed with equal keys, one after the other by
 * one system, share an entry; consecutive entries (in merge order) with equal keys but the layer
 * share a draw call. A zeroed field is the default, so callers use designated initialisers and
 * new fields (blend, shader, target: issue 11) default for them. */
typedef struct ona__draw_key {
    int32_t layer;
    uint32_t texture; /* the texture handle's id (texture.h) */
} ona__draw_key;

typedef struct ona__draw {
    ona__draw_key key;
    uint32_t order; /* the system's spawn order */
    uint32_t seq;   /* the system's submission number of the first sprite, this frame */
    uint32_t first; /* into the queue's sprites */
    uint32_t count;
    uint32_t queue; /* which queue holds the sprites (set by the merge) */
} ona__draw;

/* A camera or clear-colour setting, ordered like draws; the last one in that order wins. */
typedef struct ona__setting {
    uint32_t order, seq;
    bool has_camera, has_clear;
    ona__camera camera;
    float clear[4];
} ona__setting;

typedef struct ona__render_queue {
    ona__draw *draws;
    uint32_t draw_count, draw_capacity;
    ona_sprite *sprites;
    uint32_t sprite_count, sprite_capacity;
    ona__setting setting; /* the latest setting pushed on this thread this frame */
    bool has_setting;
} ona__render_queue;

/* What one frame's merge produced. Owned by the caller; arrays grow and are reused. */
typedef struct ona__render_list {
    ona__draw **sorted; /* every entry of every queue, in drawing order */
    uint32_t count, capacity;
    uint32_t sprite_total;
    ona__setting setting;
    bool has_setting;
} ona__render_list;

void ona__render_queue_init(ona__render_queue *q);
void ona__render_queue_free(ona__render_queue *q);
/* Forgets this frame's entries, keeping the memory. */
void ona__render_queue_clear(ona__render_queue *q);

/* Appends `count` sprites, drawn with `key`, by the system with spawn order `order`, whose
 * submission counter is *seq (advanced by count). Errors: ONA_ENOMEM (nothing appended). */
int ona__render_queue_push(ona__render_queue *q, const ona__draw_key *key, uint32_t order,
                           uint32_t *seq, const ona_sprite *sprites, uint32_t count);

/* Records a camera and/or clear colour set by a system at (order, *seq) (seq advanced by 1). */
void ona__render_queue_set(ona__render_queue *q, uint32_t order, uint32_t *seq,
                           const ona__camera *camera, const float clear[4]);

/* Sorts the entries of `queues` into `list`. Errors: ONA_ENOMEM. */
int ona__render_merge(ona__render_queue *const *queues, uint32_t queue_count,
                      ona__render_list *list);
void ona__render_list_free(ona__render_list *list);

#endif
