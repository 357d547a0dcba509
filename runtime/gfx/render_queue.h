/*
 * render_queue.h: thread-local render queues and their deterministic merge. Internal.
 *
 * Each thread that runs turns owns one queue. A system's draw call appends to the queue of the
 * thread running it: no lock, no atomic. A queue entry is a run of sprites that one system drew
 * in a row with the same draw key (layer, texture, blend, shader, target), tagged (layer, system
 * spawn order, submission number); after the frame's turns the main thread sorts the entries of
 * all queues by (target's pass, that tag) (stable and independent of which thread ran what),
 * copies the sprites once into the GPU's mapped buffer, and turns consecutive entries with the
 * same state into one draw. Settings (cameras, clear colours, layer defaults, uniforms) are
 * queued the same way and applied by main in (spawn order, submission number) order.
 */
#ifndef ONA_RENDER_QUEUE_H
#define ONA_RENDER_QUEUE_H

#include "ona/gfx.h"

#include "gfx_gl.h"

/* What a run of sprites is drawn with. Sprites pushed with equal keys, one after the other by
 * one system, share an entry; consecutive entries (in merge order) with equal keys but the layer
 * share a draw call (when the layers also resolve to the same camera). A zeroed field is the
 * default, so callers use designated initialisers. Every field is 32 bits: no padding, so keys
 * compare with memcmp. */
typedef struct ona__draw_key {
    int32_t layer;
    uint32_t texture; /* the texture handle's id (texture.h); a canvas is a texture too */
    uint32_t blend;   /* ona_blend; 0: the layer's default (ona.gfx.layer), else alpha */
    uint32_t shader;  /* a game shader's handle id (video.h); 0: the layer's, else the sprite's */
    uint32_t target;  /* a canvas's texture id to draw into; 0: the screen */
} ona__draw_key;

typedef struct ona__draw {
    ona__draw_key key;
    uint32_t order; /* the system's spawn order */
    uint32_t seq;   /* the system's submission number of the first sprite, this frame */
    uint32_t first; /* into the queue's sprites */
    uint32_t count;
    uint32_t queue; /* which queue holds the sprites (set by the merge) */
    uint32_t pass;  /* the rank of key.target's pass (set by the merge; the screen's is last) */
} ona__draw;

/* What a setting changes. Settings are ordered like draws (spawn order, submission number) and
 * applied by main in that order, so for each thing set the last setter wins. */
typedef enum ona__setting_kind {
    ONA__SET_CLEAR = 1, /* target (0: the screen's clear colour; a canvas: cleared this frame) */
    ONA__SET_CAMERA,    /* camera for layers lo..hi */
    ONA__SET_LAYER,     /* defaults for layer lo: blend, shader */
    ONA__SET_UNIFORM,   /* shader's uniform `name` = value[0..components) */
} ona__setting_kind;

typedef struct ona__setting {
    uint32_t order, seq;
    ona__setting_kind kind;
    uint32_t target;     /* CLEAR: a canvas's texture id or 0; UNIFORM: the shader's handle id */
    int32_t lo, hi;      /* CAMERA: the layer range (inclusive); LAYER: lo is the layer */
    uint32_t blend;      /* LAYER */
    uint32_t shader;     /* LAYER */
    uint32_t components; /* UNIFORM: 1 to 4 */
    float value[4];      /* CLEAR: RGBA 0..1; UNIFORM: the value */
    ona__camera camera;
    char name[32]; /* UNIFORM */
    char at[64];   /* UNIFORM: who set it, "u.lua:5 in u", for reports ("" when unknown) */
} ona__setting;

typedef struct ona__render_queue {
    ona__draw *draws;
    uint32_t draw_count, draw_capacity;
    ona_sprite *sprites;
    uint32_t sprite_count, sprite_capacity;
    ona__setting *settings; /* this frame's settings pushed on this thread */
    uint32_t setting_count, setting_capacity;
} ona__render_queue;

/* What one frame's merge produced. Owned by the caller; arrays grow and are reused. */
typedef struct ona__render_list {
    ona__draw **sorted; /* every entry of every queue, in drawing order: pass, layer, order, seq */
    uint32_t count, capacity;
    uint32_t sprite_total;
    const ona__setting **settings; /* every setting of every queue, in (order, seq) order */
    uint32_t setting_count, setting_capacity;
    uint32_t *passes; /* the canvases drawn into this frame, in pass order (the screen follows) */
    uint32_t pass_count, pass_capacity;
} ona__render_list;

void ona__render_queue_init(ona__render_queue *q);
void ona__render_queue_free(ona__render_queue *q);
/* Forgets this frame's entries, keeping the memory. */
void ona__render_queue_clear(ona__render_queue *q);

/* Appends `count` sprites, drawn with `key`, by the system with spawn order `order`, whose
 * submission counter is *seq (advanced by count). Errors: ONA_ENOMEM (nothing appended). */
int ona__render_queue_push(ona__render_queue *q, const ona__draw_key *key, uint32_t order,
                           uint32_t *seq, const ona_sprite *sprites, uint32_t count);

/* Records a setting made by a system at (order, *seq) (seq advanced by 1; the setting's own
 * order and seq are overwritten). Errors: ONA_ENOMEM (nothing recorded). */
int ona__render_queue_set(ona__render_queue *q, uint32_t order, uint32_t *seq,
                          const ona__setting *setting);

/* Sorts the entries of `queues` into `list`: canvas passes first, each canvas before every pass
 * that samples it (ties and cycles broken by the canvas's id), then the screen; within a pass by
 * (layer, order, seq). Settings are sorted by (order, seq). Errors: ONA_ENOMEM. */
int ona__render_merge(ona__render_queue *const *queues, uint32_t queue_count,
                      ona__render_list *list);
void ona__render_list_free(ona__render_list *list);

#endif
