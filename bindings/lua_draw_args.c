/*
 * lua_draw_args.c: the argument helpers every drawing binding shares (l_gfx.c, l_draw.c,
 * l_shapes.c, l_sheet.c, l_tilemap.c, l_text.c): draw options, tints, texture handles and sizes,
 * and the one call into the services' draw path.
 *
 * Design note. Each helper raises at the author's line under the public function name `fn`
 * (ona__lua_raise, ona__lua_argerror), so a misuse reads the same whichever function it came
 * through. A draw is refused outside a turn, where no frame is being built.
 */
#include "lua_check.h"
#include "lua_draw_args.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <math.h>

void ona__lua_draw(lua_State *L, const char *fn, const ona__draw_key *key,
                   const ona_sprite *sprites, uint32_t count) {
    if (key->target && key->target == key->texture)
        ona__lua_raise(L, fn, "a canvas cannot be drawn into itself (opts.target is the texture)");
    int rc = ona__system_draw(ona__lua_of(L)->sys, key, sprites, count);
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only draw during a turn (init or process), not in the main chunk");
    if (rc == ONA_EINVAL)
        ona__lua_raise(
            L, fn, "a canvas cannot be drawn into itself (it is the target: ona.gfx.set_target)");
    if (rc)
        ona__lua_raise(L, fn, "out of memory");
}

uint32_t ona__lua_check_tint(lua_State *L, int idx, int arg, const char *fn) {
    if (lua_isnumber(L, idx)) {
        lua_Number n = lua_tonumber(L, idx);
        if (n < 0 || n > 4294967295.0)
            ona__lua_argerror(L, arg, fn, "tint must be 0xRRGGBBAA");
        uint32_t rgba = (uint32_t)n;
        return ONA_RGBA(rgba >> 24, (rgba >> 16) & 255, (rgba >> 8) & 255, rgba & 255);
    }
    if (!lua_istable(L, idx))
        ona__lua_argerror(L, arg, fn, "tint must be 0xRRGGBBAA or {r, g, b, a}");
    float c[4] = {1, 1, 1, 1};
    for (int i = 0; i < 4; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (lua_isnumber(L, -1))
            c[i] = ona__lua_clamp01(lua_tonumber(L, -1));
        else if (!lua_isnil(L, -1) || i < 3)
            ona__lua_argerror(L, arg, fn, "tint table needs numbers {r, g, b[, a]} from 0 to 1");
        lua_pop(L, 1);
    }
    return ONA_RGBA(lroundf(c[0] * 255), lroundf(c[1] * 255), lroundf(c[2] * 255),
                    lroundf(c[3] * 255));
}

lua_Number ona__lua_opt_field(lua_State *L, int t, const char *name, lua_Number dflt,
                              const char *fn) {
    lua_getfield(L, t, name);
    lua_Number v = dflt;
    if (!lua_isnil(L, -1)) {
        if (!lua_isnumber(L, -1)) {
            lua_pushfstring(L, "opts.%s must be a number", name);
            ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
        }
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

void ona__lua_draw_key(lua_State *L, int t, const char *fn, ona__draw_key *key) {
    if (lua_isnoneornil(L, t))
        return;
    lua_Number layer = ona__lua_opt_field(L, t, "layer", 0, fn);
    if (layer != floor(layer) || layer < -1000000 || layer > 1000000)
        ona__lua_argerror(L, t, fn, "opts.layer must be an integer");
    key->layer = (int32_t)layer;
    /* Blend, shader, target (l_draw.c checks each). */
    ona__lua_draw_state(L, t, fn, &key->blend, &key->shader, &key->target);
}

void ona__lua_texture_size(lua_State *L, ona_texture tex, int *w, int *h) {
    *w = *h = 0;
    ona__services_texture_size(ona__lua_of(L)->svc, tex, w, h);
}

ona_texture ona__lua_check_texture_size(lua_State *L, int idx, const char *fn, int *w, int *h) {
    lua_Number n = lua_tonumber(L, idx);
    if (!lua_isnumber(L, idx) || n < 1 || n > 4294967295.0 || n != floor(n)) {
        lua_pushfstring(L, "not a texture handle: got %s", luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    ona_texture tex = {(uint32_t)n};
    if (!ona__services_texture_size(ona__lua_of(L)->svc, tex, w, h))
        ona__lua_argerror(L, idx, fn, "not a live texture handle (from ona.gfx.texture)");
    return tex;
}

int ona__lua_check_size(lua_State *L, int idx, const char *fn, const char *what, int max) {
    lua_Number n = ona__lua_checknumber(L, idx, fn);
    if (n < 1 || n > max || n != floor(n)) {
        lua_pushfstring(L, "%s must be an integer from 1 to %d", what, max);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    return (int)n;
}
