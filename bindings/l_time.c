/*
 * l_time.c: game time and seeded random numbers for Lua systems: ona.time(), ona.time.alpha(),
 * ona.dt() and ona.random([seed]).
 *
 * Design note. ona.time() is the runtime's game clock (runtime/services/time.c: the sum of the
 * frames' dt, exact under a fixed step), written by main before a frame's turns and only read
 * during them, so every system sees the same value in a frame on any thread. ona.dt() is the
 * frame's dt, the same number process(state, events, dt) gets. ona.time.alpha() is the frame's
 * leftover fraction of a fixed step (set by main with the clock); ona.time is a callable table so
 * that both read naturally. A generator is a full userdata
 * ("ona.Random") holding an ona_random (xoshiro256**, services/time.c) that belongs to the state
 * that made it: nothing is shared, so no lock, and a sequence depends only on its seed. The default
 * seed comes from the system's name, its spawn order and how many default seeds this state took
 * before (kept in the registry, so a restart, which makes a fresh state, starts over).
 */
#include "l_modules.h"
#include "lua_check.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

#define RANDOM_MT "ona.Random"
#define SEEDS_KEY "ona.random.seeds"

/* ona.time() -> seconds of game time, this frame included. */
static int l_time_time(lua_State *L) {
    lua_pushnumber(L, ona__services_time(ona__lua_of(L)->svc));
    return 1;
}

/* ona.time.alpha() -> under fixed steps, the frame's leftover fraction of a step, in [0, 1):
 * draw at previous + (current - previous) * alpha. 0 without fixed steps. */
static int l_time_alpha(lua_State *L) {
    lua_pushnumber(L, ona__lua_of(L)->svc->alpha);
    return 1;
}

/* ona.time's __call: ona.time() as before (the table comes first, ignored). */
static int l_time_call(lua_State *L) {
    return l_time_time(L);
}

/* ona.dt() -> this frame's dt in seconds (what process gets). */
static int l_time_dt(lua_State *L) {
    lua_pushnumber(L, ona__lua_of(L)->sys->core->dt);
    return 1;
}

/* A seed argument: an integer in [0, 2^53) or a string (hashed to one). */
static uint64_t check_seed(lua_State *L, int idx, int arg, const char *fn) {
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        uint64_t h = 0xCBF29CE484222325ull;
        for (size_t i = 0; i < len; i++)
            h = (h ^ (uint8_t)s[i]) * 0x100000001B3ull;
        ona_random r;
        ona_random_seed(&r, h);
        return ona_random_u64(&r) & ((1ull << 53) - 1);
    }
    if (lua_type(L, idx) != LUA_TNUMBER)
        ona__lua_argerror(L, arg, fn, "a seed (an integer or a string) expected");
    double n = lua_tonumber(L, idx);
    if (!(n >= 0 && n < 0x1.0p53) || n != floor(n))
        ona__lua_argerror(L, arg, fn, "the seed must be an integer from 0 to 2^53 - 1");
    return (uint64_t)n;
}

static ona_random *check_gen(lua_State *L, const char *fn) {
    ona_random *r = lua_touserdata(L, 1);
    if (r && lua_getmetatable(L, 1)) {
        luaL_getmetatable(L, RANDOM_MT);
        bool ok = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (ok)
            return r;
    }
    ona__lua_raise(L, fn, "call it on a generator with ':' (gen:%s(...)), not with '.'",
                   strrchr(fn, ':') + 1);
    return NULL;
}

/* An integer argument of a method, within +-2^53 (exact in a Lua number). */
static int64_t check_int(lua_State *L, int idx, const char *fn) {
    double n = ona__lua_checknumber(L, idx, fn);
    if (n != floor(n) || fabs(n) > 0x1.0p53)
        ona__lua_argerror(L, idx - 1, fn, "an integer from -2^53 to 2^53 expected");
    return (int64_t)n;
}

/* gen:next() -> a number in [0, 1). */
static int l_random_next(lua_State *L) {
    lua_pushnumber(L, ona_random_next(check_gen(L, "random:next")));
    return 1;
}

/* gen:int(a, b) -> an integer in [a, b], both included. */
static int l_random_int(lua_State *L) {
    static const char fn[] = "random:int";
    ona_random *r = check_gen(L, fn);
    int64_t a = check_int(L, 2, fn), b = check_int(L, 3, fn);
    if (b < a) {
        char range[64]; /* lua_pushfstring has no %lld */
        snprintf(range, sizeof range, "%lld > %lld", (long long)a, (long long)b);
        ona__lua_raise(L, fn, "the range is empty: %s", range);
    }
    lua_pushnumber(L, (lua_Number)ona_random_int(r, a, b));
    return 1;
}

/* gen:float(a, b) -> a number in [a, b). */
static int l_random_float(lua_State *L) {
    static const char fn[] = "random:float";
    ona_random *r = check_gen(L, fn);
    double a = ona__lua_checknumber(L, 2, fn), b = ona__lua_checknumber(L, 3, fn);
    if (!isfinite(a) || !isfinite(b))
        ona__lua_raise(L, fn, "the bounds must be finite numbers");
    lua_pushnumber(L, ona_random_float(r, a, b));
    return 1;
}

/* gen:seed() -> its seed; gen:seed(s) starts the sequence of seed s over. */
static int l_random_seed(lua_State *L) {
    static const char fn[] = "random:seed";
    ona_random *r = check_gen(L, fn);
    if (!lua_isnoneornil(L, 2))
        ona_random_seed(r, check_seed(L, 2, 1, fn));
    lua_pushnumber(L, (lua_Number)r->seed);
    return 1;
}

static int l_random_tostring(lua_State *L) {
    ona_random *r = check_gen(L, "random:__tostring");
    char text[48]; /* lua_pushfstring's %f would round a 16-digit seed */
    snprintf(text, sizeof text, "ona.random(%llu)", (unsigned long long)r->seed);
    lua_pushstring(L, text);
    return 1;
}

/* ona.random([seed]) -> a generator; without a seed, this system's next default one. */
static int l_time_random(lua_State *L) {
    static const char fn[] = "ona.random";
    uint64_t seed;
    if (lua_isnoneornil(L, 1)) {
        ona__lua *lua = ona__lua_of(L);
        lua_getfield(L, LUA_REGISTRYINDEX, SEEDS_KEY);
        uint64_t nth = (uint64_t)lua_tonumber(L, -1);
        lua_pop(L, 1);
        lua_pushnumber(L, (lua_Number)(nth + 1));
        lua_setfield(L, LUA_REGISTRYINDEX, SEEDS_KEY);
        seed = ona__services_default_seed(lua->sys, nth);
    } else {
        seed = check_seed(L, 1, 1, fn);
    }
    ona_random *r = lua_newuserdata(L, sizeof *r);
    ona_random_seed(r, seed);
    luaL_getmetatable(L, RANDOM_MT);
    lua_setmetatable(L, -2);
    return 1;
}

/* ona.random as registered: the generators' metatable is made at the first call, not
 * at every spawn (most systems make no generator); the upvalue says it is there. */
static int l_time_random_first(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"next", l_random_next}, {"int", l_random_int}, {"float", l_random_float},
        {"seed", l_random_seed}, {NULL, NULL},
    };
    if (!lua_toboolean(L, lua_upvalueindex(1))) {
        if (luaL_newmetatable(L, RANDOM_MT)) {
            lua_newtable(L);
            luaL_register(L, NULL, methods);
            lua_setfield(L, -2, "__index");
            lua_pushcfunction(L, l_random_tostring);
            lua_setfield(L, -2, "__tostring");
            lua_pushliteral(L, "ona.Random");
            lua_setfield(L, -2, "__metatable");
        }
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_replace(L, lua_upvalueindex(1));
    }
    return l_time_random(L);
}

void ona__lua_open_time(lua_State *L) {
    /* ona.time is a table to call (ona.time()) that also holds ona.time.alpha. */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, l_time_alpha);
    lua_setfield(L, -2, "alpha");
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, l_time_call);
    lua_setfield(L, -2, "__call");
    lua_pushliteral(L, "ona.time");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "time");
    lua_pushcfunction(L, l_time_dt);
    lua_setfield(L, -2, "dt");
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, l_time_random_first, 1);
    lua_setfield(L, -2, "random");
}
