/*
 * draw_transform.h: a system's draw-state stack (draw_transform.c): the transform and default
 * target every draw of its turn goes through (ona.gfx.push/pop/translate/rotate/scale/origin,
 * ona.gfx.set_target, ona_ctx_gfx_*). Internal to the services; both hosts use it.
 */
#ifndef ONA_DRAW_TRANSFORM_H
#define ONA_DRAW_TRANSFORM_H

#include "services.h"

/* How many copies a turn may push before its pop. */
#define ONA__DRAW_STACK 64

/* Saves the transform (and, with `all`, the target) for the next pop. The turn's thread.
 * Errors: ONA_ELIMIT (ONA__DRAW_STACK pushes already), ONA_ENOMEM. */
int ona__system_push(ona__system *sys, bool all);
/* Restores the last push. Errors: ONA_EEMPTY (nothing pushed this turn). */
int ona__system_pop(ona__system *sys);
/* Compose onto the current transform, as LÖVE does: a later call acts first on what is drawn.
 * rotate turns clockwise on screen (y down), like a sprite's rotation. */
void ona__system_translate(ona__system *sys, float x, float y);
void ona__system_rotate(ona__system *sys, float radians);
void ona__system_scale(ona__system *sys, float sx, float sy);
/* The identity transform (the target stays). */
void ona__system_origin(ona__system *sys);
/* A point through the transform, or back (a transform whose determinant is 0 leaves the point
 * as it is going back; scale refuses 0, so only underflow makes one). */
void ona__system_transform_point(const ona__system *sys, bool inverse, float x, float y, float *ox,
                                 float *oy);
/* The world rectangle {x, y, w, h} as the bounding box of what it is before the transform: the
 * part of a tile map's own space that lands in a view. */
void ona__system_view_to_local(const ona__system *sys, float rect[4]);

/* Writes `count` sprites through the transform `f` into `out` (`in` and `out` may be the same):
 * a sprite the transform keeps rectangular stays a sprite, one it skews becomes an
 * ONA_SPRITE_AFFINE instance; free quads move their corners. */
void ona__draw_frame_apply(const ona__draw_frame *f, const ona_sprite *in, ona_sprite *out,
                           uint32_t count);

#endif
