/*
 * lua_check.c: raises at the author's line and the argument checks (lua_check.h).
 */
#include "lua_check.h"

#include "paths.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ona__lua_author_line(lua_State *L, int level, char *buf, size_t size) {
    lua_Debug ar;
    for (; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0 &&
            strcmp(ar.source, ONA__PRELUDE_CHUNK) != 0) {
            snprintf(buf, size, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
    }
    buf[0] = '\0';
}

int ona__lua_raise(lua_State *L, const char *fn, const char *fmt, ...) {
    char at[LUA_IDSIZE + 24];
    ona__lua_author_line(L, 1, at, sizeof at);
    lua_pushstring(L, at);
    if (fn)
        lua_pushfstring(L, "%s: ", fn);
    else
        lua_pushliteral(L, "");
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 3);
    return lua_error(L);
}

int ona__lua_argerror(lua_State *L, int arg, const char *fn, const char *msg) {
    return ona__lua_raise(L, fn, "bad argument #%d (%s)", arg, msg);
}

static int type_error(lua_State *L, int arg, const char *fn, const char *expected) {
    return ona__lua_raise(L, fn, "bad argument #%d (%s expected, got %s)", arg, expected,
                          luaL_typename(L, arg));
}

lua_Number ona__lua_checknumber(lua_State *L, int arg, const char *fn) {
    lua_Number n = lua_tonumber(L, arg);
    if (n == 0 && !lua_isnumber(L, arg))
        type_error(L, arg, fn, "number");
    return n;
}

lua_Number ona__lua_optnumber(lua_State *L, int arg, const char *fn, lua_Number dflt) {
    return lua_isnoneornil(L, arg) ? dflt : ona__lua_checknumber(L, arg, fn);
}

const char *ona__lua_checkstring(lua_State *L, int arg, const char *fn, size_t *len) {
    const char *s = lua_tolstring(L, arg, len);
    if (!s)
        type_error(L, arg, fn, "string");
    return s;
}

void ona__lua_check_game_path(lua_State *L, int arg, const char *fn, const char *name, int rc) {
    if (rc == ONA_EPATH)
        ona__lua_raise(L, fn, "bad argument #%d ('%s' is %s)", arg, name, ona__paths_why(rc, NULL));
    if (rc == ONA_ERANGE)
        ona__lua_raise(L, fn, "bad argument #%d (the path '%.80s...' is too long)", arg, name);
}

void ona__lua_checktable(lua_State *L, int arg, const char *fn) {
    if (!lua_istable(L, arg))
        type_error(L, arg, fn, "table");
}
