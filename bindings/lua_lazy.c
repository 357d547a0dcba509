/*
 * lua_lazy.c: tables filled on their first use (lua_lazy.h).
 *
 * Design note. The metatable of a lazy table holds its filler and its argument ([1], [2]) with
 * the shared __index and __newindex. The first access takes the metatable off, runs the filler
 * under lua_pcall into that very table (so the table's identity never changes: `ona.gfx`,
 * `package.loaded.io` and the global `io` stay one table), and then does the access raw. Fields
 * stored raw before the filling stay unless the filler overwrites them (the stdlib filler of
 * lua_host.c puts them back over the library's).
 */
#include "lua_lazy.h"

/* Fills the lazy table at index 1 if it still has its metatable. */
static void fill(lua_State *L) {
    if (!lua_getmetatable(L, 1))
        return;
    int mt = lua_gettop(L);
    lua_pushnil(L);
    lua_setmetatable(L, 1);
    lua_rawgeti(L, mt, 1); /* the filler */
    lua_pushvalue(L, 1);
    lua_rawgeti(L, mt, 2); /* its argument */
    if (lua_pcall(L, 2, 0, 0) != 0) {
        lua_pushvalue(L, mt);
        lua_setmetatable(L, 1);
        lua_error(L);
    }
    lua_settop(L, mt - 1);
}

/* __index(table, key): filled, then the field (nil when it has none). */
static int lazy_index(lua_State *L) {
    fill(L);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

/* __newindex(table, key, value): filled, then the store (a script's own field, or its
 * replacement of a binding, is kept: it happens after the filling). */
static int lazy_newindex(lua_State *L) {
    fill(L);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 0;
}

void ona__lua_lazy_push_methods(lua_State *L) {
    lua_pushcfunction(L, lazy_index);
    lua_pushcfunction(L, lazy_newindex);
}

void ona__lua_lazy_table(lua_State *L, int methods, int fill_idx, lua_Integer arg) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 2, 3);
    lua_pushvalue(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, methods + 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable"); /* the filler is for the first use only */
    lua_pushvalue(L, fill_idx);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, arg);
    lua_rawseti(L, -2, 2);
    lua_setmetatable(L, -2);
}
