/*
 * ctx_gfx.c: drawing from a C system's callbacks (ona/gfx.h, ona/text.h, ona/shapes.h): sprites
 * with or without draw options, cameras, printed text, shapes and tile maps.
 *
 * Design note. Every draw goes through the services' one draw path (ona__system_draw,
 * ona__system_print, ona__system_draw_tilemap), the one Lua systems use, so a frame's picture is
 * the same whichever host or thread drew it; outside a turn there is no frame to draw into
 * (ONA_ETHREAD). Shapes are built on the stack (ONA_SHAPE_MAX_POINTS bounds every one). The
 * draw-state stack (ona_ctx_gfx_*) is the one Lua's ona.gfx.push and its kin use
 * (services/draw_transform.c).
 */
#include "draw_state.h"
#include "draw_transform.h"
#include "native.h"

#include <math.h>

int ona_ctx_draw(ona_ctx *ctx, ona_texture texture, int layer, const ona_sprite *sprites,
                 uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    return ona__system_draw(ctx->sys, &(ona__draw_key){.layer = layer, .texture = texture.id},
                            sprites, count);
}

int ona_ctx_draw_ex(ona_ctx *ctx, ona_texture texture, const ona_draw_desc *desc,
                    const ona_sprite *sprites, uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    ona__draw_key key = {.texture = texture.id};
    if (desc) {
        key.layer = desc->layer;
        key.blend = (uint32_t)desc->blend;
        key.shader = desc->shader.id;
        key.target = desc->target.id;
    }
    const char *why;
    if (ona__draw_key_check(ona__ctx_services(ctx), &key, &why))
        return ONA_EINVAL;
    return ona__system_draw(ctx->sys, &key, sprites, count);
}

/* ONA_EINVAL, logged naming `fn` and why, as Lua raises for the same arguments. */
static int refuse(ona_ctx *ctx, const char *fn, const char *why) {
    ona_log(ONA_LOG_ERROR, ctx ? ctx->sys->name : "native", "%s: %s", fn, why);
    return ONA_EINVAL;
}

/* ONA_EINVAL (logged) for a style the shape functions refuse, else 0. */
static int check_style(ona_ctx *ctx, const char *fn, const ona_shape_style *style) {
    const char *why = ona_shape_style_error(style);
    return why ? refuse(ctx, fn, why) : 0;
}

int ona_ctx_camera(ona_ctx *ctx, const ona_camera_desc *desc) {
    if (!ctx || !desc || (desc->layer_range && desc->layer_lo > desc->layer_hi) ||
        desc->viewport_w < 0 || desc->viewport_h < 0)
        return ONA_EINVAL;
    if (!isfinite(desc->x) || !isfinite(desc->y))
        return refuse(ctx, "ona_ctx_camera", "desc->x and desc->y must be finite");
    if (!(desc->zoom >= 0) || !isfinite(desc->zoom))
        return refuse(ctx, "ona_ctx_camera", "desc->zoom must be > 0 (0: 1) and finite");
    if (!isfinite(desc->viewport_x) || !isfinite(desc->viewport_y) || !isfinite(desc->viewport_w) ||
        !isfinite(desc->viewport_h))
        return refuse(ctx, "ona_ctx_camera", "the viewport must be finite");
    ona__setting s = ona__camera_setting(desc);
    return ona__system_set(ctx->sys, &s);
}

int ona_ctx_print(ona_ctx *ctx, ona_font font, const char *text, size_t length, float x, float y,
                  const ona_text_desc *desc) {
    if (!ctx || (!text && length))
        return ONA_EINVAL;
    return ona__system_print(ctx->sys, font, text, length, x, y, desc);
}

int ona_ctx_draw_shapes(ona_ctx *ctx, int layer, const ona_sprite *sprites, uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    ona_texture white = ona__services_white(ona__ctx_services(ctx));
    return ona__system_draw(ctx->sys, &(ona__draw_key){.layer = layer, .texture = white.id},
                            sprites, count);
}

/* Draws what a shape function wrote into a stack array (shapes larger than it are refused by
 * the count check: ONA_SHAPE_MAX_POINTS bounds every shape below). */
static int draw_shape(ona_ctx *ctx, int layer, const ona_sprite *s, uint32_t needed,
                      uint32_t capacity) {
    if (needed > capacity)
        return ONA_EINVAL;
    return ona_ctx_draw_shapes(ctx, layer, s, needed);
}

int ona_ctx_rect(ona_ctx *ctx, int layer, float x, float y, float w, float h,
                 const ona_shape_style *style) {
    int rc = check_style(ctx, "ona_ctx_rect", style);
    if (rc)
        return rc;
    ona_sprite s[4];
    return draw_shape(ctx, layer, s, ona_shape_rect(x, y, w, h, style, s, 4), 4);
}

int ona_ctx_line(ona_ctx *ctx, int layer, float x1, float y1, float x2, float y2,
                 const ona_shape_style *style) {
    int rc = check_style(ctx, "ona_ctx_line", style);
    if (rc)
        return rc;
    ona_sprite s[1 + 2 * (ONA_SHAPE_MAX_POINTS / 2)];
    uint32_t n = ona_shape_line(x1, y1, x2, y2, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

int ona_ctx_circle(ona_ctx *ctx, int layer, float x, float y, float r,
                   const ona_shape_style *style) {
    int rc = check_style(ctx, "ona_ctx_circle", style);
    if (rc)
        return rc;
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
    uint32_t n = ona_shape_circle(x, y, r, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

int ona_ctx_polygon(ona_ctx *ctx, int layer, const float *xy, uint32_t count,
                    const ona_shape_style *style) {
    if (!xy || count > ONA_SHAPE_MAX_POINTS)
        return ONA_EINVAL;
    int rc = check_style(ctx, "ona_ctx_polygon", style);
    if (rc)
        return rc;
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
    uint32_t n = ona_shape_polygon(xy, count, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

int ona_ctx_draw_tilemap(ona_ctx *ctx, int layer, const ona_tilemap *map, float x, float y) {
    if (!ctx || !map || !map->tiles || map->w <= 0 || map->h <= 0 || map->tile_w <= 0 ||
        map->tile_h <= 0)
        return ONA_EINVAL;
    return ona__system_draw_tilemap(
        ctx->sys, &(ona__draw_key){.layer = layer, .texture = map->texture.id}, map, x, y);
}

int ona_ctx_gfx_push(ona_ctx *ctx, ona_gfx_push_what what) {
    if (!ctx || (what != ONA_GFX_PUSH_TRANSFORM && what != ONA_GFX_PUSH_ALL))
        return ONA_EINVAL;
    return ona__system_push(ctx->sys, what == ONA_GFX_PUSH_ALL);
}

int ona_ctx_gfx_pop(ona_ctx *ctx) {
    return ctx ? ona__system_pop(ctx->sys) : ONA_EINVAL;
}

int ona_ctx_gfx_translate(ona_ctx *ctx, float x, float y) {
    if (!ctx)
        return ONA_EINVAL;
    if (!isfinite(x) || !isfinite(y))
        return refuse(ctx, "ona_ctx_gfx_translate", "x and y must be finite");
    ona__system_translate(ctx->sys, x, y);
    return 0;
}

int ona_ctx_gfx_rotate(ona_ctx *ctx, float radians) {
    if (!ctx)
        return ONA_EINVAL;
    if (!isfinite(radians))
        return refuse(ctx, "ona_ctx_gfx_rotate", "the angle must be finite");
    ona__system_rotate(ctx->sys, radians);
    return 0;
}

int ona_ctx_gfx_scale(ona_ctx *ctx, float sx, float sy) {
    if (!ctx)
        return ONA_EINVAL;
    if (!isfinite(sx) || !isfinite(sy) || sx == 0 || sy == 0)
        return refuse(ctx, "ona_ctx_gfx_scale", "sx and sy must be finite and not 0");
    ona__system_scale(ctx->sys, sx, sy);
    return 0;
}

int ona_ctx_gfx_origin(ona_ctx *ctx) {
    if (!ctx)
        return ONA_EINVAL;
    ona__system_origin(ctx->sys);
    return 0;
}

int ona_ctx_gfx_transform_point(ona_ctx *ctx, bool inverse, float x, float y, float *ox,
                                float *oy) {
    if (!ctx || !ox || !oy)
        return ONA_EINVAL;
    ona__system_transform_point(ctx->sys, inverse, x, y, ox, oy);
    return 0;
}

int ona_ctx_gfx_set_target(ona_ctx *ctx, ona_texture canvas) {
    if (!ctx)
        return ONA_EINVAL;
    if (canvas.id && !ona__services_is_canvas(ona__ctx_services(ctx), canvas.id))
        return refuse(ctx, "ona_ctx_gfx_set_target", "not a canvas (ona_runtime_canvas)");
    ctx->sys->draw.target = canvas.id;
    return 0;
}

ona_texture ona_ctx_gfx_target(ona_ctx *ctx) {
    return (ona_texture){ctx ? ctx->sys->draw.target : 0};
}
