/*
 * l_sheet.c: sprite sheets and their animations: ona.gfx.sheet(texture, frame_w,
 * frame_h [, {animations = {name = {frames = {...}, fps = 10, loop = true}}}]) -> ona.Sheet,
 * sheet:draw(frame, x, y [, opts]), sheet:animation(name) -> ona.Animation with :update(dt),
 * :draw(x, y [, opts]), :frame(), :done(), :reset().
 *
 * Design note. A sheet is a grid of frame_w x frame_h cells of a texture, numbered from 1 left
 * to right, then top to bottom (the grid is recomputed from the texture's size at each draw, so
 * a hot-reloaded image of another size still draws; a sheet made on the placeholder of a missing
 * texture accepts any frame and draws the placeholder in its place). Its animation definitions are
 * validated once, at creation, and kept in the userdata's environment table. An animation object
 * copies its definition (frames, fps, loop) and owns only a clock: it advances by the dt the system
 * passes to :update, never by wall time, so the same dts give the same frames on any thread
 * and at any frame rate: frame index = floor(time * fps) (with a 1e-9 guard against a sum of dts
 * landing a hair under a boundary), wrapped when looping, held on the last frame otherwise.
 *
 * Sprite options (sheet:draw, animation:draw): layer (+ the shared draw options), rotation,
 * scale, sx, sy (negative flips), ox, oy (origin in frame pixels), tint.
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"

#include "lua_host.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

#define SHEET_MT "ona.Sheet"
#define ANIM_MT "ona.Animation"
#define MAX_FRAMES 1024

typedef struct sheet {
    ona_texture texture;
    int frame_w, frame_h;
    bool placeholder; /* made on the placeholder texture: frames are not checked */
} sheet;

typedef struct anim {
    double time, fps;
    bool loop;
    uint32_t count;
    uint16_t frames[]; /* frame numbers of the sheet */
} anim;

static sheet *check_sheet(lua_State *L, const char *fn) {
    sheet *s = lua_type(L, 1) == LUA_TUSERDATA ? luaL_testudata(L, 1, SHEET_MT) : NULL;
    if (!s)
        ona__lua_raise(L, fn, "call it on a sheet (sheet:...), not with '.'");
    return s;
}

static anim *check_anim(lua_State *L, const char *fn) {
    anim *a = lua_type(L, 1) == LUA_TUSERDATA ? luaL_testudata(L, 1, ANIM_MT) : NULL;
    if (!a)
        ona__lua_raise(L, fn, "call it on an animation (anim:...), not with '.'");
    return a;
}

/* The frame count of the grid of `s` over its texture now. */
static int frame_count(lua_State *L, const sheet *s, int *cols) {
    int w, h;
    ona__lua_texture_size(L, s->texture, &w, &h);
    *cols = w / s->frame_w;
    int rows = h / s->frame_h;
    return *cols > 0 && rows > 0 ? *cols * rows : 0;
}

/* Draws frame `frame` (1-based) of `s` at (x, y) with the sprite options at index t. */
static void draw_frame(lua_State *L, const char *fn, const sheet *s, int frame, float x, float y,
                       int t) {
    int cols;
    int n = frame_count(L, s, &cols);
    if (frame < 1 || (frame > n && !s->placeholder))
        ona__lua_raise(L, fn, "frame %d is not in the sheet (frames 1 to %d)", frame, n);
    ona_sprite sp = {.x = x, .y = y, .scale_x = 1, .scale_y = 1, .tint = 0xFFFFFFFFu};
    if (frame <= n) {
        sp.src_x = (float)(((frame - 1) % cols) * s->frame_w);
        sp.src_y = (float)(((frame - 1) / cols) * s->frame_h);
        sp.src_w = (float)s->frame_w;
        sp.src_h = (float)s->frame_h;
    }
    ona__draw_key key = {.texture = s->texture.id};
    float fit_x = 1, fit_y = 1;
    if (frame > n) {
        /* The texture is the placeholder (a missing or broken file, logged when loaded): the
         * whole of it stands for any frame, stretched to the frame's size. */
        int w, h;
        ona__lua_texture_size(L, s->texture, &w, &h);
        fit_x = w > 0 ? (float)s->frame_w / (float)w : 1;
        fit_y = h > 0 ? (float)s->frame_h / (float)h : 1;
    }
    if (!lua_isnoneornil(L, t)) {
        ona__lua_checktable(L, t, fn);
        ona__lua_draw_key(L, t, fn, &key);
        sp.rotation = (float)ona__lua_opt_field(L, t, "rotation", 0, fn);
        float scale = (float)ona__lua_opt_field(L, t, "scale", 1, fn);
        sp.scale_x = (float)ona__lua_opt_field(L, t, "sx", scale, fn);
        sp.scale_y = (float)ona__lua_opt_field(L, t, "sy", scale, fn);
        sp.origin_x = (float)ona__lua_opt_field(L, t, "ox", 0, fn);
        sp.origin_y = (float)ona__lua_opt_field(L, t, "oy", 0, fn);
        lua_getfield(L, t, "tint");
        if (!lua_isnil(L, -1))
            sp.tint = ona__lua_check_tint(L, lua_gettop(L), t, fn);
        lua_pop(L, 1);
    }
    sp.scale_x *= fit_x;
    sp.scale_y *= fit_y;
    ona__lua_draw(L, fn, &key, &sp, 1);
}

/* Validates animations[name] (on top of the stack) and pushes its normalised copy. */
static void check_animation(lua_State *L, const char *fn, const char *name, int frames) {
    if (!lua_istable(L, -1))
        ona__lua_raise(L, fn, "animations.%s must be a table {frames = {...}, fps =, loop =}",
                       name);
    int def = lua_gettop(L);
    lua_createtable(L, 0, 3);
    lua_getfield(L, def, "frames");
    size_t n = lua_istable(L, -1) ? lua_objlen(L, -1) : 0;
    if (n == 0 || n > MAX_FRAMES)
        ona__lua_raise(L, fn, "animations.%s.frames must be a list of 1 to %d frame numbers", name,
                       MAX_FRAMES);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, (int)i);
        lua_Number f = lua_tonumber(L, -1);
        if (!lua_isnumber(L, -1) || f < 1 || f > frames || f != floor(f))
            ona__lua_raise(L, fn, "animations.%s.frames[%d] must be a frame number from 1 to %d",
                           name, (int)i, frames);
        lua_rawseti(L, -2, (int)i);
    }
    lua_setfield(L, -3, "frames");
    lua_pop(L, 1);
    lua_getfield(L, def, "fps");
    lua_Number fps = lua_isnil(L, -1) ? 10 : lua_tonumber(L, -1);
    if (!(fps > 0) || fps > 10000 || (!lua_isnil(L, -1) && !lua_isnumber(L, -1)))
        ona__lua_raise(L, fn, "animations.%s.fps must be a number > 0", name);
    lua_pop(L, 1);
    lua_pushnumber(L, fps);
    lua_setfield(L, -2, "fps");
    lua_getfield(L, def, "loop");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        ona__lua_raise(L, fn, "animations.%s.loop must be a boolean", name);
    lua_pushboolean(L, lua_isnil(L, -1) || lua_toboolean(L, -1));
    lua_setfield(L, -3, "loop");
    lua_pop(L, 1);
}

/* ona.gfx.sheet(texture, frame_w, frame_h [, {animations = {...}}]) -> sheet */
static int l_gfx_sheet(lua_State *L) {
    static const char fn[] = "ona.gfx.sheet";
    int w, h;
    ona_texture tex = ona__lua_check_texture_size(L, 1, fn, &w, &h);
    int fw = ona__lua_check_size(L, 2, fn, "frame_w", 16384);
    int fh = ona__lua_check_size(L, 3, fn, "frame_h", 16384);
    bool placeholder = ona__services_texture_is_placeholder(ona__lua_of(L)->svc, tex);
    if ((fw > w || fh > h) && !placeholder) {
        lua_pushfstring(L, "a %dx%d frame does not fit the %dx%d texture", fw, fh, w, h);
        ona__lua_argerror(L, 2, fn, lua_tostring(L, -1));
    }
    int frames = placeholder ? 65535 : (w / fw) * (h / fh);
    lua_settop(L, 4);
    lua_newtable(L); /* the environment: {animations = {name = def}} */
    int env = lua_gettop(L);
    lua_newtable(L);
    if (!lua_isnoneornil(L, 4)) {
        ona__lua_checktable(L, 4, fn);
        lua_getfield(L, 4, "animations");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1))
                ona__lua_argerror(L, 4, fn, "opts.animations must be a table of name = {...}");
            int anims = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, anims)) {
                if (lua_type(L, -2) != LUA_TSTRING)
                    ona__lua_argerror(L, 4, fn, "opts.animations' keys must be names");
                const char *name = lua_tostring(L, -2);
                check_animation(L, fn, name, frames);
                lua_pushvalue(L, -3);
                lua_insert(L, -2);
                lua_rawset(L, env + 1); /* into the normalised copy of animations */
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    lua_setfield(L, env, "animations");
    sheet *s = lua_newuserdata(L, sizeof *s);
    *s = (sheet){tex, fw, fh, placeholder};
    luaL_getmetatable(L, SHEET_MT);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, env);
    lua_setfenv(L, -2);
    return 1;
}

/* sheet:draw(frame, x, y [, opts]) */
static int l_sheet_draw(lua_State *L) {
    static const char fn[] = "sheet:draw";
    sheet *s = check_sheet(L, fn);
    lua_Number f = ona__lua_checknumber(L, 2, fn);
    if (f != floor(f) || fabs(f) > 1e9)
        ona__lua_argerror(L, 2, fn, "frame must be an integer");
    draw_frame(L, fn, s, (int)f, (float)ona__lua_checknumber(L, 3, fn),
               (float)ona__lua_checknumber(L, 4, fn), 5);
    return 0;
}

/* sheet:frames() -> how many frames the grid has */
static int l_sheet_frames(lua_State *L) {
    int cols;
    lua_pushnumber(L, frame_count(L, check_sheet(L, "sheet:frames"), &cols));
    return 1;
}

/* sheet:animation(name) -> a new animation at time 0 */
static int l_sheet_animation(lua_State *L) {
    static const char fn[] = "sheet:animation";
    check_sheet(L, fn);
    const char *name = ona__lua_checkstring(L, 2, fn, NULL);
    lua_getfenv(L, 1);
    lua_getfield(L, -1, "animations");
    lua_getfield(L, -1, name);
    if (!lua_istable(L, -1))
        ona__lua_raise(L, fn, "this sheet has no animation named '%s'", name);
    int def = lua_gettop(L);
    lua_getfield(L, def, "frames");
    uint32_t n = (uint32_t)lua_objlen(L, -1);
    anim *a = lua_newuserdata(L, sizeof *a + n * sizeof a->frames[0]);
    a->time = 0;
    a->count = n;
    for (uint32_t i = 0; i < n; i++) {
        lua_rawgeti(L, -2, (int)i + 1);
        a->frames[i] = (uint16_t)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_getfield(L, def, "fps");
    a->fps = lua_tonumber(L, -1);
    lua_getfield(L, def, "loop");
    a->loop = lua_toboolean(L, -1);
    lua_pop(L, 2);
    luaL_getmetatable(L, ANIM_MT);
    lua_setmetatable(L, -2);
    lua_newtable(L); /* the environment holds the sheet */
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_setfenv(L, -2);
    return 1;
}

static uint64_t step_of(const anim *a) {
    double k = floor(a->time * a->fps + 1e-9);
    return k < 0 ? 0 : (k > 1e15 ? (uint64_t)1e15 : (uint64_t)k);
}

static uint16_t current_frame(const anim *a) {
    uint64_t k = step_of(a);
    if (a->loop)
        return a->frames[k % a->count];
    return a->frames[k < a->count ? k : a->count - 1];
}

/* anim:update(dt): advances the clock by dt seconds (>= 0). */
static int l_anim_update(lua_State *L) {
    static const char fn[] = "anim:update";
    anim *a = check_anim(L, fn);
    lua_Number dt = ona__lua_checknumber(L, 2, fn);
    if (!(dt >= 0) || dt > 1e6)
        ona__lua_argerror(L, 2, fn, "dt must be a number of seconds >= 0");
    a->time += dt;
    return 0;
}

/* anim:frame() -> the sheet frame number shown now */
static int l_anim_frame(lua_State *L) {
    lua_pushnumber(L, current_frame(check_anim(L, "anim:frame")));
    return 1;
}

/* anim:done() -> true once a non-looping animation has shown its last frame for its time */
static int l_anim_done(lua_State *L) {
    anim *a = check_anim(L, "anim:done");
    lua_pushboolean(L, !a->loop && step_of(a) >= a->count);
    return 1;
}

/* anim:reset(): back to time 0. */
static int l_anim_reset(lua_State *L) {
    check_anim(L, "anim:reset")->time = 0;
    return 0;
}

/* anim:draw(x, y [, opts]) */
static int l_anim_draw(lua_State *L) {
    static const char fn[] = "anim:draw";
    anim *a = check_anim(L, fn);
    float x = (float)ona__lua_checknumber(L, 2, fn), y = (float)ona__lua_checknumber(L, 3, fn);
    lua_getfenv(L, 1);
    lua_rawgeti(L, -1, 1);
    sheet *s = lua_touserdata(L, -1);
    lua_pop(L, 2); /* the animation's environment still holds the sheet */
    draw_frame(L, fn, s, current_frame(a), x, y, 4);
    return 0;
}

static void register_type(lua_State *L, const char *mt, const luaL_Reg *methods) {
    if (!luaL_newmetatable(L, mt)) {
        lua_pop(L, 1);
        return;
    }
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, mt);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

void ona__lua_open_sheet(lua_State *L) {
    static const luaL_Reg sheet_methods[] = {
        {"draw", l_sheet_draw},
        {"frames", l_sheet_frames},
        {"animation", l_sheet_animation},
        {NULL, NULL},
    };
    static const luaL_Reg anim_methods[] = {
        {"update", l_anim_update}, {"frame", l_anim_frame}, {"done", l_anim_done},
        {"reset", l_anim_reset},   {"draw", l_anim_draw},   {NULL, NULL},
    };
    register_type(L, SHEET_MT, sheet_methods);
    register_type(L, ANIM_MT, anim_methods);
    lua_pushcfunction(L, l_gfx_sheet);
    lua_setfield(L, -2, "sheet");
}
