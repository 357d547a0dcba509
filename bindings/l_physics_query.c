/*
 * l_physics_query.c: world:step(dt) -> contacts, world:raycast, world:query, world:bodies and
 * world:debug_draw (l_physics.c has worlds and bodies).
 *
 * Design note. A step's contacts are plain tables { type = "begin"|"end", a =, b =, x =, y =,
 * nx =, ny = } whose a and b are the bodies' user values (their numbers when they have none):
 * message-encodable, so a physics system forwards them with ona.send as they are. Rays and boxes
 * return the body userdata (with `user` beside it for hits). The debug draw outlines every body
 * through the runtime's shapes (runtime/gfx/shapes.c), coloured by kind.
 */
#include "l_physics.h"

#include "l_modules.h"
#include "lua_check.h"
#include "lua_draw_args.h"

#include "services.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

static float check_finite(lua_State *L, int arg, const char *fn) {
    lua_Number v = ona__lua_checknumber(L, arg, fn);
    if (!isfinite(v))
        ona__lua_argerror(L, arg, fn, "a finite number expected");
    return (float)v;
}

static void set_number(lua_State *L, const char *k, lua_Number v) {
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

/* world:step(dt) -> { contact, ... } */
static int l_world_step(lua_State *L) {
    static const char fn[] = "world:step";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    lua_Number dt = ona__lua_checknumber(L, 2, fn);
    if (!(dt > 0 && dt <= 1))
        ona__lua_argerror(L, 2, fn, "dt must be a number of seconds > 0 and <= 1");
    lua_settop(L, 2);
    const ona_physics_contact *c;
    size_t n;
    int rc = ona_physics_step(lw->w, (float)dt, &c, &n);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 7);
        lua_pushstring(L, c[i].begin ? "begin" : "end");
        lua_setfield(L, -2, "type");
        ona__lua_physics_push_user(L, 1, c[i].a);
        lua_setfield(L, -2, "a");
        ona__lua_physics_push_user(L, 1, c[i].b);
        lua_setfield(L, -2, "b");
        set_number(L, "x", c[i].x);
        set_number(L, "y", c[i].y);
        set_number(L, "nx", c[i].nx);
        set_number(L, "ny", c[i].ny);
        lua_rawseti(L, -2, (int)i + 1);
    }
    /* The destroyed bodies' users were for this step's ending contacts only. */
    lua_getfenv(L, 1);
    lua_newtable(L);
    lua_rawseti(L, -2, L_PHYSICS_GONE);
    lua_pop(L, 1);
    return 1;
}

static void push_hit(lua_State *L, const ona_physics_hit *h) {
    lua_createtable(L, 0, 7);
    ona__lua_physics_push_body(L, 1, h->body);
    lua_setfield(L, -2, "body");
    ona__lua_physics_push_user(L, 1, h->body);
    lua_setfield(L, -2, "user");
    set_number(L, "x", h->x);
    set_number(L, "y", h->y);
    set_number(L, "nx", h->nx);
    set_number(L, "ny", h->ny);
    set_number(L, "fraction", h->fraction);
}

/* world:raycast(x1, y1, x2, y2 [, { all = true }]) -> the closest hit or nil; all: every hit,
 * sorted by fraction. A hit is { body =, user =, x =, y =, nx =, ny =, fraction = }. */
static int l_world_raycast(lua_State *L) {
    static const char fn[] = "world:raycast";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    float x1 = check_finite(L, 2, fn), y1 = check_finite(L, 3, fn);
    float x2 = check_finite(L, 4, fn), y2 = check_finite(L, 5, fn);
    bool all = false;
    if (!lua_isnoneornil(L, 6)) {
        ona__lua_checktable(L, 6, fn);
        lua_getfield(L, 6, "all");
        all = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    lua_settop(L, 6);
    const ona_physics_hit *h;
    size_t n;
    int rc = ona_physics_raycast(lw->w, x1, y1, x2, y2, all, &h, &n);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    if (!all) {
        if (n == 0)
            lua_pushnil(L);
        else
            push_hit(L, &h[0]);
        return 1;
    }
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        push_hit(L, &h[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static void push_bodies(lua_State *L, const ona_physics_body *b, size_t n) {
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        ona__lua_physics_push_body(L, 1, b[i]);
        lua_rawseti(L, -2, (int)i + 1);
    }
}

/* world:query(x1, y1, x2, y2) -> the bodies whose bounding box overlaps, by creation order */
static int l_world_query(lua_State *L) {
    static const char fn[] = "world:query";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    float x1 = check_finite(L, 2, fn), y1 = check_finite(L, 3, fn);
    float x2 = check_finite(L, 4, fn), y2 = check_finite(L, 5, fn);
    lua_settop(L, 5);
    const ona_physics_body *b;
    size_t n;
    int rc = ona_physics_query(lw->w, x1, y1, x2, y2, &b, &n);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    push_bodies(L, b, n);
    return 1;
}

/* world:bodies() -> every live body, by creation order */
static int l_world_bodies(lua_State *L) {
    static const char fn[] = "world:bodies";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    lua_settop(L, 1);
    const ona_physics_body *b;
    size_t n;
    int rc = ona_physics_list(lw->w, &b, &n);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    push_bodies(L, b, n);
    return 1;
}

static uint32_t kind_tint(const ona_physics_outline_view *v) {
    if (v->type == ONA_PHYSICS_STATIC)
        return ONA_RGBA(128, 230, 128, 255);
    if (v->type == ONA_PHYSICS_KINEMATIC)
        return ONA_RGBA(128, 128, 230, 255);
    return v->awake ? ONA_RGBA(230, 178, 178, 255) : ONA_RGBA(153, 153, 153, 255);
}

typedef struct draw_out {
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
} draw_out;

/* world:debug_draw([opts]): every body's outline, and a radius for circles' angle; opts are the
 * shapes' (layer, width, tint: one colour for all instead of one per kind). Returns the bodies
 * drawn. */
static int l_world_debug_draw(lua_State *L) {
    static const char fn[] = "world:debug_draw";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    ona__lua *lua = ona__lua_of(L);
    ona__draw_key key = {.texture = ona__services_white(lua->svc).id};
    ona_shape_style style = {.mode = ONA_SHAPE_LINE, .width = 1};
    uint32_t tint = 0;
    if (!lua_isnoneornil(L, 2)) {
        ona__lua_checktable(L, 2, fn);
        ona__lua_draw_key(L, 2, fn, &key);
        lua_Number width = ona__lua_opt_field(L, 2, "width", 1, fn);
        if (!(width > 0) || width > ONA_SHAPE_MAX_WIDTH)
            ona__lua_argerror(L, 2, fn, "opts.width must be a number > 0 and at most 1e6");
        style.width = (float)width;
        lua_getfield(L, 2, "tint");
        if (!lua_isnil(L, -1))
            tint = ona__lua_check_tint(L, lua_gettop(L), 2, fn);
        lua_pop(L, 1);
    }
    lua_settop(L, 2);
    const ona_physics_body *list;
    size_t n;
    int rc = ona_physics_list(lw->w, &list, &n);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    /* The list is the world's until its next such call: the outlines below make none. */
    draw_out *o = lua_newuserdata(L, sizeof *o);
    for (size_t i = 0; i < n; i++) {
        ona_physics_outline_view v;
        if (ona_physics_outline(lw->w, list[i], &v))
            continue;
        style.tint = tint ? tint : kind_tint(&v);
        uint32_t k = 0;
        if (v.shape == ONA_PHYSICS_CIRCLE) {
            k = ona_shape_circle(v.x, v.y, v.radius, &style, o->s, ONA_SHAPE_MAX_POINTS);
            ona__lua_draw(L, fn, &key, o->s, k);
            k = ona_shape_line(v.x, v.y, v.x + v.radius * cosf(v.angle),
                               v.y + v.radius * sinf(v.angle), &style, o->s, ONA_SHAPE_MAX_POINTS);
            ona__lua_draw(L, fn, &key, o->s, k);
            continue;
        }
        /* Chains longer than a shape's limit go in overlapping runs. */
        for (uint32_t at = 0; at + 1 < v.count;) {
            uint32_t run =
                v.count - at < ONA_SHAPE_MAX_POINTS ? v.count - at : ONA_SHAPE_MAX_POINTS;
            bool closed = v.closed && at == 0 && run == v.count;
            k = ona_shape_polyline(v.points + 2 * at, run, closed, &style, o->s,
                                   ONA_SHAPE_MAX_POINTS);
            if (k > ONA_SHAPE_MAX_POINTS)
                k = 0;
            ona__lua_draw(L, fn, &key, o->s, k);
            if (at + run >= v.count)
                break;
            at += run - 1;
        }
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

void ona__lua_physics_query_methods(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"step", l_world_step},     {"raycast", l_world_raycast},       {"query", l_world_query},
        {"bodies", l_world_bodies}, {"debug_draw", l_world_debug_draw}, {NULL, NULL},
    };
    luaL_register(L, NULL, methods);
}
