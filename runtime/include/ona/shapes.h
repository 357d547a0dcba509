/*
 * ona/shapes.h: rectangles, lines, circles and polygons, and tile maps, as ona_sprite arrays.
 *
 * Shapes are sprites: each ona_shape_* function tessellates a shape into "free quads"
 * (ONA_SPRITE_QUAD in ona/gfx.h: four world-space corners, coloured by one texel) written into
 * an array the caller owns, so shapes go through the same render queues and batches as sprites.
 * Draw them with the runtime's 1x1 white texture (ona_ctx_draw_shapes, or ona.gfx.rect & co.
 * from Lua), where consecutive shapes on one layer become one instanced draw call.
 *
 * Every ona_shape_* function returns how many sprites the whole shape needs and writes at most
 * `max` of them (like snprintf: call with out = NULL, max = 0 to size an array). Pure functions
 * of their arguments: any thread, no allocation.
 */
#ifndef ONA_SHAPES_H
#define ONA_SHAPES_H

#include "ona/gfx.h"
#include "ona/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ona_shape_mode {
    ONA_SHAPE_FILL = 0, /* the inside */
    ONA_SHAPE_LINE,     /* the outline: a closed line of `width`, centred on the edge */
} ona_shape_mode;

typedef enum ona_line_cap {
    ONA_CAP_BUTT = 0, /* the line ends at its end points */
    ONA_CAP_SQUARE,   /* extended by half the width */
    ONA_CAP_ROUND,    /* a disc of the line's width at each end */
} ona_line_cap;

/* How a shape is drawn; every 0 is the default. */
typedef struct ona_shape_style {
    ona_shape_mode mode;
    float width;       /* lines and outlines, in world units: 0 = 1 */
    uint32_t tint;     /* 0xAABBGGRR (ONA_RGBA); 0 = opaque white */
    uint32_t segments; /* circles: 0 = from the radius (8..256, even) */
    ona_line_cap cap;  /* open lines */
} ona_shape_style;

/* Polygons and polylines take at most this many points (more: nothing is drawn, 0 returned). */
#define ONA_SHAPE_MAX_POINTS 1024
/* The widest line or outline, in world units. */
#define ONA_SHAPE_MAX_WIDTH 1e6f

/* Why the shape functions refuse `style` (a static sentence naming the field: a mode or cap
 * outside its enum, a width that is negative, NaN or past ONA_SHAPE_MAX_WIDTH), or NULL when
 * it is fine (NULL is the default style). Every shape function below and every ona_ctx_ shape
 * call checks it: a refused style draws nothing, returns 0 (ONA_EINVAL from ona_ctx_*) and is
 * logged naming the function. Any thread. */
ONA_API const char *ona_shape_style_error(const ona_shape_style *style);

/* One free quad: corners p (x0, y0, ... x3, y3) in triangle-strip order (triangles 0-1-2 and
 * 1-2-3), coloured by the centre texel of a 1x1 texture. Returns 1 (0, logged, for p NULL). */
ONA_API uint32_t ona_shape_quad(const float p[8], uint32_t tint, ona_sprite *out, uint32_t max);

/* An axis-aligned rectangle with its top-left corner at (x, y). FILL: 1 sprite. LINE: 4. */
ONA_API uint32_t ona_shape_rect(float x, float y, float w, float h, const ona_shape_style *style,
                                ona_sprite *out, uint32_t max);

/* A line from (x1, y1) to (x2, y2) of style->width with style->cap. */
ONA_API uint32_t ona_shape_line(float x1, float y1, float x2, float y2,
                                const ona_shape_style *style, ona_sprite *out, uint32_t max);

/* A line through `count` points (xy pairs); `closed` joins the last to the first. Joints are
 * mitred, the mitre clamped to 4 half-widths at sharp turns. Fewer than 2 points: nothing. */
ONA_API uint32_t ona_shape_polyline(const float *xy, uint32_t count, bool closed,
                                    const ona_shape_style *style, ona_sprite *out, uint32_t max);

/* A circle of radius r centred on (x, y): FILL is a triangle fan (segments / 2 sprites), LINE a
 * closed polyline of `segments` sides. */
ONA_API uint32_t ona_shape_circle(float x, float y, float r, const ona_shape_style *style,
                                  ona_sprite *out, uint32_t max);

/* The circle's segment count for radius r and the style (what ona_shape_circle uses). */
ONA_API uint32_t ona_shape_circle_segments(float r, const ona_shape_style *style);

/* A polygon of `count` points (xy pairs, either winding). FILL uses ear clipping: simple
 * polygons, convex or concave, are filled exactly with count - 2 triangles (one sprite each).
 * A self-intersecting polygon is clipped as long as ears are found and the rest is filled as a
 * fan: some of it may be covered twice or not at all, but it always terminates and never writes
 * more than count - 2 sprites. LINE is the closed polyline. Fewer than 3 points: nothing. */
ONA_API uint32_t ona_shape_polygon(const float *xy, uint32_t count, const ona_shape_style *style,
                                   ona_sprite *out, uint32_t max);

/* --- Tile maps ---------------------------------------------------------------------------------
 */

/* A grid of w x h tiles, tile ids row by row (tiles[y * w + x]); id 0 is empty, id n >= 1 is the
 * n-th tile_w x tile_h cell of the texture, counted left to right, then top to bottom. */
typedef struct ona_tilemap {
    ona_texture texture;
    int texture_w, texture_h; /* the texture's size in texels */
    int tile_w, tile_h;
    int w, h;
    const uint16_t *tiles;
} ona_tilemap;

/* The sprites of the non-empty tiles of `map` drawn with its top-left at (x, y) that overlap
 * the world rectangle view = {x, y, w, h} (NULL: every tile). Ids past the texture's last cell
 * are skipped. Returns how many there are, writes at most `max`, starting with the `skip`-th
 * (so a long map can be emitted in chunks). */
ONA_API uint32_t ona_tilemap_sprites(const ona_tilemap *map, float x, float y, const float view[4],
                                     uint32_t skip, ona_sprite *out, uint32_t max);

/* --- Inside a native system's callback ---------------------------------------------------------
 */

/* Draws shape sprites (from ona_shape_*) with the runtime's white texture on `layer`. Errors as
 * ona_ctx_draw. */
ONA_API int ona_ctx_draw_shapes(ona_ctx *ctx, int layer, const ona_sprite *sprites, uint32_t count);
/* The shapes above, drawn at once (style NULL = filled opaque white). Errors: ONA_EINVAL for
 * more than ONA_SHAPE_MAX_POINTS points, as ona_ctx_draw otherwise. */
ONA_API int ona_ctx_rect(ona_ctx *ctx, int layer, float x, float y, float w, float h,
                         const ona_shape_style *style);
ONA_API int ona_ctx_line(ona_ctx *ctx, int layer, float x1, float y1, float x2, float y2,
                         const ona_shape_style *style);
ONA_API int ona_ctx_circle(ona_ctx *ctx, int layer, float x, float y, float r,
                           const ona_shape_style *style);
ONA_API int ona_ctx_polygon(ona_ctx *ctx, int layer, const float *xy, uint32_t count,
                            const ona_shape_style *style);
/* Draws the tiles of `map` at (x, y) visible on `layer` at this frame's start (the map's
 * texture_w/h may be 0: the texture's size is looked up). Errors as ona_ctx_draw; ONA_EINVAL
 * for a map without tiles or with sizes <= 0. */
ONA_API int ona_ctx_draw_tilemap(ona_ctx *ctx, int layer, const ona_tilemap *map, float x, float y);

#ifdef __cplusplus
}
#endif

#endif /* ONA_SHAPES_H */
