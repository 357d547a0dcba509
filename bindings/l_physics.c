/*
 * l_physics.c: ona.physics.world{...} -> world, world:body{...} -> body and the body's methods
 * (ona/physics.h underneath; steps, rays, boxes and the debug draw are l_physics_query.c's).
 *
 * Design note.
 *  - A world belongs to the system that made it: its userdata never leaves the state (a message
 *    refuses it by name), and every method checks the caller's state is the owner's.
 *  - Box2D's bytes are charged to the owner's memory count (the same count as its Lua heap, so
 *    ona.memory() and the cap see them). A block past the cap is refused: the world is gone,
 *    and the call raises, failing the system's turn like any error.
 *  - Pixels and seconds in, pixels and seconds out; `meter` pixels make Box2D's meter.
 *  - A body's `user` value must be message-encodable (checked at creation), so a step's
 *    contacts, which carry the users, can be sent as they are.
 */
#include "l_physics.h"

#include "l_message.h"
#include "l_modules.h"
#include "lua_check.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* --- Worlds ----------------------------------------------------------------------------------- */

static bool charge(void *user, ptrdiff_t bytes) {
    l_world *lw = user;
    ona__lua *lua = lw->owner;
    if (bytes < 0) {
        lua->mem_used -= (size_t)-bytes;
        return true;
    }
    size_t n = (size_t)bytes;
    if (lua->mem_cap && !lua->cap_lifted &&
        (lua->mem_used > lua->mem_cap || n > lua->mem_cap - lua->mem_used)) {
        lw->refused = true;
        return false;
    }
    lua->mem_used += n;
    if (lua->mem_used > lua->mem_peak)
        lua->mem_peak = lua->mem_used;
    return true;
}

l_world *ona__lua_check_world(lua_State *L, int idx, const char *fn) {
    l_world *lw =
        lua_type(L, idx) == LUA_TUSERDATA ? luaL_testudata(L, idx, ONA_PHYSICS_WORLD_MT) : NULL;
    if (!lw)
        ona__lua_raise(L, fn, "call it on a world (world:...), not with '.'");
    if (lw->owner != ona__lua_of(L))
        ona__lua_raise(L, fn, "the world belongs to another system");
    if (lw->refused)
        ona__lua_raise(L, fn, "the world was freed when it went past the system's memory cap");
    if (!lw->w)
        ona__lua_raise(L, fn, "the world was destroyed (world:destroy())");
    return lw;
}

int ona__lua_physics_fail(lua_State *L, l_world *lw, const char *fn, int rc) {
    if (rc == ONA_ENOMEM) {
        ona__lua *lua = lw->owner;
        ona_physics_world_destroy(lw->w);
        lw->w = NULL;
        char cap[32];
        snprintf(cap, sizeof cap, "%zu", lua->mem_cap);
        if (lw->refused)
            return ona__lua_raise(L, fn,
                                  "the world went past the system's memory cap of %s bytes "
                                  "and was freed",
                                  cap);
        lw->refused = true;
        return ona__lua_raise(L, fn, "out of memory: the world was freed");
    }
    return ona__lua_raise(L, fn, "%s", ona_strerror(rc));
}

static float check_float(lua_State *L, int t, const char *field, float dflt, const char *fn) {
    lua_getfield(L, t, field);
    float v = dflt;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
            lua_pushfstring(L, "%s must be a finite number", field);
            ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
        }
        v = (float)lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* ona.physics.world{ gravity = {gx, gy}, meter = 64 } -> world */
static int l_physics_world(lua_State *L) {
    static const char fn[] = "ona.physics.world";
    if (lua_isnoneornil(L, 1))
        lua_newtable(L);
    ona__lua_checktable(L, 1, fn);
    lua_settop(L, 1);
    ona_physics_world_desc desc = {0};
    lua_getfield(L, 1, "gravity");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            ona__lua_argerror(L, 1, fn, "gravity must be a table {gx, gy}");
        for (int i = 1; i <= 2; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))
                ona__lua_argerror(L, 1, fn, "gravity must be a table {gx, gy} of finite numbers");
            *(i == 1 ? &desc.gravity_x : &desc.gravity_y) = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    desc.meter = check_float(L, 1, "meter", 64, fn);
    if (!(desc.meter > 0) || desc.meter > 1e6f)
        ona__lua_argerror(L, 1, fn, "meter (pixels per meter) must be a number > 0 and <= 1e6");
    l_world *lw = lua_newuserdata(L, sizeof *lw);
    memset(lw, 0, sizeof *lw);
    lw->owner = ona__lua_of(L);
    luaL_getmetatable(L, ONA_PHYSICS_WORLD_MT);
    lua_setmetatable(L, -2);
    lua_createtable(L, 4, 0);
    for (int i = 1; i <= 3; i++) {
        lua_newtable(L);
        lua_rawseti(L, -2, i);
    }
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, L_PHYSICS_SELF);
    lua_setfenv(L, -2);
    desc.charge = charge;
    desc.charge_user = lw;
    int rc = ona_physics_world_create(&desc, &lw->w);
    if (rc == ONA_ENOMEM && lw->refused) {
        char cap[32];
        snprintf(cap, sizeof cap, "%zu", lw->owner->mem_cap);
        return ona__lua_raise(L, fn,
                              "the world does not fit in the system's memory cap of %s "
                              "bytes",
                              cap);
    }
    if (rc)
        return ona__lua_raise(L, fn, "%s", ona_strerror(rc));
    return 1;
}

static int world_gc(lua_State *L) {
    l_world *lw = luaL_checkudata(L, 1, ONA_PHYSICS_WORLD_MT);
    ona_physics_world_destroy(lw->w);
    lw->w = NULL;
    return 0;
}

/* world:destroy(): frees the world now (its bodies' methods raise from then on). */
static int l_world_destroy(lua_State *L) {
    ona__lua_check_world(L, 1, "world:destroy");
    return world_gc(L);
}

/* world:memory() -> the bytes Box2D holds for the world, world:count() -> its live bodies */
static int l_world_memory(lua_State *L) {
    l_world *lw = ona__lua_check_world(L, 1, "world:memory");
    lua_pushnumber(L, (lua_Number)ona_physics_world_memory(lw->w));
    return 1;
}

static int l_world_count(lua_State *L) {
    l_world *lw = ona__lua_check_world(L, 1, "world:count");
    lua_pushinteger(L, (lua_Integer)ona_physics_world_bodies(lw->w));
    return 1;
}

/* --- Bodies ----------------------------------------------------------------------------------- */

static const char *const body_fields[] = {
    "type",     "x",      "y",     "angle",   "shape",    "width",          "height",
    "radius",   "points", "loop",  "density", "friction", "restitution",    "sensor",
    "category", "mask",   "group", "user",    "bullet",   "fixed_rotation", NULL,
};

static void check_fields(lua_State *L, int t, const char *fn) {
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        bool known = false;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int i = 0; body_fields[i] && !known; i++)
                known = strcmp(lua_tostring(L, -1), body_fields[i]) == 0;
        if (!known) {
            lua_pushfstring(L,
                            "unknown field '%s' (fields: type, x, y, angle, shape, width, "
                            "height, radius, points, loop, density, friction, restitution, "
                            "sensor, category, mask, group, user, bullet, fixed_rotation)",
                            lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                           : luaL_typename(L, -1));
            ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
        }
    }
}

static int check_enum(lua_State *L, int t, const char *field, const char *const *names, int dflt,
                      const char *fn, const char *msg) {
    lua_getfield(L, t, field);
    int v = dflt;
    if (!lua_isnil(L, -1)) {
        v = -1;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (int i = 0; names[i]; i++)
                if (strcmp(lua_tostring(L, -1), names[i]) == 0)
                    v = i;
        if (v < 0)
            ona__lua_argerror(L, t, fn, msg);
    }
    lua_pop(L, 1);
    return v;
}

static uint32_t check_bits(lua_State *L, int t, const char *field, lua_Number lo, lua_Number hi,
                           lua_Number dflt, const char *fn) {
    lua_getfield(L, t, field);
    lua_Number v = dflt;
    if (!lua_isnil(L, -1)) {
        v = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : NAN;
        if (!(v >= lo && v <= hi) || v != floor(v)) {
            lua_pushfstring(L, "%s must be an integer from %d to %d", field, (int)lo, (int)hi);
            ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
        }
    }
    lua_pop(L, 1);
    return (uint32_t)(int32_t)v;
}

/* The points {x1, y1, x2, y2, ...} of the desc at t, as floats in a userdata left on the stack. */
static const float *check_points(lua_State *L, int t, const char *fn, uint32_t *count) {
    lua_getfield(L, t, "points");
    if (!lua_istable(L, -1))
        ona__lua_argerror(L, t, fn, "points must be a flat list {x1, y1, x2, y2, ...}");
    size_t len = lua_objlen(L, -1);
    if (len % 2 != 0 || len < 4 || len > 2 * (size_t)ONA_PHYSICS_MAX_CHAIN)
        ona__lua_argerror(L, t, fn,
                          "points must be a flat list {x1, y1, x2, y2, ...} of 2 to 65536 points");
    float *xy = lua_newuserdata(L, len * sizeof(float));
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, -2, (int)i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
            lua_pushfstring(L, "points[%d] is not a finite number", (int)i + 1);
            ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
        }
        xy[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    *count = (uint32_t)(len / 2);
    return xy;
}

/* Raises when the user value at idx cannot go in a message. */
static void check_user(lua_State *L, int idx, int t, const char *fn) {
    ona_message m;
    ona_message_init(&m);
    ona__moves moves;
    char why[400];
    int rc = ona__message_encode_lua_named(&m, L, idx, idx, &moves, "user", why, sizeof why);
    ona_message_release(&m); /* the encode lent the buffers, never moved them */
    if (rc == ONA_ENOMEM)
        ona__lua_raise(L, fn, "out of memory checking the user value");
    if (rc) {
        lua_pushfstring(L, "user must be a value a message can carry: %s", why);
        ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
    }
}

static const char *const type_names[] = {"static", "dynamic", "kinematic", NULL};
static const char *const shape_names[] = {"box", "circle", "polygon", "edge", "chain", NULL};

/* world:body{ type =, x =, y =, shape =, ... } -> body */
static int l_world_body(lua_State *L) {
    static const char fn[] = "world:body";
    l_world *lw = ona__lua_check_world(L, 1, fn);
    ona__lua_checktable(L, 2, fn);
    lua_settop(L, 2);
    check_fields(L, 2, fn);
    ona_physics_body_desc d;
    ona_physics_body_defaults(&d);
    d.type = (ona_physics_type)check_enum(L, 2, "type", type_names, 0, fn,
                                          "type must be \"static\", \"dynamic\" or \"kinematic\"");
    lua_getfield(L, 2, "shape");
    if (lua_isnil(L, -1))
        ona__lua_argerror(
            L, 2, fn, "shape is missing (\"box\", \"circle\", \"polygon\", \"edge\" or \"chain\")");
    lua_pop(L, 1);
    d.shape = (ona_physics_shape)check_enum(
        L, 2, "shape", shape_names, 0, fn,
        "shape must be \"box\", \"circle\", \"polygon\", \"edge\" or \"chain\"");
    d.x = check_float(L, 2, "x", 0, fn);
    d.y = check_float(L, 2, "y", 0, fn);
    d.angle = check_float(L, 2, "angle", 0, fn);
    d.width = check_float(L, 2, "width", 0, fn);
    d.height = check_float(L, 2, "height", 0, fn);
    d.radius = check_float(L, 2, "radius", 0, fn);
    d.density = check_float(L, 2, "density", d.density, fn);
    d.friction = check_float(L, 2, "friction", d.friction, fn);
    d.restitution = check_float(L, 2, "restitution", d.restitution, fn);
    d.category = (uint16_t)check_bits(L, 2, "category", 0, 65535, 1, fn);
    d.mask = (uint16_t)check_bits(L, 2, "mask", 0, 65535, 65535, fn);
    d.group = (int16_t)check_bits(L, 2, "group", -32768, 32767, 0, fn);
    static const char *const flags[] = {"sensor", "loop", "bullet", "fixed_rotation"};
    bool *flag_out[] = {&d.sensor, &d.loop, &d.bullet, &d.fixed_rotation};
    for (int i = 0; i < 4; i++) {
        lua_getfield(L, 2, flags[i]);
        if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
            lua_pushfstring(L, "%s must be a boolean", flags[i]);
            ona__lua_argerror(L, 2, fn, lua_tostring(L, -1));
        }
        *flag_out[i] = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    if (d.shape == ONA_PHYSICS_POLYGON || d.shape == ONA_PHYSICS_EDGE ||
        d.shape == ONA_PHYSICS_CHAIN)
        d.points = check_points(L, 2, fn, &d.point_count); /* at 3 */
    lua_getfield(L, 2, "user");
    int user = lua_gettop(L);
    if (!lua_isnil(L, user))
        check_user(L, user, 2, fn);
    const char *why = ona_physics_body_error(lw->w, &d);
    if (why)
        ona__lua_argerror(L, 2, fn, why);
    ona_physics_body id = 0;
    int rc = ona_physics_body_create(lw->w, &d, &id);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    l_body *b = lua_newuserdata(L, sizeof *b);
    b->id = id;
    luaL_getmetatable(L, ONA_PHYSICS_BODY_MT);
    lua_setmetatable(L, -2);
    lua_getfenv(L, 1);
    lua_setfenv(L, -2);
    lua_getfenv(L, 1);
    lua_rawgeti(L, -1, L_PHYSICS_BODIES);
    lua_pushvalue(L, -3);
    lua_rawseti(L, -2, (int)id);
    lua_rawgeti(L, -2, L_PHYSICS_USERS);
    lua_pushvalue(L, user);
    lua_rawseti(L, -2, (int)id);
    lua_pop(L, 3);
    return 1;
}

void ona__lua_physics_push_body(lua_State *L, int world, ona_physics_body id) {
    lua_getfenv(L, world);
    lua_rawgeti(L, -1, L_PHYSICS_BODIES);
    lua_rawgeti(L, -1, (int)id);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

void ona__lua_physics_push_user(lua_State *L, int world, ona_physics_body id) {
    lua_getfenv(L, world);
    lua_rawgeti(L, -1, L_PHYSICS_USERS);
    lua_rawgeti(L, -1, (int)id);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_rawgeti(L, -2, L_PHYSICS_GONE);
        lua_rawgeti(L, -1, (int)id);
        lua_replace(L, -2);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushinteger(L, (lua_Integer)id);
    }
    lua_replace(L, -3);
    lua_pop(L, 1);
}

/* The body at 1, alive, of a live world its caller owns; the world's userdata is pushed. */
static l_body *check_body(lua_State *L, const char *fn, l_world **world) {
    l_body *b = lua_type(L, 1) == LUA_TUSERDATA ? luaL_testudata(L, 1, ONA_PHYSICS_BODY_MT) : NULL;
    if (!b)
        ona__lua_raise(L, fn, "call it on a body (body:...), not with '.'");
    lua_getfenv(L, 1);
    lua_rawgeti(L, -1, L_PHYSICS_SELF);
    lua_remove(L, -2);
    l_world *lw = ona__lua_check_world(L, lua_gettop(L), fn);
    if (ona_physics_body_position(lw->w, b->id, NULL, NULL) == ONA_ESTALE)
        ona__lua_raise(L, fn, "the body was destroyed (body:destroy())");
    *world = lw;
    return b;
}

static int l_body_position(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:position", &lw);
    float x, y;
    ona_physics_body_position(lw->w, b->id, &x, &y);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

static int l_body_velocity(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:velocity", &lw);
    float x, y;
    ona_physics_body_velocity(lw->w, b->id, &x, &y);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

static int l_body_angle(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:angle", &lw);
    float a;
    ona_physics_body_angle(lw->w, b->id, &a);
    lua_pushnumber(L, a);
    return 1;
}

static int l_body_mass(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:mass", &lw);
    float m;
    ona_physics_body_mass(lw->w, b->id, &m);
    lua_pushnumber(L, m);
    return 1;
}

static int l_body_awake(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:awake", &lw);
    bool awake;
    ona_physics_body_awake(lw->w, b->id, &awake);
    lua_pushboolean(L, awake);
    return 1;
}

static int l_body_id(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:id", &lw);
    lua_pushinteger(L, (lua_Integer)b->id);
    return 1;
}

static int l_body_user(lua_State *L) {
    l_world *lw;
    l_body *b = check_body(L, "body:user", &lw);
    ona__lua_physics_push_user(L, lua_gettop(L), b->id);
    return 1;
}

static float check_finite(lua_State *L, int arg, const char *fn) {
    lua_Number v = ona__lua_checknumber(L, arg, fn);
    if (!isfinite(v))
        ona__lua_argerror(L, arg, fn, "a finite number expected");
    return (float)v;
}

static int l_body_impulse(lua_State *L) {
    static const char fn[] = "body:impulse";
    l_world *lw;
    l_body *b = check_body(L, fn, &lw);
    float ix = check_finite(L, 2, fn), iy = check_finite(L, 3, fn);
    ona_physics_body_impulse(lw->w, b->id, ix, iy);
    return 0;
}

static int l_body_set_velocity(lua_State *L) {
    static const char fn[] = "body:set_velocity";
    l_world *lw;
    l_body *b = check_body(L, fn, &lw);
    float vx = check_finite(L, 2, fn), vy = check_finite(L, 3, fn);
    ona_physics_body_set_velocity(lw->w, b->id, vx, vy);
    return 0;
}

static int l_body_set_position(lua_State *L) {
    static const char fn[] = "body:set_position";
    l_world *lw;
    l_body *b = check_body(L, fn, &lw);
    float x = check_finite(L, 2, fn), y = check_finite(L, 3, fn);
    float a = lua_isnoneornil(L, 4) ? 0 : check_finite(L, 4, fn);
    if (lua_isnoneornil(L, 4))
        ona_physics_body_angle(lw->w, b->id, &a);
    int rc = ona_physics_body_set_position(lw->w, b->id, x, y, a);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    return 0;
}

/* body:destroy(): its user stays readable by the next step's ending contacts. */
static int l_body_destroy(lua_State *L) {
    static const char fn[] = "body:destroy";
    l_world *lw;
    l_body *b = check_body(L, fn, &lw);
    int world = lua_gettop(L);
    int rc = ona_physics_body_destroy(lw->w, b->id);
    if (rc)
        return ona__lua_physics_fail(L, lw, fn, rc);
    lua_getfenv(L, world);
    int env = lua_gettop(L);
    lua_rawgeti(L, env, L_PHYSICS_GONE);
    lua_rawgeti(L, env, L_PHYSICS_USERS);
    lua_rawgeti(L, -1, (int)b->id);
    lua_rawseti(L, -3, (int)b->id);
    lua_pushnil(L);
    lua_rawseti(L, -2, (int)b->id);
    lua_rawgeti(L, env, L_PHYSICS_BODIES);
    lua_pushnil(L);
    lua_rawseti(L, -2, (int)b->id);
    return 0;
}

static int body_tostring(lua_State *L) {
    l_body *b = luaL_checkudata(L, 1, ONA_PHYSICS_BODY_MT);
    lua_pushfstring(L, "ona.physics.Body(%d)", (int)b->id);
    return 1;
}

const char *ona__lua_physics_refusal(lua_State *L, int idx) {
    if (luaL_testudata(L, idx, ONA_PHYSICS_WORLD_MT))
        return "is an ona.physics world, which belongs to the system that made it (send its "
               "bodies' positions or the step's contacts instead)";
    if (luaL_testudata(L, idx, ONA_PHYSICS_BODY_MT))
        return "is an ona.physics body, which belongs to its world's system (send body:id(), its "
               "position or its user value instead)";
    return NULL;
}

void ona__lua_open_physics(lua_State *L) {
    static const luaL_Reg world_methods[] = {
        {"body", l_world_body},
        {"destroy", l_world_destroy},
        {"memory", l_world_memory},
        {"count", l_world_count},
        {NULL, NULL},
    };
    static const luaL_Reg body_methods[] = {
        {"position", l_body_position},
        {"velocity", l_body_velocity},
        {"angle", l_body_angle},
        {"mass", l_body_mass},
        {"awake", l_body_awake},
        {"id", l_body_id},
        {"user", l_body_user},
        {"impulse", l_body_impulse},
        {"set_velocity", l_body_set_velocity},
        {"set_position", l_body_set_position},
        {"destroy", l_body_destroy},
        {NULL, NULL},
    };
    if (luaL_newmetatable(L, ONA_PHYSICS_WORLD_MT)) {
        lua_newtable(L);
        luaL_register(L, NULL, world_methods);
        ona__lua_physics_query_methods(L);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, world_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    if (luaL_newmetatable(L, ONA_PHYSICS_BODY_MT)) {
        lua_newtable(L);
        luaL_register(L, NULL, body_methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, body_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"world", l_physics_world}, {NULL, NULL}};
    luaL_register(L, NULL, fns);
}
