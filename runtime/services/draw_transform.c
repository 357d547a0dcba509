/*
 * draw_transform.c: a system's draw-state stack (draw_transform.h): the 2D transform and the
 * default target every draw of its turn goes through, and what the transform does to a sprite.
 *
 * Design note. The state lives in the system (ona__system.draw, .draw_saved) and belongs to the
 * thread running its turn; the core resets it at each new turn, so nothing pushed in one frame
 * leaks into the next. The copies are allocated at the system's first push, once for its life
 * (ONA__DRAW_STACK of them), so the per-frame path never allocates. Composition follows LÖVE:
 * M = M * op, so the last call acts first on the drawn points.
 *
 * A sprite through a transform: a pure translation moves it; a rotation with a uniform scale (a
 * similarity), or an axis-aligned scale of an unrotated sprite, keeps it a sprite with a new
 * position, rotation and scale, so what renders is exactly what an untransformed draw with those
 * values would give. Anything else would skew it, which a sprite cannot say: it becomes an
 * ONA_SPRITE_AFFINE instance (ona/gfx.h: a position and two edge vectors), drawn exactly. Free
 * quads (shapes) have their corners moved.
 */
#include "draw_transform.h"

#include <math.h>

static void note_identity(ona__draw_frame *f) {
    f->identity = f->a == 1 && f->b == 0 && f->c == 0 && f->d == 1 && f->tx == 0 && f->ty == 0;
}

int ona__system_push(ona__system *sys, bool all) {
    if (sys->draw_depth >= ONA__DRAW_STACK)
        return ONA_ELIMIT;
    if (!sys->draw_saved) {
        sys->draw_saved = ona__malloc(ONA__DRAW_STACK * sizeof *sys->draw_saved);
        if (!sys->draw_saved)
            return ONA_ENOMEM;
    }
    ona__draw_frame *saved = &sys->draw_saved[sys->draw_depth++];
    *saved = sys->draw;
    saved->all = all;
    return 0;
}

int ona__system_pop(ona__system *sys) {
    if (sys->draw_depth == 0)
        return ONA_EEMPTY;
    const ona__draw_frame *saved = &sys->draw_saved[--sys->draw_depth];
    uint32_t target = saved->all ? saved->target : sys->draw.target;
    sys->draw = *saved;
    sys->draw.target = target;
    sys->draw.all = false;
    return 0;
}

void ona__system_translate(ona__system *sys, float x, float y) {
    ona__draw_frame *f = &sys->draw;
    f->tx += f->a * x + f->c * y;
    f->ty += f->b * x + f->d * y;
    note_identity(f);
}

void ona__system_rotate(ona__system *sys, float radians) {
    ona__draw_frame *f = &sys->draw;
    float cs = cosf(radians), sn = sinf(radians);
    float a = f->a * cs + f->c * sn, b = f->b * cs + f->d * sn;
    float c = -f->a * sn + f->c * cs, d = -f->b * sn + f->d * cs;
    f->a = a, f->b = b, f->c = c, f->d = d;
    note_identity(f);
}

void ona__system_scale(ona__system *sys, float sx, float sy) {
    ona__draw_frame *f = &sys->draw;
    f->a *= sx, f->b *= sx;
    f->c *= sy, f->d *= sy;
    note_identity(f);
}

void ona__system_origin(ona__system *sys) {
    uint32_t target = sys->draw.target;
    ona__draw_frame_reset(&sys->draw);
    sys->draw.target = target;
}

static void forward(const ona__draw_frame *f, float x, float y, float *ox, float *oy) {
    float nx = f->a * x + f->c * y + f->tx;
    *oy = f->b * x + f->d * y + f->ty;
    *ox = nx;
}

void ona__system_transform_point(const ona__system *sys, bool inverse, float x, float y, float *ox,
                                 float *oy) {
    const ona__draw_frame *f = &sys->draw;
    if (!inverse) {
        forward(f, x, y, ox, oy);
        return;
    }
    /* In double: a point far from the origin keeps its precision going back. */
    double det = (double)f->a * f->d - (double)f->b * f->c;
    if (det == 0 || !isfinite(det)) {
        *ox = x, *oy = y;
        return;
    }
    double px = (double)x - f->tx, py = (double)y - f->ty;
    *ox = (float)((f->d * px - f->c * py) / det);
    *oy = (float)((-f->b * px + f->a * py) / det);
}

void ona__system_view_to_local(const ona__system *sys, float rect[4]) {
    if (sys->draw.identity)
        return;
    float lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    for (int i = 0; i < 4; i++) {
        float x, y;
        ona__system_transform_point(sys, true, rect[0] + (i & 1 ? rect[2] : 0),
                                    rect[1] + (i & 2 ? rect[3] : 0), &x, &y);
        lo_x = fminf(lo_x, x), lo_y = fminf(lo_y, y);
        hi_x = fmaxf(hi_x, x), hi_y = fmaxf(hi_y, y);
    }
    rect[0] = lo_x, rect[1] = lo_y, rect[2] = hi_x - lo_x, rect[3] = hi_y - lo_y;
}

/* One ordinary sprite through f, which is not a pure translation. */
static ona_sprite sprite_through(const ona__draw_frame *f, ona_sprite s) {
    float px, py;
    forward(f, s.x, s.y, &px, &py);
    if (f->a == f->d && f->b == -f->c) { /* a rotation times a uniform scale */
        float k = sqrtf(f->a * f->a + f->b * f->b);
        s.x = px, s.y = py;
        s.rotation += atan2f(f->b, f->a);
        s.scale_x *= k, s.scale_y *= k;
        return s;
    }
    if (f->b == 0 && f->c == 0 && s.rotation == 0) { /* an axis-aligned scale */
        s.x = px, s.y = py;
        s.scale_x *= f->a, s.scale_y *= f->d;
        return s;
    }
    /* The sprite's edges (its rotation and scale), then the transform's matrix. */
    float cr = cosf(s.rotation), sr = sinf(s.rotation);
    float ux = cr * s.scale_x, uy = sr * s.scale_x, vx = -sr * s.scale_y, vy = cr * s.scale_y;
    float m0x = f->a * ux + f->c * uy, m0y = f->b * ux + f->d * uy;
    float m1x = f->a * vx + f->c * vy, m1y = f->b * vx + f->d * vy;
    ona_sprite out = {
        .x = px - m0x * s.origin_x - m1x * s.origin_y,
        .y = py - m0y * s.origin_x - m1y * s.origin_y,
        .origin_x = m0x,
        .origin_y = m0y,
        .scale_x = m1x,
        .scale_y = m1y,
        .rotation = s.src_x,
        .src_x = s.src_y,
        .src_y = s.src_w > 0 ? s.src_w : 0, /* 0: the whole texture, as src_w <= 0 says */
        .src_w = ONA_SPRITE_AFFINE,
        .src_h = s.src_h,
        .tint = s.tint,
    };
    return out;
}

void ona__draw_frame_apply(const ona__draw_frame *f, const ona_sprite *in, ona_sprite *out,
                           uint32_t count) {
    bool moves_only = f->a == 1 && f->b == 0 && f->c == 0 && f->d == 1;
    for (uint32_t i = 0; i < count; i++) {
        ona_sprite s = in[i];
        if (s.src_w == ONA_SPRITE_QUAD) {
            forward(f, s.x, s.y, &s.x, &s.y);
            forward(f, s.origin_x, s.origin_y, &s.origin_x, &s.origin_y);
            forward(f, s.scale_x, s.scale_y, &s.scale_x, &s.scale_y);
            forward(f, s.rotation, s.src_x, &s.rotation, &s.src_x);
        } else if (s.src_w == ONA_SPRITE_AFFINE) {
            forward(f, s.x, s.y, &s.x, &s.y);
            float m0x = f->a * s.origin_x + f->c * s.origin_y;
            float m0y = f->b * s.origin_x + f->d * s.origin_y;
            float m1x = f->a * s.scale_x + f->c * s.scale_y;
            float m1y = f->b * s.scale_x + f->d * s.scale_y;
            s.origin_x = m0x, s.origin_y = m0y, s.scale_x = m1x, s.scale_y = m1y;
        } else if (moves_only) {
            s.x += f->tx, s.y += f->ty;
        } else {
            s = sprite_through(f, s);
        }
        out[i] = s;
    }
}
