/*
 * l_string.c: the ona.String userdata (bindings/l_types.h): an ona_string in Lua, shared with
 * other systems by reference count when sent in a message, never copied. Also registers both
 * userdata types of messages (ona.String here, ona.Buffer in l_buffer.c).
 *
 * Design note. The userdata holds one 24-byte ona_string and one reference to its heap block,
 * released by __gc. A userdata is made empty, given its metatable, and only then given the
 * string: every call that can raise (allocating the userdata, looking up the metatable) happens
 * before it owns anything, so a memory error while pushing leaks nothing and the caller (the
 * message decoder) still holds its reference. Values are bytes: __tostring and :data() give a
 * Lua string, __concat accepts a Lua string or an ona.String on either side and returns a Lua
 * string. __eq compares bytes, but Lua only calls it between two ona.String values: an ona.String
 * never equals a Lua string with ==; compare s:data() instead.
 *
 * :hash() is the string's FNV-1a 64 hash reduced to its low 52 bits, returned as a Lua number:
 * a double holds every integer of that size exactly, so equal strings give equal numbers on
 * every thread and system.
 */
#include "common.h"

#include "l_types.h"

#include <lauxlib.h>

/* A new ona.String userdata holding the empty string, its metatable already set. */
static ona_string *new_string(lua_State *L) {
    ona_string *ud = lua_newuserdata(L, sizeof *ud);
    *ud = ONA_STRING_EMPTY;
    luaL_getmetatable(L, ONA_STRING_MT);
    lua_setmetatable(L, -2);
    return ud;
}

static bool has_metatable(lua_State *L, int idx, const char *name) {
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx))
        return false;
    luaL_getmetatable(L, name);
    bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

void ona__lua_push_string(lua_State *L, ona_string *s) {
    ona_string *ud = new_string(L);
    *ud = *s;
    *s = ONA_STRING_EMPTY;
}

ona_string *ona__lua_to_string(lua_State *L, int idx) {
    return has_metatable(L, idx, ONA_STRING_MT) ? lua_touserdata(L, idx) : NULL;
}

static ona_string *check_string(lua_State *L, int idx) {
    return luaL_checkudata(L, idx, ONA_STRING_MT);
}

int l_string_new(lua_State *L) {
    ona_string *src = ona__lua_to_string(L, 1);
    size_t len = 0;
    const char *bytes = src ? NULL : luaL_checklstring(L, 1, &len);
    ona_string *ud = new_string(L);
    if (src) {
        *ud = ona_string_copy(src);
        return 1;
    }
    if (ona_string_create(ud, bytes, len) != 0)
        return luaL_error(L, "not enough memory for a %d-byte ona.String", (int)len);
    return 1;
}

static int l_string_gc(lua_State *L) {
    ona_string_release(check_string(L, 1));
    return 0;
}

static int l_string_data(lua_State *L) {
    ona_string *s = check_string(L, 1);
    lua_pushlstring(L, ona_string_data(s), ona_string_length(s));
    return 1;
}

static int l_string_len(lua_State *L) {
    lua_pushnumber(L, (lua_Number)ona_string_length(check_string(L, 1)));
    return 1;
}

static int l_string_eq(lua_State *L) {
    ona_string *a = ona__lua_to_string(L, 1), *b = ona__lua_to_string(L, 2);
    lua_pushboolean(L, a && b && ona_string_equal(a, b));
    return 1;
}

/* The bytes of a concatenation operand: an ona.String, a Lua string or a number. */
static const char *concat_operand(lua_State *L, int idx, size_t *len) {
    ona_string *s = ona__lua_to_string(L, idx);
    if (s) {
        *len = ona_string_length(s);
        return ona_string_data(s);
    }
    int type = lua_type(L, idx);
    if (type == LUA_TSTRING || type == LUA_TNUMBER)
        return lua_tolstring(L, idx, len);
    luaL_error(L, "attempt to concatenate an ona.String with a %s", luaL_typename(L, idx));
    return NULL;
}

static int l_string_concat(lua_State *L) {
    size_t la, lb;
    const char *a = concat_operand(L, 1, &la);
    const char *b = concat_operand(L, 2, &lb);
    luaL_Buffer buf;
    luaL_buffinit(L, &buf);
    luaL_addlstring(&buf, a, la);
    luaL_addlstring(&buf, b, lb);
    luaL_pushresult(&buf);
    return 1;
}

static int l_string_hash(lua_State *L) {
    uint64_t h = ona_string_hash(check_string(L, 1));
    lua_pushnumber(L, (lua_Number)(h & ((UINT64_C(1) << 52) - 1)));
    return 1;
}

static const luaL_Reg string_meta[] = {
    {"__gc", l_string_gc}, {"__tostring", l_string_data}, {"__len", l_string_len},
    {"__eq", l_string_eq}, {"__concat", l_string_concat}, {NULL, NULL},
};

static const luaL_Reg string_methods[] = {
    {"len", l_string_len},
    {"hash", l_string_hash},
    {"data", l_string_data},
    {NULL, NULL},
};

void ona__lua_register_string(lua_State *L) {
    if (!luaL_newmetatable(L, ONA_STRING_MT)) {
        lua_pop(L, 1);
        return;
    }
    luaL_register(L, NULL, string_meta);
    lua_newtable(L);
    luaL_register(L, NULL, string_methods);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, ONA_STRING_MT);
    lua_setfield(L, -2, "__metatable"); /* scripts cannot reach (and break) the __gc */
    lua_pop(L, 1);
}

void ona__lua_register_types(lua_State *L) {
    ona__lua_register_string(L);
    ona__lua_register_buffer(L);
}
