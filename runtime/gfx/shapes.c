/*
 * shapes.c: tessellation of rectangles, lines, polylines, circles and polygons into free quads
 * (ONA_SPRITE_QUAD), and the visible tiles of a tile map as sprites (ona/shapes.h).
 *
 * Design note. Shapes reuse the sprite path instead of a second pipeline: one instance is a quad
 * whose four corners are world points (sprite.vert's free-quad mode), coloured by the centre
 * texel of the runtime's 1x1 white texture. A triangle is a quad with its last corner repeated,
 * a triangle fan takes two fan triangles per quad (strip order p_i, c, p_i+1, p_i+2), a thick
 * line segment is one quad. So shapes batch with each other and cost 48 bytes a quad. Nothing
 * here allocates or touches GL or Lua: every function fills the caller's array, returns how many
 * sprites the whole shape needs and writes at most `max` (snprintf's contract), so the same call
 * sizes and fills. Polygon fill is ear clipping, O(n^2) in the worst case, limited to
 * ONA_SHAPE_MAX_POINTS points so its scratch lives on the stack.
 */
#include "shapes.h"

#include "common.h"

#include <math.h>
#include <stddef.h>

const char *ona_shape_style_error(const ona_shape_style *style) {
    if (!style)
        return NULL;
    if ((unsigned)style->mode > ONA_SHAPE_LINE)
        return "style->mode is not ONA_SHAPE_FILL or ONA_SHAPE_LINE";
    if ((unsigned)style->cap > ONA_CAP_ROUND)
        return "style->cap is not ONA_CAP_BUTT, ONA_CAP_SQUARE or ONA_CAP_ROUND";
    if (!(style->width >= 0 && style->width <= ONA_SHAPE_MAX_WIDTH))
        return "style->width must be 0 (the default, 1) or a number > 0 up to 1e6";
    return NULL;
}

/* False, logging why under `fn`, for a style the shape functions refuse (as Lua's opts are). */
static bool style_ok(const ona_shape_style *style, const char *fn) {
    const char *why = ona_shape_style_error(style);
    if (why)
        ona_log(ONA_LOG_ERROR, "shapes", "%s: %s; nothing drawn", fn, why);
    return !why;
}

/* Writes sprite number `i` when it fits. */
static void put(ona_sprite *out, uint32_t max, uint32_t i, const float p[8], uint32_t tint) {
    if (!out || i >= max)
        return;
    out[i] = (ona_sprite){
        .x = p[0],
        .y = p[1],
        .origin_x = p[2],
        .origin_y = p[3],
        .scale_x = p[4],
        .scale_y = p[5],
        .rotation = p[6],
        .src_x = p[7],
        .src_y = 0.5f,
        .src_w = ONA_SPRITE_QUAD,
        .src_h = 0.5f,
        .tint = tint,
    };
}

static uint32_t tint_of(const ona_shape_style *style) {
    return style && style->tint ? style->tint : 0xFFFFFFFFu;
}

static float width_of(const ona_shape_style *style) {
    return style && style->width > 0 ? style->width : 1.0f;
}

static bool is_line(const ona_shape_style *style) {
    return style && style->mode == ONA_SHAPE_LINE;
}

uint32_t ona_shape_quad(const float p[8], uint32_t tint, ona_sprite *out, uint32_t max) {
    if (!p) {
        ona_log(ONA_LOG_ERROR, "shapes", "ona_shape_quad: p is NULL; nothing drawn");
        return 0;
    }
    put(out, max, 0, p, tint);
    return 1;
}

static void triangle(ona_sprite *out, uint32_t max, uint32_t i, float ax, float ay, float bx,
                     float by, float cx, float cy, uint32_t tint) {
    put(out, max, i, (const float[8]){ax, ay, bx, by, cx, cy, cx, cy}, tint);
}

uint32_t ona_shape_rect(float x, float y, float w, float h, const ona_shape_style *style,
                        ona_sprite *out, uint32_t max) {
    if (!style_ok(style, "ona_shape_rect"))
        return 0;
    if (is_line(style)) {
        const float xy[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
        return ona_shape_polyline(xy, 4, true, style, out, max);
    }
    put(out, max, 0, (const float[8]){x, y, x + w, y, x, y + h, x + w, y + h}, tint_of(style));
    return 1;
}

/* The unit normal (left of the direction a->b, y down) or (0, 0) for a zero-length segment. */
static void normal(float ax, float ay, float bx, float by, float *nx, float *ny) {
    float dx = bx - ax, dy = by - ay;
    float len = sqrtf(dx * dx + dy * dy);
    if (len > 0) {
        *nx = -dy / len;
        *ny = dx / len;
    } else {
        *nx = *ny = 0;
    }
}

/* The offset of the joint at point i (its neighbours given) for half-width hw: the mitre,
 * clamped to 4 half-widths. */
static void joint(float n0x, float n0y, float n1x, float n1y, float hw, float *ox, float *oy) {
    if (n0x == 0 && n0y == 0) { /* a repeated point: the segment out of it decides */
        n0x = n1x;
        n0y = n1y;
    } else if (n1x == 0 && n1y == 0) {
        n1x = n0x;
        n1y = n0y;
    }
    float mx = n0x + n1x, my = n0y + n1y;
    float len = sqrtf(mx * mx + my * my);
    if (len < 1e-6f) { /* a full turn back: no mitre exists, use the incoming normal */
        *ox = n0x * hw;
        *oy = n0y * hw;
        return;
    }
    mx /= len;
    my /= len;
    float cosine = mx * n0x + my * n0y; /* cos of half the turn */
    float scale = cosine > 0.25f ? hw / cosine : hw * 4.0f;
    *ox = mx * scale;
    *oy = my * scale;
}

uint32_t ona_shape_polyline(const float *xy, uint32_t count, bool closed,
                            const ona_shape_style *style, ona_sprite *out, uint32_t max) {
    if (!xy || count < 2 || count > ONA_SHAPE_MAX_POINTS || !style_ok(style, "ona_shape_polyline"))
        return 0;
    float hw = width_of(style) * 0.5f;
    uint32_t tint = tint_of(style);
    uint32_t segments = closed ? count : count - 1;
    if (max == 0 || !out)
        return segments;
    /* Offsets at each point, computed as the walk goes: the previous point's offset is kept. */
    float prev_ox = 0, prev_oy = 0;
    for (uint32_t s = 0; s <= segments; s++) {
        uint32_t i = s % count;
        /* Normals of the segment into point i and of the one out of it. */
        float n0x = 0, n0y = 0, n1x = 0, n1y = 0;
        bool has_in = closed || i > 0, has_out = closed || i + 1 < count;
        if (has_in) {
            uint32_t a = (i + count - 1) % count;
            normal(xy[2 * a], xy[2 * a + 1], xy[2 * i], xy[2 * i + 1], &n0x, &n0y);
        }
        if (has_out) {
            uint32_t b = (i + 1) % count;
            normal(xy[2 * i], xy[2 * i + 1], xy[2 * b], xy[2 * b + 1], &n1x, &n1y);
        }
        float ox, oy;
        if (has_in && has_out)
            joint(n0x, n0y, n1x, n1y, hw, &ox, &oy);
        else if (has_in)
            ox = n0x * hw, oy = n0y * hw;
        else
            ox = n1x * hw, oy = n1y * hw;
        if (s > 0) {
            uint32_t a = (s - 1) % count;
            float ax = xy[2 * a], ay = xy[2 * a + 1], bx = xy[2 * i], by = xy[2 * i + 1];
            put(out, max, s - 1,
                (const float[8]){ax + prev_ox, ay + prev_oy, ax - prev_ox, ay - prev_oy, bx + ox,
                                 by + oy, bx - ox, by - oy},
                tint);
        }
        prev_ox = ox;
        prev_oy = oy;
    }
    return segments;
}

uint32_t ona_shape_circle_segments(float r, const ona_shape_style *style) {
    uint32_t n = style ? style->segments : 0;
    if (n == 0) {
        /* The chord's distance from the arc stays under about a third of a pixel up to r = 400
         * at zoom 1: r (1 - cos(pi / n)) with n = 4 sqrt(r). */
        float f = 4.0f * sqrtf(r > 0 ? r : 0);
        n = f < 8 ? 8 : (f > 256 ? 256 : (uint32_t)ceilf(f));
    }
    if (n < 3)
        n = 3;
    if (n > ONA_SHAPE_MAX_POINTS)
        n = ONA_SHAPE_MAX_POINTS;
    return n;
}

static void circle_point(float x, float y, float r, uint32_t i, uint32_t n, float *px, float *py) {
    double a = 2.0 * 3.14159265358979323846 * (double)(i % n) / (double)n;
    *px = x + r * (float)cos(a);
    *py = y + r * (float)sin(a);
}

uint32_t ona_shape_circle(float x, float y, float r, const ona_shape_style *style, ona_sprite *out,
                          uint32_t max) {
    if (!(r > 0) || !style_ok(style, "ona_shape_circle"))
        return 0;
    uint32_t n = ona_shape_circle_segments(r, style);
    if (is_line(style)) {
        float xy[2 * ONA_SHAPE_MAX_POINTS];
        for (uint32_t i = 0; i < n; i++)
            circle_point(x, y, r, i, n, &xy[2 * i], &xy[2 * i + 1]);
        return ona_shape_polyline(xy, n, true, style, out, max);
    }
    /* A fan: quad k covers triangles (p_2k, c, p_2k+1) and (c, p_2k+1, p_2k+2). An odd count
     * leaves one triangle for the last quad, whose fourth corner repeats the third. */
    uint32_t quads = (n + 1) / 2;
    uint32_t tint = tint_of(style);
    for (uint32_t k = 0; k < quads && out && k < max; k++) {
        float p[8];
        circle_point(x, y, r, 2 * k, n, &p[0], &p[1]);
        p[2] = x;
        p[3] = y;
        circle_point(x, y, r, 2 * k + 1, n, &p[4], &p[5]);
        if (2 * k + 2 <= n)
            circle_point(x, y, r, 2 * k + 2, n, &p[6], &p[7]);
        else
            p[6] = p[4], p[7] = p[5];
        put(out, max, k, p, tint);
    }
    return quads;
}

uint32_t ona_shape_line(float x1, float y1, float x2, float y2, const ona_shape_style *style,
                        ona_sprite *out, uint32_t max) {
    if (!style_ok(style, "ona_shape_line"))
        return 0;
    float hw = width_of(style) * 0.5f;
    ona_line_cap cap = style ? style->cap : ONA_CAP_BUTT;
    float dx = x2 - x1, dy = y2 - y1;
    float len = sqrtf(dx * dx + dy * dy);
    float ux = len > 0 ? dx / len : 1, uy = len > 0 ? dy / len : 0;
    if (cap == ONA_CAP_SQUARE) {
        x1 -= ux * hw, y1 -= uy * hw;
        x2 += ux * hw, y2 += uy * hw;
    }
    float nx = -uy * hw, ny = ux * hw;
    uint32_t tint = tint_of(style);
    put(out, max, 0,
        (const float[8]){x1 + nx, y1 + ny, x1 - nx, y1 - ny, x2 + nx, y2 + ny, x2 - nx, y2 - ny},
        tint);
    if (cap != ONA_CAP_ROUND)
        return 1;
    ona_shape_style disc = {.tint = tint, .segments = ona_shape_circle_segments(hw, NULL)};
    uint32_t n = 1;
    n += ona_shape_circle(x1, y1, hw, &disc, out ? out + n : NULL, max > n ? max - n : 0);
    n += ona_shape_circle(x2, y2, hw, &disc, out ? out + n : NULL, max > n ? max - n : 0);
    return n;
}

/* Twice the signed area of triangle abc (positive: counter-clockwise in a y-up frame). */
static float cross3(const float *a, const float *b, const float *c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* Whether p is inside triangle abc (sign `s` of its winding) or on its edges. */
static bool inside(const float *p, const float *a, const float *b, const float *c, float s) {
    return s * cross3(a, b, p) >= 0 && s * cross3(b, c, p) >= 0 && s * cross3(c, a, p) >= 0;
}

uint32_t ona_shape_polygon(const float *xy, uint32_t count, const ona_shape_style *style,
                           ona_sprite *out, uint32_t max) {
    if (!xy || count < 3 || count > ONA_SHAPE_MAX_POINTS || !style_ok(style, "ona_shape_polygon"))
        return 0;
    if (is_line(style))
        return ona_shape_polyline(xy, count, true, style, out, max);
    uint32_t triangles = count - 2;
    if (!out || max == 0)
        return triangles;
    uint32_t tint = tint_of(style);
    /* The winding's sign, so that "convex" means turning the same way as the whole polygon. */
    double area = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t j = (i + 1) % count;
        area += (double)xy[2 * i] * xy[2 * j + 1] - (double)xy[2 * j] * xy[2 * i + 1];
    }
    float s = area >= 0 ? 1.0f : -1.0f;
    uint16_t ring[ONA_SHAPE_MAX_POINTS];
    for (uint32_t i = 0; i < count; i++)
        ring[i] = (uint16_t)i;
    uint32_t n = count, written = 0, i = 0, misses = 0;
    while (n > 3) {
        uint32_t ia = ring[(i + n - 1) % n], ib = ring[i % n], ic = ring[(i + 1) % n];
        const float *a = &xy[2 * ia], *b = &xy[2 * ib], *c = &xy[2 * ic];
        bool ear = s * cross3(a, b, c) > 0;
        for (uint32_t k = 0; ear && k < n; k++) {
            uint32_t ip = ring[k];
            if (ip == ia || ip == ib || ip == ic)
                continue;
            const float *p = &xy[2 * ip];
            /* A point on the ear's corner (a repeated vertex) does not block it. */
            if ((p[0] == a[0] && p[1] == a[1]) || (p[0] == c[0] && p[1] == c[1]))
                continue;
            if (inside(p, a, b, c, s))
                ear = false;
        }
        if (ear || misses >= n) {
            /* An ear, or after a full turn without one (self-intersecting or degenerate input),
             * the vertex anyway: the rest becomes a fan-like fill and the loop still ends. */
            triangle(out, max, written++, a[0], a[1], b[0], b[1], c[0], c[1], tint);
            uint32_t at = i % n;
            for (uint32_t k = at; k + 1 < n; k++)
                ring[k] = ring[k + 1];
            n--;
            misses = 0;
            i = at;
        } else {
            i = (i + 1) % n;
            misses++;
        }
    }
    const float *a = &xy[2 * ring[0]], *b = &xy[2 * ring[1]], *c = &xy[2 * ring[2]];
    triangle(out, max, written++, a[0], a[1], b[0], b[1], c[0], c[1], tint);
    return written;
}

uint32_t ona_tilemap_sprites(const ona_tilemap *map, float x, float y, const float view[4],
                             uint32_t skip, ona_sprite *out, uint32_t max) {
    if (!map || !map->tiles || map->w <= 0 || map->h <= 0 || map->tile_w <= 0 || map->tile_h <= 0)
        return 0;
    int x0 = 0, y0 = 0, x1 = map->w, y1 = map->h; /* the tile range, end exclusive */
    if (view) {
        double fx0 = floor(((double)view[0] - x) / map->tile_w);
        double fy0 = floor(((double)view[1] - y) / map->tile_h);
        double fx1 = ceil(((double)view[0] + view[2] - x) / map->tile_w);
        double fy1 = ceil(((double)view[1] + view[3] - y) / map->tile_h);
        x0 = fx0 < 0 ? 0 : (fx0 > map->w ? map->w : (int)fx0);
        y0 = fy0 < 0 ? 0 : (fy0 > map->h ? map->h : (int)fy0);
        x1 = fx1 < x0 ? x0 : (fx1 > map->w ? map->w : (int)fx1);
        y1 = fy1 < y0 ? y0 : (fy1 > map->h ? map->h : (int)fy1);
    }
    int cols = map->texture_w / map->tile_w, rows = map->texture_h / map->tile_h;
    uint32_t cells = cols > 0 && rows > 0 ? (uint32_t)cols * (uint32_t)rows : 0;
    uint32_t n = 0;
    for (int ty = y0; ty < y1; ty++) {
        const uint16_t *row = map->tiles + (size_t)ty * (size_t)map->w;
        for (int tx = x0; tx < x1; tx++) {
            uint32_t id = row[tx];
            if (id == 0 || id > cells)
                continue;
            if (n >= skip && out && n - skip < max) {
                uint32_t cell = id - 1;
                out[n - skip] = (ona_sprite){
                    .x = x + (float)tx * (float)map->tile_w,
                    .y = y + (float)ty * (float)map->tile_h,
                    .scale_x = 1,
                    .scale_y = 1,
                    .src_x = (float)((int)(cell % (uint32_t)cols) * map->tile_w),
                    .src_y = (float)((int)(cell / (uint32_t)cols) * map->tile_h),
                    .src_w = (float)map->tile_w,
                    .src_h = (float)map->tile_h,
                    .tint = 0xFFFFFFFFu,
                };
            }
            n++;
        }
    }
    return n < skip ? 0 : n - skip;
}
