/*
 * l_transform.c: the draw-state stack of `ona.gfx`, as LÖVE has it: push, pop, translate,
 * rotate, scale, origin, transform_point, inverse_transform_point, and the default target
 * (set_target, get_target, like love.graphics.setCanvas).
 *
 * Design note. The state is the system's (services/draw_transform.c) and every draw of the turn
 * goes through it in the one draw path (services/draw.c), so sprites, shapes, text, sheets and
 * tile maps all follow it, under the layer cameras. It starts each turn as the identity, onto
 * the screen, with nothing pushed. Misuse raises at the author's line under the function's
 * public name (l_ona.h).
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"

#include "draw_state.h"
#include "draw_transform.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <math.h>

static ona__system *self(lua_State *L) {
    return ona__lua_of(L)->sys;
}

static float check_finite(lua_State *L, int arg, const char *fn) {
    lua_Number n = ona__lua_checknumber(L, arg, fn);
    if (!isfinite(n) || fabs(n) > 3.4e38)
        ona__lua_argerror(L, arg, fn, "a finite number expected");
    return (float)n;
}

/* ona.gfx.push([what]): saves the transform, and with "all" the target too, for ona.gfx.pop. */
static int l_gfx_push(lua_State *L) {
    static const char fn[] = "ona.gfx.push";
    bool all = false;
    if (!lua_isnoneornil(L, 1)) {
        const char *what = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : "";
        all = strcmp(what, "all") == 0;
        if (!all && strcmp(what, "transform") != 0)
            ona__lua_argerror(L, 1, fn, "\"all\" or \"transform\" expected");
    }
    int rc = ona__system_push(self(L), all);
    if (rc == ONA_ELIMIT)
        ona__lua_raise(L, fn, "more than %d pushes without a pop in one turn", ONA__DRAW_STACK);
    if (rc)
        ona__lua_raise(L, fn, "out of memory");
    return 0;
}

/* ona.gfx.pop(): back to the state of the last push. */
static int l_gfx_pop(lua_State *L) {
    if (ona__system_pop(self(L)))
        ona__lua_raise(L, "ona.gfx.pop", "no push to pop (the stack starts empty each turn)");
    return 0;
}

/* ona.gfx.translate(x, y) */
static int l_gfx_translate(lua_State *L) {
    static const char fn[] = "ona.gfx.translate";
    float x = check_finite(L, 1, fn), y = check_finite(L, 2, fn);
    ona__system_translate(self(L), x, y);
    return 0;
}

/* ona.gfx.rotate(radians): clockwise on screen, like a sprite's rotation. */
static int l_gfx_rotate(lua_State *L) {
    ona__system_rotate(self(L), check_finite(L, 1, "ona.gfx.rotate"));
    return 0;
}

/* ona.gfx.scale(sx [, sy]): sy defaults to sx; neither may be 0. */
static int l_gfx_scale(lua_State *L) {
    static const char fn[] = "ona.gfx.scale";
    float sx = check_finite(L, 1, fn);
    float sy = lua_isnoneornil(L, 2) ? sx : check_finite(L, 2, fn);
    if (sx == 0)
        ona__lua_argerror(L, 1, fn, "a scale of 0 draws nothing and cannot be undone");
    if (sy == 0)
        ona__lua_argerror(L, 2, fn, "a scale of 0 draws nothing and cannot be undone");
    ona__system_scale(self(L), sx, sy);
    return 0;
}

/* ona.gfx.origin(): the identity transform (the target stays). */
static int l_gfx_origin(lua_State *L) {
    ona__system_origin(self(L));
    return 0;
}

static int transform_point(lua_State *L, const char *fn, bool inverse) {
    float x = check_finite(L, 1, fn), y = check_finite(L, 2, fn), ox, oy;
    ona__system_transform_point(self(L), inverse, x, y, &ox, &oy);
    lua_pushnumber(L, ox);
    lua_pushnumber(L, oy);
    return 2;
}

/* ona.gfx.transform_point(x, y) -> x, y: where a draw at (x, y) lands (before the cameras). */
static int l_gfx_transform_point(lua_State *L) {
    return transform_point(L, "ona.gfx.transform_point", false);
}

/* ona.gfx.inverse_transform_point(x, y) -> x, y: the point a draw lands at (x, y) from. */
static int l_gfx_inverse_transform_point(lua_State *L) {
    return transform_point(L, "ona.gfx.inverse_transform_point", true);
}

/* ona.gfx.set_target(canvas | nil): where this turn's draws go unless they name a target. */
static int l_gfx_set_target(lua_State *L) {
    static const char fn[] = "ona.gfx.set_target";
    uint32_t id = 0;
    if (!lua_isnoneornil(L, 1)) {
        lua_Number n = lua_isnumber(L, 1) ? lua_tonumber(L, 1) : -1;
        if (n < 1 || n > 4294967295.0 || n != floor(n) ||
            !ona__services_is_canvas(ona__lua_of(L)->svc, (uint32_t)n))
            ona__lua_argerror(L, 1, fn, "a canvas (ona.gfx.canvas) or nil for the screen expected");
        id = (uint32_t)n;
    }
    self(L)->draw.target = id;
    return 0;
}

/* ona.gfx.get_target() -> canvas | nil */
static int l_gfx_get_target(lua_State *L) {
    uint32_t id = self(L)->draw.target;
    if (id)
        lua_pushnumber(L, id);
    else
        lua_pushnil(L);
    return 1;
}

void ona__lua_open_transform(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"push", l_gfx_push},
        {"pop", l_gfx_pop},
        {"translate", l_gfx_translate},
        {"rotate", l_gfx_rotate},
        {"scale", l_gfx_scale},
        {"origin", l_gfx_origin},
        {"transform_point", l_gfx_transform_point},
        {"inverse_transform_point", l_gfx_inverse_transform_point},
        {"set_target", l_gfx_set_target},
        {"get_target", l_gfx_get_target},
        {NULL, NULL},
    };
    luaL_register(L, NULL, fns);
}
