/*
 * l_text.c: text with real fonts in Lua: ona.gfx.font, ona.gfx.print and
 * ona.gfx.measure, over runtime/gfx/text.c and text_layout.c.
 *
 * Design note. A font handle is a number, like a texture's. Loading resolves the path against
 * the game's script roots, as ona.gfx.texture does; a missing or corrupt file is not an error to
 * raise but an expected failure: the default font's handle comes back with the message as a
 * second value, so text stays visible. Printing runs the layout in C and appends its sprites to
 * this turn's render queue (ona__system_draw) with no lock; it is refused outside a turn, where
 * no frame is being built and the glyph atlas could be uploading. Misuse raises at the author's
 * line under the public name.
 *
 *   ona.gfx.font([path,] size) -> font [, error]
 *   ona.gfx.print(font, text, x, y [, {align, width, wrap, tint, layer, scale}])
 *   ona.gfx.measure(font, text [, {width, wrap, scale}]) -> width, height
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"

#include "lua_host.h"
#include "paths.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

static ona__services *services(lua_State *L) {
    return ona__lua_of(L)->svc;
}

static ona_font check_font(lua_State *L, int idx, const char *fn) {
    if (!lua_isnumber(L, idx)) {
        lua_pushfstring(L, "not a font handle: got %s (use ona.gfx.font)", luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    lua_Number n = lua_tonumber(L, idx);
    ona_font font = {n >= 1 && n <= ONA__MAX_FONTS && n == floor(n) ? (uint32_t)n : 0};
    if (!font.id || ona__services_font_line_height(services(L), font) <= 0) {
        lua_pushfstring(L, "not a font handle: %f", n);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    return font;
}

/* Reads the layout options (width, wrap, scale; with `drawing`, also align and tint) from the
 * opts table at t into d. */
static void check_opts(lua_State *L, int t, const char *fn, bool drawing, ona_text_desc *d) {
    if (lua_isnoneornil(L, t))
        return;
    ona__lua_checktable(L, t, fn);
    d->width = (float)ona__lua_opt_field(L, t, "width", 0, fn);
    if (!(d->width >= 0 && d->width <= 1e7f))
        ona__lua_argerror(L, t, fn, "opts.width must be a number from 0 to 1e7");
    d->scale = (float)ona__lua_opt_field(L, t, "scale", 1, fn);
    if (!(d->scale > 0 && d->scale <= 1000))
        ona__lua_argerror(L, t, fn, "opts.scale must be a number above 0, at most 1000");
    lua_getfield(L, t, "wrap");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        ona__lua_argerror(L, t, fn, "opts.wrap must be a boolean");
    d->wrap = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (d->wrap && d->width <= 0)
        ona__lua_argerror(L, t, fn, "opts.wrap needs opts.width");
    if (!drawing)
        return;
    lua_getfield(L, t, "align");
    if (!lua_isnil(L, -1)) {
        const char *align = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(align, "left") == 0)
            d->align = ONA_ALIGN_LEFT;
        else if (strcmp(align, "center") == 0)
            d->align = ONA_ALIGN_CENTER;
        else if (strcmp(align, "right") == 0)
            d->align = ONA_ALIGN_RIGHT;
        else
            ona__lua_argerror(L, t, fn, "opts.align must be \"left\", \"center\" or \"right\"");
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "tint");
    if (!lua_isnil(L, -1))
        d->tint = ona__lua_check_tint(L, lua_gettop(L), t, fn);
    lua_pop(L, 1);
    ona__draw_key key = {0};
    ona__lua_draw_key(L, t, fn, &key);
    d->layer = key.layer;
}

/* ona.gfx.font([path,] size) -> font [, error] */
static int l_text_font(lua_State *L) {
    static const char fn[] = "ona.gfx.font";
    int size_arg = lua_gettop(L) >= 2 ? 2 : 1;
    const char *name = NULL;
    if (size_arg == 2 && !lua_isnil(L, 1))
        name = ona__lua_checkstring(L, 1, fn, NULL);
    lua_Number size = ona__lua_checknumber(L, size_arg, fn);
    if (size != floor(size) || size < 1 || size > ONA_FONT_MAX_SIZE) {
        lua_pushfstring(L, "size must be a whole number of pixels from 1 to %d", ONA_FONT_MAX_SIZE);
        ona__lua_argerror(L, size_arg, fn, lua_tostring(L, -1));
    }
    char path[1024];
    if (name)
        ona__lua_check_game_path(L, 1, fn, name,
                                 ona__services_locate(services(L), name, path, sizeof path));
    ona_font font;
    ona__system *sys = ona__lua_of(L)->sys;
    int rc = ona__services_font_load(services(L), name ? path : NULL, (int)size, sys->name, sys->id,
                                     &font);
    if (!font.id) /* too many fonts: nothing to hand out */
        ona__lua_raise(L, fn, "%s (at most %d fonts)", ona_strerror(rc), ONA__MAX_FONTS);
    lua_pushnumber(L, font.id);
    if (rc == 0)
        return 1;
    lua_pushfstring(L, "font %s: %s", name ? path : "(default)",
                    rc == ONA_EFORMAT ? "not a TrueType font" : ona__paths_why(rc, path));
    return 2;
}

/* ona.gfx.print(font, text, x, y [, opts]) */
static int l_text_print(lua_State *L) {
    static const char fn[] = "ona.gfx.print";
    ona_font font = check_font(L, 1, fn);
    size_t length;
    const char *text = ona__lua_checkstring(L, 2, fn, &length);
    float x = (float)ona__lua_checknumber(L, 3, fn);
    float y = (float)ona__lua_checknumber(L, 4, fn);
    if (!isfinite(x) || !isfinite(y))
        ona__lua_raise(L, fn, "x and y must be finite numbers");
    ona_text_desc desc = {0};
    check_opts(L, 5, fn, true, &desc);
    int rc = ona__system_print(ona__lua_of(L)->sys, font, text, length, x, y, &desc);
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only draw during a turn (init or process), not in the main chunk");
    if (rc)
        ona__lua_raise(L, fn, "%s", ona_strerror(rc));
    return 0;
}

/* ona.gfx.measure(font, text [, opts]) -> width, height */
static int l_text_measure(lua_State *L) {
    static const char fn[] = "ona.gfx.measure";
    ona_font font = check_font(L, 1, fn);
    size_t length;
    const char *text = ona__lua_checkstring(L, 2, fn, &length);
    ona_text_desc desc = {0};
    check_opts(L, 3, fn, false, &desc);
    float w = 0, h = 0;
    int rc = ona__services_font_measure(services(L), font, text, length, &desc, &w, &h);
    if (rc)
        ona__lua_raise(L, fn, "%s", ona_strerror(rc));
    lua_pushnumber(L, w);
    lua_pushnumber(L, h);
    return 2;
}

void ona__lua_open_text(lua_State *L) {
    static const luaL_Reg text[] = {
        {"font", l_text_font},
        {"print", l_text_print},
        {"measure", l_text_measure},
        {NULL, NULL},
    };
    luaL_register(L, NULL, text);
}
