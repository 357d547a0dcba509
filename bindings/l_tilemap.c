/*
 * l_tilemap.c: tile maps: ona.gfx.tilemap(texture, tile_w, tile_h, w, h [, buffer])
 * -> ona.Tilemap with map:set(x, y, id), map:get(x, y), map:size(), map:buffer(),
 * map:draw(x, y [, opts]) -> tiles drawn.
 *
 * Design note. The tile ids live in an ona.buffer of "uint16_t" (w * h of them, row by row,
 * 0 = empty, n = the n-th tile_w x tile_h cell of the texture), held in the map's environment,
 * so a map is a view over a buffer that can travel: map:buffer() returns that very handle, and
 * ona.send moves it (no copy); from then on every method of the map raises "moved", and the
 * receiver wraps the buffer in its own map with ona.gfx.tilemap(..., buffer). Tile coordinates
 * are 0-based, like the buffer's FFI pointer. map:draw asks ona__services_layer_view for the world
 * rectangle visible on its layer at the frame's start and emits only the tiles overlapping it
 * (runtime/gfx/shapes.c), in chunks of a stack array, as ordinary sprites of the texture.
 */
#include "lua_draw_args.h"
#include "l_modules.h"
#include "lua_check.h"
#include "l_types.h"

#include "draw_transform.h"
#include "lua_host.h"
#include "services.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

#define TILEMAP_MT "ona.Tilemap"
#define TILE_TYPE "uint16_t"

typedef struct tilemap {
    ona_texture texture;
    int tile_w, tile_h, w, h;
} tilemap;

static tilemap *check_map(lua_State *L, const char *fn) {
    tilemap *m = lua_type(L, 1) == LUA_TUSERDATA ? luaL_testudata(L, 1, TILEMAP_MT) : NULL;
    if (!m)
        ona__lua_raise(L, fn, "call it on a tile map (map:...), not with '.'");
    return m;
}

/* The map's buffer handle (pushed) and its tiles; raises when it was moved or freed. */
static uint16_t *tiles_of(lua_State *L, const char *fn) {
    lua_getfenv(L, 1);
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
    l_buffer *b = ona__lua_to_buffer(L, -1);
    if (!b || !b->buffer)
        ona__lua_raise(L, fn,
                       "the map's tile buffer was moved (by ona.send of map:buffer()) or freed; "
                       "the receiver wraps it with ona.gfx.tilemap(..., buffer)");
    return ona_buffer_data(b->buffer);
}

/* ona.gfx.tilemap(texture, tile_w, tile_h, w, h [, buffer]) -> map */
static int l_gfx_tilemap(lua_State *L) {
    static const char fn[] = "ona.gfx.tilemap";
    int tw_, th_;
    ona_texture tex = ona__lua_check_texture_size(L, 1, fn, &tw_, &th_);
    int tile_w = ona__lua_check_size(L, 2, fn, "tile_w", 16384);
    int tile_h = ona__lua_check_size(L, 3, fn, "tile_h", 16384);
    int w = ona__lua_check_size(L, 4, fn, "w", 1 << 20);
    int h = ona__lua_check_size(L, 5, fn, "h", 1 << 20);
    size_t count = (size_t)w * (size_t)h;
    if (count > ONA_MESSAGE_MAX_SIZE / sizeof(uint16_t))
        ona__lua_raise(L, fn, "a %dx%d map is too large (at most %d tiles)", w, h,
                       (int)(ONA_MESSAGE_MAX_SIZE / sizeof(uint16_t)));
    lua_settop(L, 6);
    if (lua_isnil(L, 6)) {
        ona_buffer *b = NULL;
        int rc = ona_buffer_create(TILE_TYPE, sizeof(uint16_t), count, &b);
        if (rc)
            ona__lua_raise(L, fn, "%s", ona_strerror(rc));
        ona__lua_push_buffer(L, b);
        lua_replace(L, 6);
    } else {
        l_buffer *b = ona__lua_to_buffer(L, 6);
        if (!b)
            ona__lua_argerror(L, 6, fn, "an ona.buffer of " TILE_TYPE " expected");
        if (!b->buffer)
            ona__lua_argerror(L, 6, fn, "the buffer was moved by ona.send or freed");
        if (strcmp(ona_buffer_type(b->buffer), TILE_TYPE) != 0 ||
            ona_buffer_elem_size(b->buffer) != sizeof(uint16_t))
            ona__lua_argerror(L, 6, fn, "the buffer must hold " TILE_TYPE " tile ids");
        if (ona_buffer_count(b->buffer) != count) {
            lua_pushfstring(L, "the buffer holds %d tile ids, the map needs w * h = %d",
                            (int)ona_buffer_count(b->buffer), (int)count);
            ona__lua_argerror(L, 6, fn, lua_tostring(L, -1));
        }
    }
    tilemap *m = lua_newuserdata(L, sizeof *m);
    *m = (tilemap){tex, tile_w, tile_h, w, h};
    luaL_getmetatable(L, TILEMAP_MT);
    lua_setmetatable(L, -2);
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, 6);
    lua_rawseti(L, -2, 1);
    lua_setfenv(L, -2);
    return 1;
}

/* The tile index of (x, y) at idx, idx + 1 (0-based), raising when outside the map. */
static size_t check_cell(lua_State *L, const tilemap *m, int idx, const char *fn) {
    lua_Number x = ona__lua_checknumber(L, idx, fn), y = ona__lua_checknumber(L, idx + 1, fn);
    if (x != floor(x) || y != floor(y) || x < 0 || y < 0 || x >= m->w || y >= m->h)
        ona__lua_raise(L, fn, "tile (%f, %f) is outside the map (x from 0 to %d, y from 0 to %d)",
                       x, y, m->w - 1, m->h - 1);
    return (size_t)y * (size_t)m->w + (size_t)x;
}

/* map:set(x, y, id) with id 0 (empty) to 65535 */
static int l_map_set(lua_State *L) {
    static const char fn[] = "map:set";
    tilemap *m = check_map(L, fn);
    size_t at = check_cell(L, m, 2, fn);
    lua_Number id = ona__lua_checknumber(L, 4, fn);
    if (id < 0 || id > 65535 || id != floor(id))
        ona__lua_raise(L, fn, "tile id must be an integer from 0 (empty) to 65535");
    tiles_of(L, fn)[at] = (uint16_t)id;
    return 0;
}

/* map:get(x, y) -> id */
static int l_map_get(lua_State *L) {
    static const char fn[] = "map:get";
    tilemap *m = check_map(L, fn);
    size_t at = check_cell(L, m, 2, fn);
    lua_pushnumber(L, tiles_of(L, fn)[at]);
    return 1;
}

/* map:size() -> w, h (in tiles) */
static int l_map_size(lua_State *L) {
    tilemap *m = check_map(L, "map:size");
    lua_pushnumber(L, m->w);
    lua_pushnumber(L, m->h);
    return 2;
}

/* map:buffer() -> the ona.buffer of tile ids (ona.send moves it: the map is then unusable) */
static int l_map_buffer(lua_State *L) {
    static const char fn[] = "map:buffer";
    check_map(L, fn);
    tiles_of(L, fn);
    return 1;
}

/* The camera set during a frame applies when the frame is presented, so the view at the frame's
 * start lags a moving camera by a frame: one tile of margin on each side covers a camera that
 * moves up to a tile a frame (opts.view gives the exact rectangle instead). */
static void pad_view(float view[4], int tile_w, int tile_h) {
    view[0] -= (float)tile_w;
    view[1] -= (float)tile_h;
    view[2] += 2.0f * (float)tile_w;
    view[3] += 2.0f * (float)tile_h;
}

/* map:draw(x, y [, opts]) -> how many tiles were drawn; opts: layer (+ shared), tint, view =
 * {x, y, w, h} (the rectangle to fill, in the units the map is drawn in, before the draw
 * transform; default: the layer's view, brought back through the transform, plus a tile). */
static int l_map_draw(lua_State *L) {
    static const char fn[] = "map:draw";
    tilemap *m = check_map(L, fn);
    float x = (float)ona__lua_checknumber(L, 2, fn), y = (float)ona__lua_checknumber(L, 3, fn);
    ona__draw_key key = {.texture = m->texture.id};
    uint32_t tint = 0xFFFFFFFFu;
    if (!lua_isnoneornil(L, 4)) {
        ona__lua_checktable(L, 4, fn);
        ona__lua_draw_key(L, 4, fn, &key);
        lua_getfield(L, 4, "tint");
        if (!lua_isnil(L, -1))
            tint = ona__lua_check_tint(L, lua_gettop(L), 4, fn);
        lua_pop(L, 1);
    }
    ona_tilemap map = {
        .texture = m->texture,
        .tile_w = m->tile_w,
        .tile_h = m->tile_h,
        .w = m->w,
        .h = m->h,
        .tiles = tiles_of(L, fn),
    };
    ona__lua_texture_size(L, m->texture, &map.texture_w, &map.texture_h);
    float view[4];
    uint32_t total = 0;
    bool visible = ona__services_layer_view(ona__lua_of(L)->svc, key.layer, view);
    if (lua_istable(L, 4)) {
        lua_getfield(L, 4, "view");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1))
                ona__lua_argerror(L, 4, fn, "opts.view must be {x, y, w, h}");
            int t = lua_gettop(L);
            for (int i = 0; i < 4; i++) {
                lua_rawgeti(L, t, i + 1);
                if (!lua_isnumber(L, -1))
                    ona__lua_argerror(L, 4, fn, "opts.view must be {x, y, w, h}");
                view[i] = (float)lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            visible = view[2] > 0 && view[3] > 0;
        } else {
            ona__system_view_to_local(ona__lua_of(L)->sys, view);
            pad_view(view, m->tile_w, m->tile_h);
        }
        lua_pop(L, 1);
    } else {
        ona__system_view_to_local(ona__lua_of(L)->sys, view);
        pad_view(view, m->tile_w, m->tile_h);
    }
    if (visible) {
        ona_sprite chunk[ONA__SHAPE_CHUNK];
        for (;;) {
            uint32_t left = ona_tilemap_sprites(&map, x, y, view, total, chunk, ONA__SHAPE_CHUNK);
            uint32_t n = left < ONA__SHAPE_CHUNK ? left : ONA__SHAPE_CHUNK;
            if (n == 0)
                break;
            if (tint != 0xFFFFFFFFu)
                for (uint32_t i = 0; i < n; i++)
                    chunk[i].tint = tint;
            ona__lua_draw(L, fn, &key, chunk, n);
            total += n;
        }
    }
    lua_pushnumber(L, total);
    return 1;
}

void ona__lua_open_tilemap(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"set", l_map_set},       {"get", l_map_get},   {"size", l_map_size},
        {"buffer", l_map_buffer}, {"draw", l_map_draw}, {NULL, NULL},
    };
    if (luaL_newmetatable(L, TILEMAP_MT)) {
        lua_newtable(L);
        luaL_register(L, NULL, methods);
        lua_setfield(L, -2, "__index");
        lua_pushliteral(L, TILEMAP_MT);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, l_gfx_tilemap);
    lua_setfield(L, -2, "tilemap");
}
