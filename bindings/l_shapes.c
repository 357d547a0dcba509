/*
 * l_shapes.c: ona.gfx.rect, line, circle and polygon: shapes tessellated by runtime/gfx/shapes.c
 * into free quads and drawn with the runtime's 1x1 white texture.
 *
 * Design note. A shape is at most ONA_SHAPE_MAX_POINTS quads, written into an array on the C
 * stack and appended to the render queue in one ona__lua_draw (so consecutive shapes of a system
 * on one layer are one queue entry, and one draw call after the merge). Options are read before
 * anything is drawn, so a misuse raises without a half-drawn shape. Shared draw options (layer;
 * blend, shader and target once the render branch lands) come from ona__lua_draw_key.
 *
 * Shape options: mode = "fill" (default) | "line", width (lines and outlines, default 1), tint
 * (0xRRGGBBAA or {r, g, b[, a]}), segments (circles, 3..1024), cap = "butt" | "square" | "round"
 * (two-point lines), closed (polylines), layer.
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"

#include "lua_host.h"
#include "services.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

static ona__services *services(lua_State *L) {
    return ona__lua_of(L)->svc;
}

/* Reads the shape options at index t (none or nil: the defaults) into style and key. */
static void shape_opts(lua_State *L, int t, const char *fn, ona_shape_style *style,
                       ona__draw_key *key) {
    if (lua_isnoneornil(L, t))
        return;
    ona__lua_checktable(L, t, fn);
    ona__lua_draw_key(L, t, fn, key);
    lua_getfield(L, t, "mode");
    if (!lua_isnil(L, -1)) {
        const char *mode = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
        if (strcmp(mode, "fill") == 0)
            style->mode = ONA_SHAPE_FILL;
        else if (strcmp(mode, "line") == 0)
            style->mode = ONA_SHAPE_LINE;
        else
            ona__lua_argerror(L, t, fn, "opts.mode must be \"fill\" or \"line\"");
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "cap");
    if (!lua_isnil(L, -1)) {
        const char *cap = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
        if (strcmp(cap, "butt") == 0)
            style->cap = ONA_CAP_BUTT;
        else if (strcmp(cap, "square") == 0)
            style->cap = ONA_CAP_SQUARE;
        else if (strcmp(cap, "round") == 0)
            style->cap = ONA_CAP_ROUND;
        else
            ona__lua_argerror(L, t, fn, "opts.cap must be \"butt\", \"square\" or \"round\"");
    }
    lua_pop(L, 1);
    lua_Number width = ona__lua_opt_field(L, t, "width", 1, fn);
    if (!(width > 0) || width > ONA_SHAPE_MAX_WIDTH)
        ona__lua_argerror(L, t, fn, "opts.width must be a number > 0 and at most 1e6");
    style->width = (float)width;
    lua_Number segments = ona__lua_opt_field(L, t, "segments", 0, fn);
    if (segments != 0 &&
        (segments < 3 || segments > ONA_SHAPE_MAX_POINTS || segments != floor(segments)))
        ona__lua_argerror(L, t, fn, "opts.segments must be an integer from 3 to 1024");
    style->segments = (uint32_t)segments;
    lua_getfield(L, t, "tint");
    if (!lua_isnil(L, -1)) {
        style->tint = ona__lua_check_tint(L, lua_gettop(L), t, fn);
        /* A style's 0 means the default (opaque white): keep a transparent black transparent. */
        if (style->tint == 0)
            style->tint = ONA_RGBA(255, 255, 255, 0);
    }
    lua_pop(L, 1);
}

static ona__draw_key white_key(lua_State *L) {
    return (ona__draw_key){.texture = ona__services_white(services(L)).id};
}

/* Reads a flat point list {x1, y1, x2, y2, ...} at idx into xy; returns the point count. */
static uint32_t check_points(lua_State *L, int idx, const char *fn, uint32_t min, float *xy) {
    ona__lua_checktable(L, idx, fn);
    size_t len = lua_objlen(L, idx);
    if (len % 2 != 0 || len < 2 * min || len > 2 * ONA_SHAPE_MAX_POINTS) {
        lua_pushfstring(L, "points must be a flat list {x1, y1, x2, y2, ...} of %d to %d points",
                        (int)min, ONA_SHAPE_MAX_POINTS);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, idx, (int)i + 1);
        if (!lua_isnumber(L, -1)) {
            lua_pushfstring(L, "points[%d] is not a number", (int)i + 1);
            ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
        }
        xy[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return (uint32_t)(len / 2);
}

/* Every shape of the functions below fits: ONA_SHAPE_MAX_POINTS quads at most. */
typedef struct shape_out {
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
} shape_out;

static int draw_out(lua_State *L, const char *fn, const ona__draw_key *key, const shape_out *o,
                    uint32_t n) {
    if (n > ONA_SHAPE_MAX_POINTS) /* cannot happen with the limits checked above */
        ona__lua_raise(L, fn, "shape too large (%d quads)", (int)n);
    ona__lua_draw(L, fn, key, o->s, n);
    return 0;
}

/* ona.gfx.rect(x, y, w, h [, opts]) */
static int l_gfx_rect(lua_State *L) {
    static const char fn[] = "ona.gfx.rect";
    float x = (float)ona__lua_checknumber(L, 1, fn), y = (float)ona__lua_checknumber(L, 2, fn);
    float w = (float)ona__lua_checknumber(L, 3, fn), h = (float)ona__lua_checknumber(L, 4, fn);
    ona_shape_style style = {0};
    ona__draw_key key = white_key(L);
    shape_opts(L, 5, fn, &style, &key);
    shape_out o;
    return draw_out(L, fn, &key, &o, ona_shape_rect(x, y, w, h, &style, o.s, ONA_SHAPE_MAX_POINTS));
}

/* ona.gfx.line(x1, y1, x2, y2 [, x3, y3 ...] [, opts]) or ona.gfx.line(points [, opts]) */
static int l_gfx_line(lua_State *L) {
    static const char fn[] = "ona.gfx.line";
    float xy[2 * ONA_SHAPE_MAX_POINTS];
    uint32_t count;
    int opts;
    if (lua_istable(L, 1)) {
        count = check_points(L, 1, fn, 2, xy);
        opts = 2;
    } else {
        int top = lua_gettop(L);
        int numbers = lua_istable(L, top) ? top - 1 : top;
        if (numbers < 4 || numbers % 2 != 0 || numbers > 2 * ONA_SHAPE_MAX_POINTS)
            ona__lua_raise(L, fn,
                           "expects x1, y1, x2, y2 [, x3, y3 ...] [, opts] or (points "
                           "[, opts]): got %d coordinates",
                           numbers);
        for (int i = 0; i < numbers; i++)
            xy[i] = (float)ona__lua_checknumber(L, i + 1, fn);
        count = (uint32_t)numbers / 2;
        opts = numbers + 1;
    }
    ona_shape_style style = {0};
    ona__draw_key key = white_key(L);
    shape_opts(L, opts, fn, &style, &key);
    bool closed = false;
    if (lua_istable(L, opts)) {
        lua_getfield(L, opts, "closed");
        closed = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    shape_out o;
    uint32_t n = count == 2 && !closed
                     ? ona_shape_line(xy[0], xy[1], xy[2], xy[3], &style, o.s, ONA_SHAPE_MAX_POINTS)
                     : ona_shape_polyline(xy, count, closed, &style, o.s, ONA_SHAPE_MAX_POINTS);
    return draw_out(L, fn, &key, &o, n);
}

/* ona.gfx.circle(x, y, r [, opts]) */
static int l_gfx_circle(lua_State *L) {
    static const char fn[] = "ona.gfx.circle";
    float x = (float)ona__lua_checknumber(L, 1, fn), y = (float)ona__lua_checknumber(L, 2, fn);
    lua_Number r = ona__lua_checknumber(L, 3, fn);
    if (!(r >= 0) || r > 1e7)
        ona__lua_argerror(L, 3, fn, "radius must be a number from 0 to 1e7");
    ona_shape_style style = {0};
    ona__draw_key key = white_key(L);
    shape_opts(L, 4, fn, &style, &key);
    shape_out o;
    return draw_out(L, fn, &key, &o,
                    ona_shape_circle(x, y, (float)r, &style, o.s, ONA_SHAPE_MAX_POINTS));
}

/* ona.gfx.polygon(points [, opts]) */
static int l_gfx_polygon(lua_State *L) {
    static const char fn[] = "ona.gfx.polygon";
    float xy[2 * ONA_SHAPE_MAX_POINTS];
    uint32_t count = check_points(L, 1, fn, 3, xy);
    ona_shape_style style = {0};
    ona__draw_key key = white_key(L);
    shape_opts(L, 2, fn, &style, &key);
    shape_out o;
    return draw_out(L, fn, &key, &o,
                    ona_shape_polygon(xy, count, &style, o.s, ONA_SHAPE_MAX_POINTS));
}

void ona__lua_open_shapes(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"rect", l_gfx_rect},       {"line", l_gfx_line}, {"circle", l_gfx_circle},
        {"polygon", l_gfx_polygon}, {NULL, NULL},
    };
    luaL_register(L, NULL, fns);
}
