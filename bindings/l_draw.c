/*
 * l_draw.c: the draw-state half of `ona.gfx`: layer defaults, canvases, game
 * shaders and their uniforms, window <-> world coordinates per layer; and the blend, shader and
 * target options every drawing function reads (ona__lua_draw_state, used by ona__lua_draw_key).
 *
 * Design note. Nothing here calls GL. Settings (layer defaults, uniforms, canvas clears) are
 * queued like draws (draw_state.c) and applied by main in merge order, so the last setter wins
 * whatever thread ran what; canvases and shaders are handles made at once on any thread whose GL
 * objects main makes before the next frame is drawn. to_world and to_screen read the cameras as
 * main resolved them at the frame's start, which do not change while turns run. Misuse raises
 * at the author's line under the function's public name (l_ona.h).
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"

#include "draw_state.h"
#include "lua_host.h"
#include "paths.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

static ona__system *self(lua_State *L) {
    return ona__lua_of(L)->sys;
}

static ona__services *services(lua_State *L) {
    return ona__lua_of(L)->svc;
}

static const char *const blend_names[] = {"alpha", "premultiplied", "add", "multiply"};

/* A handle argument (a positive integer below 2^32) at idx, or raises naming `what`. */
static uint32_t check_handle(lua_State *L, int idx, int arg, const char *fn, const char *what) {
    lua_Number n = lua_isnumber(L, idx) ? lua_tonumber(L, idx) : -1;
    if (n < 1 || n > 4294967295.0 || n != floor(n)) {
        lua_pushfstring(L, "not %s handle", what);
        ona__lua_argerror(L, arg, fn, lua_tostring(L, -1));
    }
    return (uint32_t)n;
}

void ona__lua_draw_state(lua_State *L, int t, const char *fn, uint32_t *blend, uint32_t *shader,
                         uint32_t *target) {
    ona__services *svc = services(L);
    lua_getfield(L, t, "blend");
    if (!lua_isnil(L, -1)) {
        const char *name = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
        uint32_t found = 0;
        for (uint32_t i = 0; i < 4 && !found; i++)
            if (strcmp(name, blend_names[i]) == 0)
                found = i + ONA_BLEND_ALPHA;
        if (!found)
            ona__lua_argerror(L, t, fn,
                              "opts.blend must be \"alpha\", \"premultiplied\", \"add\" or "
                              "\"multiply\"");
        *blend = found;
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "shader");
    if (!lua_isnil(L, -1)) {
        uint32_t id = check_handle(L, -1, t, fn, "opts.shader: a shader");
        if (!ona__services_shader_valid(svc, id))
            ona__lua_argerror(L, t, fn, "opts.shader is not a shader handle (ona.gfx.shader)");
        *shader = id;
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "target");
    if (!lua_isnil(L, -1)) {
        uint32_t id = check_handle(L, -1, t, fn, "opts.target: a canvas");
        if (!ona__services_is_canvas(svc, id))
            ona__lua_argerror(L, t, fn, "opts.target is not a canvas (ona.gfx.canvas)");
        *target = id;
    }
    lua_pop(L, 1);
}

static void set(lua_State *L, const char *fn, const ona__setting *s) {
    int rc = ona__system_set(self(L), s);
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only draw during a turn (init or process), not in the main chunk");
    if (rc)
        ona__lua_raise(L, fn, "out of memory");
}

static int32_t check_layer(lua_State *L, int idx, const char *fn) {
    lua_Number n = ona__lua_checknumber(L, idx, fn);
    if (n != floor(n) || fabs(n) > 1000000)
        ona__lua_argerror(L, idx, fn, "layer must be an integer");
    return (int32_t)n;
}

/* ona.gfx.layer(n, {blend =, shader =}): the defaults of layer n's draws from this frame on (a
 * draw's own option wins); a field left out goes back to the default (alpha, sprite shader). */
static int l_gfx_layer(lua_State *L) {
    static const char fn[] = "ona.gfx.layer";
    ona__setting s = {.kind = ONA__SET_LAYER, .lo = check_layer(L, 1, fn)};
    ona__lua_checktable(L, 2, fn);
    uint32_t target = 0;
    ona__lua_draw_state(L, 2, fn, &s.blend, &s.shader, &target);
    if (target)
        ona__lua_argerror(L, 2, fn, "a layer has no target: give it to each draw");
    set(L, fn, &s);
    return 0;
}

static int to_coords(lua_State *L, const char *fn, bool world) {
    float x = (float)ona__lua_checknumber(L, 1, fn), y = (float)ona__lua_checknumber(L, 2, fn);
    int32_t layer = lua_isnoneornil(L, 3) ? 0 : check_layer(L, 3, fn);
    float ox, oy;
    if (world)
        ona__services_to_world(services(L), layer, x, y, &ox, &oy);
    else
        ona__services_to_screen(services(L), layer, x, y, &ox, &oy);
    lua_pushnumber(L, ox);
    lua_pushnumber(L, oy);
    return 2;
}

/* ona.gfx.to_world(x, y [, layer]) -> wx, wy: window pixels to layer's world units (layer 0 by
 * default), through the cameras as of this frame's start. */
static int l_gfx_to_world(lua_State *L) {
    return to_coords(L, "ona.gfx.to_world", true);
}

/* ona.gfx.to_screen(x, y [, layer]) -> sx, sy: the inverse of to_world. */
static int l_gfx_to_screen(lua_State *L) {
    return to_coords(L, "ona.gfx.to_screen", false);
}

/* ona.gfx.canvas(w, h) -> handle: a texture to draw into (opts.target) and draw. */
static int l_gfx_canvas(lua_State *L) {
    static const char fn[] = "ona.gfx.canvas";
    lua_Number w = ona__lua_checknumber(L, 1, fn), h = ona__lua_checknumber(L, 2, fn);
    if (w != floor(w) || w < 1 || w > 16384)
        ona__lua_argerror(L, 1, fn, "width must be an integer from 1 to 16384");
    if (h != floor(h) || h < 1 || h > 16384)
        ona__lua_argerror(L, 2, fn, "height must be an integer from 1 to 16384");
    ona_texture tex;
    /* The system's own: freed when it ends (killed, stopped, finished). */
    int rc = ona__services_canvas(services(L), (int)w, (int)h, ona__lua_of(L)->sys->id, &tex);
    if (rc == ONA_ELIMIT)
        ona__lua_raise(L, fn,
                       "too many canvases and textures (at most %d in all); a canvas is freed "
                       "when the system that made it ends",
                       ONA__MAX_TEXTURES);
    if (rc)
        ona__lua_raise(L, fn, "%s", ona_strerror(rc));
    lua_pushnumber(L, tex.id);
    return 1;
}

/* ona.gfx.canvas_clear(canvas, r, g, b [, a]): clears the canvas (0..1 components; alpha
 * defaults to 0, transparent) before this frame draws into it. */
static int l_gfx_canvas_clear(lua_State *L) {
    static const char fn[] = "ona.gfx.canvas_clear";
    ona__setting s = {.kind = ONA__SET_CLEAR};
    s.target = check_handle(L, 1, 1, fn, "a canvas");
    if (!ona__services_is_canvas(services(L), s.target))
        ona__lua_argerror(L, 1, fn, "not a canvas (ona.gfx.canvas)");
    for (int i = 0; i < 4; i++) {
        lua_Number c = i < 3 ? ona__lua_checknumber(L, i + 2, fn) : ona__lua_optnumber(L, 5, fn, 0);
        s.value[i] = c < 0 ? 0.0f : (c > 1 ? 1.0f : (float)c);
    }
    set(L, fn, &s);
    return 0;
}

/* ona.gfx.shader(path) -> handle | nil, message: a fragment shader from the game folder. */
static int l_gfx_shader(lua_State *L) {
    static const char fn[] = "ona.gfx.shader";
    const char *name = ona__lua_checkstring(L, 1, fn, NULL);
    char path[4096];
    ona__lua_check_game_path(L, 1, fn, name,
                             ona__services_locate(services(L), name, path, sizeof path));
    ona_shader sh;
    int rc = ona__services_shader_load(services(L), path, ona__lua_of(L)->sys->id, &sh);
    if (rc) {
        lua_pushnil(L);
        lua_pushfstring(L, "shader %s: %s", path, ona__paths_why(rc, path));
        return 2;
    }
    lua_pushnumber(L, sh.id);
    return 1;
}

/* ona.gfx.uniform(shader, name, number | {x, y [, z [, w]]}): from this frame on. */
static int l_gfx_uniform(lua_State *L) {
    static const char fn[] = "ona.gfx.uniform";
    ona__setting s = {.kind = ONA__SET_UNIFORM};
    s.target = check_handle(L, 1, 1, fn, "a shader");
    if (!ona__services_shader_valid(services(L), s.target))
        ona__lua_argerror(L, 1, fn, "not a shader handle (ona.gfx.shader)");
    size_t len;
    const char *name = ona__lua_checkstring(L, 2, fn, &len);
    if (len == 0 || len >= sizeof s.name)
        ona__lua_argerror(L, 2, fn, "a uniform name of 1 to 31 bytes");
    memcpy(s.name, name, len + 1);
    /* Checked on main against the built program: the report names this line and system. */
    char line[sizeof s.at];
    ona__lua_author_line(L, 1, line, sizeof line);
    size_t n = strlen(line);
    if (n >= 2 && line[n - 2] == ':')
        line[n - 2] = '\0'; /* "u.lua:5: " -> "u.lua:5" */
    if (snprintf(s.at, sizeof s.at, "%s in %s", line[0] ? line : "?", ona__lua_of(L)->sys->name) >=
        (int)sizeof s.at)
        s.at[sizeof s.at - 2] = '~'; /* cut: said so */
    if (lua_isnumber(L, 3)) {
        s.components = 1;
        s.value[0] = (float)lua_tonumber(L, 3);
    } else if (lua_istable(L, 3)) {
        for (int i = 0; i < 4; i++) {
            lua_rawgeti(L, 3, i + 1);
            if (lua_isnumber(L, -1))
                s.value[s.components++] = (float)lua_tonumber(L, -1);
            else if (!lua_isnil(L, -1) || i < 2)
                ona__lua_argerror(L, 3, fn, "a number or {x, y [, z [, w]]} of numbers");
            lua_pop(L, 1);
            if (s.components == (uint32_t)i)
                break;
        }
    } else {
        ona__lua_argerror(L, 3, fn, "a number or {x, y [, z [, w]]} of numbers");
    }
    set(L, fn, &s);
    return 0;
}

void ona__lua_open_draw(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"layer", l_gfx_layer},
        {"to_world", l_gfx_to_world},
        {"to_screen", l_gfx_to_screen},
        {"canvas", l_gfx_canvas},
        {"canvas_clear", l_gfx_canvas_clear},
        {"shader", l_gfx_shader},
        {"uniform", l_gfx_uniform},
        {NULL, NULL},
    };
    luaL_register(L, NULL, fns);
}
