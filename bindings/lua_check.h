/*
 * lua_check.h: how every binding reports a misuse (bindings/lua_check.c): raises at the author's
 * line and the argument checks built on them. Internal to the Lua host and its modules.
 *
 * Every misuse of an `ona`, `ona.gfx` or `ona.input` function raises
 * "<file>:<line>: <public name>: <message>", e.g. "ball.lua:12: ona.send: bad argument #1 (not
 * a system handle)". The position is the innermost Lua frame calling the running C function
 * that is not the prelude's: a wrapper in the prelude and a C caller (pcall) are passed over.
 * luaL_argerror would name the prelude's wrapper or the call site's variable instead.
 */
#ifndef ONA_LUA_CHECK_H
#define ONA_LUA_CHECK_H

#include <lua.h>

/* The chunk name the prelude is loaded under (lua_host.c): its frames are never the author's. */
#define ONA__PRELUDE_CHUNK "=prelude.lua"

/* Writes "<file>:<line>: " of the innermost author frame of L at or below `level` into buf, or
 * "" when there is none. */
void ona__lua_author_line(lua_State *L, int level, char *buf, size_t size);
/* Raises "<author line>: <fn>: <formatted message>" (fn NULL: no name). Never returns. */
int ona__lua_raise(lua_State *L, const char *fn, const char *fmt, ...);
/* Raises "<author line>: <fn>: bad argument #<arg> (<msg>)". Never returns. */
int ona__lua_argerror(lua_State *L, int arg, const char *fn, const char *msg);
/* The luaL_check* family, reporting with ona__lua_argerror ("number expected, got nil"). */
lua_Number ona__lua_checknumber(lua_State *L, int arg, const char *fn);
lua_Number ona__lua_optnumber(lua_State *L, int arg, const char *fn, lua_Number dflt);
const char *ona__lua_checkstring(lua_State *L, int arg, const char *fn, size_t *len);
void ona__lua_checktable(lua_State *L, int arg, const char *fn);
/* Raises "bad argument #<arg> ('<name>' is outside the game folder ...)" when `rc` (what
 * ona__services_locate said of the game path `name`) is ONA_EPATH or ONA_ERANGE: a path a game
 * can never load is a misuse, not a missing file. Returns otherwise. */
void ona__lua_check_game_path(lua_State *L, int arg, const char *fn, const char *name, int rc);

#endif
