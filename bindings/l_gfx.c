/*
 * l_gfx.c: the `ona.gfx` Lua module: textures, sprites, text, camera, clear colour, screenshots
 * (`ona.input` and the frame's events are l_input.c's).
 *
 * Design note. Drawing never calls GL: it appends to the render queue of the thread running
 * the system's turn (render_queue.c), with the system's spawn order and its own submission
 * counter, so the merged picture does not depend on which thread ran what. Drawing outside a
 * turn (in a script's main chunk) is an error, since no frame is being built.
 *
 * Misuse raises at the author's line under the function's public name (ona__lua_raise, l_ona.h):
 * every helper below takes the name of the function it checks for.
 *
 * Sprite options for ona.gfx.draw(texture, x, y, opts): layer, rotation (radians), scale (or
 * sx, sy), ox, oy (origin in source pixels), src = {x, y, w, h}, tint = 0xRRGGBBAA or
 * {r, g, b, a} with 0..1 components; and, for every drawing function (ona__lua_draw_key),
 * blend, shader and target (l_draw.c).
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"
#include "l_types.h"

#include "draw_state.h"
#include "lua_host.h"
#include "paths.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

static ona__system *self(lua_State *L) {
    return ona__lua_of(L)->sys;
}

static ona__services *services(ona__system *sys) {
    return ona__services_of(sys);
}

/* The render queue of the thread running this turn (for settings: camera, clear colour). */
static ona__render_queue *queue_for_draw(lua_State *L, ona__system *sys, const char *fn) {
    ona__render_queue *q = ona__services_queue(services(sys));
    if (!q)
        ona__lua_raise(L, fn,
                       "can only draw during a turn (init or process), not in the main chunk");
    return q;
}

static ona_texture check_texture(lua_State *L, int idx, const char *fn) {
    if (!lua_isnumber(L, idx)) {
        lua_pushfstring(L, "not a texture handle: got %s", luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    lua_Number n = lua_tonumber(L, idx);
    if (n < 1 || n > 4294967295.0 || n != floor(n)) {
        lua_pushfstring(L, "not a texture handle: %f", n);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    return (ona_texture){(uint32_t)n};
}

/* ona.gfx.texture(path) -> handle, width, height  (a missing or broken file: the placeholder's
 * handle and size, plus an error message as a fourth value; the path is logged). */
static int l_gfx_texture(lua_State *L) {
    ona__system *sys = self(L);
    const char *name = ona__lua_checkstring(L, 1, "ona.gfx.texture", NULL);
    char path[1024];
    ona__lua_check_game_path(L, 1, "ona.gfx.texture", name,
                             ona__services_locate(services(sys), name, path, sizeof path));
    ona_texture tex;
    int rc = ona__services_texture_load(services(sys), path, sys->name, sys->id, &tex);
    int w = 0, h = 0;
    ona__services_texture_size(services(sys), tex, &w, &h);
    lua_pushnumber(L, tex.id);
    lua_pushnumber(L, w);
    lua_pushnumber(L, h);
    if (rc == 0)
        return 3;
    lua_pushfstring(L, "texture %s: %s", path,
                    rc == ONA_EFORMAT ? "not a readable image (PNG, JPEG, BMP, TGA or GIF)"
                                      : ona__paths_why(rc, path));
    return 4;
}

/* A texture argument that must be live: a handle that was released and freed raises by name.
 * Checked after the other arguments and the turn, so those errors come first. */
static void check_live_texture(lua_State *L, int idx, const char *fn, ona_texture tex) {
    queue_for_draw(L, self(L), fn);
    int w, h;
    if (!ona__services_texture_size(services(self(L)), tex, &w, &h)) {
        lua_pushfstring(L, "texture %d is stale (released and freed, or never loaded)",
                        (int)tex.id);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
}

/* ona.gfx.release(texture): gives back one reference this system took with ona.gfx.texture;
 * a texture nobody holds is freed at the next frame boundary and its handle goes stale. */
static int l_gfx_release(lua_State *L) {
    static const char fn[] = "ona.gfx.release";
    ona__system *sys = self(L);
    ona_texture tex = check_texture(L, 1, fn);
    if (ona__services_texture_release(services(sys), tex, sys->id) != 0) {
        lua_pushfstring(L,
                        "texture %d is not held by this system (released as often as loaded, "
                        "or not loaded here with ona.gfx.texture)",
                        (int)tex.id);
        ona__lua_argerror(L, 1, fn, lua_tostring(L, -1));
    }
    return 0;
}

/* ona.gfx.texture_size(handle) -> width, height | nil */
static int l_gfx_texture_size(lua_State *L) {
    int w, h;
    ona_texture tex = check_texture(L, 1, "ona.gfx.texture_size");
    if (!ona__services_texture_size(services(self(L)), tex, &w, &h))
        return 0;
    lua_pushnumber(L, w);
    lua_pushnumber(L, h);
    return 2;
}

/* ona.gfx.draw(texture, x, y [, opts]) */
static int l_gfx_draw(lua_State *L) {
    static const char fn[] = "ona.gfx.draw";
    ona_texture tex = check_texture(L, 1, fn);
    ona_sprite s = {0};
    s.x = (float)ona__lua_checknumber(L, 2, fn);
    s.y = (float)ona__lua_checknumber(L, 3, fn);
    s.scale_x = s.scale_y = 1;
    s.tint = 0xFFFFFFFFu;
    ona__draw_key key = {.texture = tex.id};
    if (!lua_isnoneornil(L, 4)) {
        ona__lua_checktable(L, 4, fn);
        ona__lua_draw_key(L, 4, fn, &key);
        s.rotation = (float)ona__lua_opt_field(L, 4, "rotation", 0, fn);
        float scale = (float)ona__lua_opt_field(L, 4, "scale", 1, fn);
        s.scale_x = (float)ona__lua_opt_field(L, 4, "sx", scale, fn);
        s.scale_y = (float)ona__lua_opt_field(L, 4, "sy", scale, fn);
        s.origin_x = (float)ona__lua_opt_field(L, 4, "ox", 0, fn);
        s.origin_y = (float)ona__lua_opt_field(L, 4, "oy", 0, fn);
        lua_getfield(L, 4, "src");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1))
                ona__lua_argerror(L, 4, fn, "opts.src must be {x, y, w, h}");
            int src = lua_gettop(L);
            float *dst[4] = {&s.src_x, &s.src_y, &s.src_w, &s.src_h};
            for (int i = 0; i < 4; i++) {
                lua_rawgeti(L, src, i + 1);
                if (!lua_isnumber(L, -1))
                    ona__lua_argerror(L, 4, fn, "opts.src must be {x, y, w, h}");
                *dst[i] = (float)lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        lua_getfield(L, 4, "tint");
        if (!lua_isnil(L, -1))
            s.tint = ona__lua_check_tint(L, lua_gettop(L), 4, fn);
        lua_pop(L, 1);
    }
    check_live_texture(L, 1, fn, tex);
    ona__lua_draw(L, fn, &key, &s, 1);
    return 0;
}

/* ona.gfx.draw_sprites(texture, buffer [, count [, layer | opts]]): draws the first `count`
 * (default all) sprites of an ona.buffer of ona_sprite (see ona.gfx.sprites). The buffer stays the
 * system's: its sprites are copied into the render queue. */
static int l_gfx_draw_sprites(lua_State *L) {
    static const char fn[] = "ona.gfx.draw_sprites";
    ona_texture tex = check_texture(L, 1, fn);
    l_buffer *b = ona__lua_to_buffer(L, 2);
    if (!b)
        ona__lua_argerror(L, 2, fn, "an ona.buffer of ona_sprite expected");
    if (!b->buffer)
        ona__lua_argerror(L, 2, fn, "the buffer was moved by ona.send or freed");
    if (ona_buffer_elem_size(b->buffer) != sizeof(ona_sprite) ||
        strcmp(ona_buffer_type(b->buffer), "ona_sprite") != 0)
        ona__lua_argerror(L, 2, fn,
                          "the buffer must hold ona_sprite elements (ona.gfx.sprites(n))");
    size_t available = ona_buffer_count(b->buffer);
    lua_Number n = ona__lua_optnumber(L, 3, fn, (lua_Number)available);
    if (n < 0 || n > (lua_Number)available || n != floor(n))
        ona__lua_argerror(L, 3, fn, "count must be an integer from 0 to the buffer's length");
    ona__draw_key key = {.texture = tex.id};
    if (lua_istable(L, 4)) { /* the draw options (layer, blend, shader, target) */
        ona__lua_draw_key(L, 4, fn, &key);
    } else {
        lua_Number layer = ona__lua_optnumber(L, 4, fn, 0);
        if (layer != floor(layer) || fabs(layer) > 1000000)
            ona__lua_argerror(L, 4, fn, "layer must be an integer");
        key.layer = (int32_t)layer;
    }
    check_live_texture(L, 1, fn, tex);
    ona__lua_draw(L, fn, &key, ona_buffer_data(b->buffer), (uint32_t)n);
    return 0;
}

/* ona.gfx.text(x, y, text [, opts]) with opts scale (default 1: 8-pixel glyphs), tint, layer. */
static int l_gfx_text(lua_State *L) {
    static const char fn[] = "ona.gfx.text";
    ona__system *sys = self(L);
    float x = (float)ona__lua_checknumber(L, 1, fn);
    float y = (float)ona__lua_checknumber(L, 2, fn);
    size_t len;
    const char *text = ona__lua_checkstring(L, 3, fn, &len);
    float scale = 1;
    uint32_t tint = 0xFFFFFFFFu;
    ona__draw_key key = {.texture = ona__services_debug_font(services(sys)).id};
    if (!lua_isnoneornil(L, 4)) {
        ona__lua_checktable(L, 4, fn);
        scale = (float)ona__lua_opt_field(L, 4, "scale", 1, fn);
        ona__lua_draw_key(L, 4, fn, &key);
        lua_getfield(L, 4, "tint");
        if (!lua_isnil(L, -1))
            tint = ona__lua_check_tint(L, lua_gettop(L), 4, fn);
        lua_pop(L, 1);
    }
    ona_sprite glyphs[256];
    /* In chunks, so long text needs no allocation; the submission order stays contiguous. */
    size_t done = 0;
    float cx = x, cy = y;
    while (done < len) {
        size_t chunk = ONA_MIN(len - done, sizeof glyphs / sizeof glyphs[0]);
        uint32_t n = ona__services_debug_text(text + done, chunk, cx, cy, scale, tint, glyphs, 256);
        for (size_t i = done; i < done + chunk; i++) {
            if (text[i] == '\n') {
                cx = x;
                cy += ONA__FONT_GLYPH * scale;
            } else {
                cx += ONA__FONT_GLYPH * scale;
            }
        }
        ona__lua_draw(L, fn, &key, glyphs, n);
        done += chunk;
    }
    return 0;
}

/* Reads {x, y, w, h} at idx into the camera's viewport; errors name argument `arg`. */
static void check_viewport(lua_State *L, int idx, int arg, const char *fn, ona__camera *cam) {
    if (!lua_istable(L, idx))
        ona__lua_argerror(L, arg, fn, "viewport must be {x, y, w, h}");
    float *dst[4] = {&cam->viewport_x, &cam->viewport_y, &cam->viewport_w, &cam->viewport_h};
    for (int i = 0; i < 4; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (!lua_isnumber(L, -1))
            ona__lua_argerror(L, arg, fn, "viewport must be {x, y, w, h}");
        *dst[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    if (cam->viewport_w <= 0 || cam->viewport_h <= 0)
        ona__lua_argerror(L, arg, fn, "viewport width and height must be > 0");
}

/* ona.gfx.camera(x, y [, zoom [, opts]]): the world point at the centre of the view and the
 * zoom, from the next frame on. opts = {layers = {lo, hi}, viewport = {x, y, w, h}}: the layers
 * it applies to (default: all) and the part of the window drawn into, in pixels from the
 * top-left (default: all of it). The older form, a viewport {x, y, w, h} as the 4th argument,
 * still works. Per layer, the last setter in spawn order wins. */
static int l_gfx_camera(lua_State *L) {
    static const char fn[] = "ona.gfx.camera";
    ona__system *sys = self(L);
    float x = (float)ona__lua_checknumber(L, 1, fn), y = (float)ona__lua_checknumber(L, 2, fn);
    ona__setting set = {.kind = ONA__SET_CAMERA, .lo = INT32_MIN, .hi = INT32_MAX};
    set.camera = (ona__camera){x, y, (float)ona__lua_optnumber(L, 3, fn, 1), 0, 0, 0, 0};
    if (!(set.camera.zoom > 0) || !isfinite(set.camera.zoom))
        ona__lua_argerror(L, 3, fn, "zoom must be > 0");
    if (!lua_isnoneornil(L, 4)) {
        ona__lua_checktable(L, 4, fn);
        lua_rawgeti(L, 4, 1);
        bool old_form = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (old_form) {
            check_viewport(L, 4, 4, fn, &set.camera);
        } else {
            lua_getfield(L, 4, "viewport");
            if (!lua_isnil(L, -1))
                check_viewport(L, lua_gettop(L), 4, fn, &set.camera);
            lua_pop(L, 1);
            lua_getfield(L, 4, "layers");
            if (!lua_isnil(L, -1)) {
                lua_Number r[2] = {NAN, NAN};
                if (lua_istable(L, -1)) {
                    for (int i = 0; i < 2; i++) {
                        lua_rawgeti(L, -1 - i, i + 1);
                        r[i] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : NAN;
                    }
                    lua_pop(L, 2);
                }
                if (!lua_istable(L, -1) || r[0] != floor(r[0]) || r[1] != floor(r[1]) ||
                    fabs(r[0]) > 1000000 || fabs(r[1]) > 1000000 || r[0] > r[1])
                    ona__lua_argerror(L, 4, fn,
                                      "opts.layers must be {lo, hi}: integers with lo <= hi");
                set.lo = (int32_t)r[0];
                set.hi = (int32_t)r[1];
            }
            lua_pop(L, 1);
        }
    }
    queue_for_draw(L, sys, fn);
    if (ona__system_set(sys, &set))
        ona__lua_raise(L, fn, "out of memory");
    return 0;
}

/* ona.gfx.clear(r, g, b [, a] [, {target = canvas}]) with 0..1 components: the screen's clear
 * colour from this frame on, or, with a target (opts.target, else the one ona.gfx.set_target
 * set, as love.graphics.clear clears the active canvas), clears that canvas before this frame
 * draws into it (like ona.gfx.canvas_clear). */
static int l_gfx_clear(lua_State *L) {
    static const char fn[] = "ona.gfx.clear";
    ona__system *sys = self(L);
    int opts = lua_istable(L, 4) ? 4 : 5;
    ona__setting set = {.kind = ONA__SET_CLEAR};
    set.value[0] = ona__lua_clamp01(ona__lua_checknumber(L, 1, fn));
    set.value[1] = ona__lua_clamp01(ona__lua_checknumber(L, 2, fn));
    set.value[2] = ona__lua_clamp01(ona__lua_checknumber(L, 3, fn));
    set.value[3] = opts == 4 ? 1.0f : ona__lua_clamp01(ona__lua_optnumber(L, 4, fn, 1));
    if (!lua_isnoneornil(L, opts)) {
        ona__lua_checktable(L, opts, fn);
        ona__draw_key key = {0};
        ona__lua_draw_state(L, opts, fn, &key.blend, &key.shader, &key.target);
        set.target = key.target;
    }
    if (!set.target)
        set.target = sys->draw.target;
    queue_for_draw(L, sys, fn);
    if (ona__system_set(sys, &set))
        ona__lua_raise(L, fn, "out of memory");
    return 0;
}

/* ona.gfx.screenshot(path) -> true | nil, reason: written after this frame is drawn. */
static int l_gfx_screenshot(lua_State *L) {
    ona__system *sys = self(L);
    static const char fn[] = "ona.gfx.screenshot";
    const char *path = ona__lua_checkstring(L, 1, fn, NULL);
    int rc = ona__services_screenshot(services(sys), path);
    if (rc == ONA_EINVAL)
        ona__lua_argerror(L, 1, fn, "a path of at most 1023 bytes");
    if (rc) {
        lua_pushnil(L);
        lua_pushliteral(L, "no video: the runtime renders nothing (headless without GL)");
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* ona.gfx.window{title=, width=, height=, fullscreen=, resizable=, vsync=, fixed_dt=,
 * max_fps=}: configures the window from the next frame on (a game's main.lua calls it before
 * the first frame). fixed_dt (seconds, (0, 1], or false for measured time) and max_fps (1 to
 * 10000, or false for none) are the game's time rules; the launcher's --fixed-dt and
 * --max-fps win over them. */
static int l_gfx_window(lua_State *L) {
    static const char fn[] = "ona.gfx.window";
    ona__system *sys = self(L);
    ona__lua_checktable(L, 1, fn);
    ona_window_desc d = {0};
    lua_getfield(L, 1, "title");
    if (!lua_isnil(L, -1) && !lua_isstring(L, -1))
        ona__lua_argerror(L, 1, fn, "title must be a string");
    char title[128] = {0};
    if (lua_isstring(L, -1)) {
        snprintf(title, sizeof title, "%s", lua_tostring(L, -1));
        d.title = title;
    }
    lua_pop(L, 1);
    /* A size given is checked as given: width = 0 is not "no size". */
    lua_getfield(L, 1, "width");
    lua_getfield(L, 1, "height");
    bool sized = !lua_isnil(L, -1) || !lua_isnil(L, -2);
    lua_pop(L, 2);
    lua_Number w = ona__lua_opt_field(L, 1, "width", 0, fn);
    lua_Number h = ona__lua_opt_field(L, 1, "height", 0, fn);
    if (sized &&
        !(w >= 16 && w <= 16384 && h >= 16 && h <= 16384 && w == floor(w) && h == floor(h)))
        ona__lua_argerror(L, 1, fn, "width and height must both be whole numbers from 16 to 16384");
    d.width = (int)w;
    d.height = (int)h;
    lua_getfield(L, 1, "fullscreen");
    d.fullscreen = lua_toboolean(L, -1);
    lua_getfield(L, 1, "resizable");
    d.resizable = lua_isnil(L, -1) ? true : lua_toboolean(L, -1);
    lua_getfield(L, 1, "vsync");
    if (!lua_isnil(L, -1))
        d.vsync = lua_toboolean(L, -1) ? ONA_VSYNC_ON : ONA_VSYNC_OFF;
    lua_pop(L, 3);
    /* Steady time. */
    double fixed_dt = 0;
    uint32_t max_fps = 0;
    lua_getfield(L, 1, "fixed_dt");
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        fixed_dt = -1;
    else if (!lua_isnil(L, -1) && !(lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) > 0 &&
                                    lua_tonumber(L, -1) <= 1))
        ona__lua_argerror(L, 1, fn, "fixed_dt must be seconds in (0, 1], such as 1/60, or false");
    else if (!lua_isnil(L, -1))
        fixed_dt = lua_tonumber(L, -1);
    lua_getfield(L, 1, "max_fps");
    if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        max_fps = UINT32_MAX;
    else if (!lua_isnil(L, -1) && !(lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1 &&
                                    lua_tonumber(L, -1) <= 10000))
        ona__lua_argerror(L, 1, fn, "max_fps must be from 1 to 10000, or false");
    else if (!lua_isnil(L, -1))
        max_fps = (uint32_t)lua_tonumber(L, -1);
    lua_pop(L, 2);
    ona__services_set_script_time(services(sys), fixed_dt, max_fps);
    ona__services_request_window(services(sys), &d);
    return 0;
}

/* ona.gfx.size() -> width, height of the drawable area in pixels */
static int l_gfx_size(lua_State *L) {
    ona__system *sys = self(L);
    int w, h;
    ona__services_video_size(services(sys), &w, &h);
    lua_pushnumber(L, w);
    lua_pushnumber(L, h);
    return 2;
}

void ona__lua_open_gfx(lua_State *L) {
    static const luaL_Reg gfx[] = {
        {"texture", l_gfx_texture},
        {"texture_size", l_gfx_texture_size},
        {"release", l_gfx_release},
        {"draw", l_gfx_draw},
        {"draw_sprites", l_gfx_draw_sprites},
        {"text", l_gfx_text},
        {"camera", l_gfx_camera},
        {"clear", l_gfx_clear},
        {"screenshot", l_gfx_screenshot},
        {"size", l_gfx_size},
        {"window", l_gfx_window},
        {NULL, NULL},
    };
    luaL_register(L, NULL, gfx);
}
