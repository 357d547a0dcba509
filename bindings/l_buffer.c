/*
 * l_buffer.c: the ona.Buffer userdata (bindings/l_types.h): a typed array that a system fills
 * through the FFI and sends without copying.
 *
 * Design note. The userdata is a handle (`l_buffer`) to one ona_buffer it owns. Sending moves
 * the buffer: ona__message_commit_moves clears the handle's pointer once the message is in the
 * receiver's mailbox, and from then on the handle is dead (:alive() is false and every other
 * method raises "buffer was moved by ona.send or freed"); :free() kills it early. __gc destroys
 * the buffer only if the handle still owns it. The element size comes from the FFI
 * (`ffi.sizeof(ctype)`), so the receiver must know the same C type: :ptr() casts the data to
 * `ctype *` with `ffi.cast`. Like l_string.c, a handle is made empty with its metatable before
 * it is given a buffer, so a raise while pushing leaks nothing.
 */
#include "common.h"

#include "l_types.h"
#include "lua_check.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

static l_buffer *new_buffer(lua_State *L) {
    l_buffer *ud = lua_newuserdata(L, sizeof *ud);
    ud->buffer = NULL;
    luaL_getmetatable(L, ONA_BUFFER_MT);
    lua_setmetatable(L, -2);
    return ud;
}

void ona__lua_push_buffer(lua_State *L, ona_buffer *buffer) {
    l_buffer *ud = new_buffer(L);
    ud->buffer = buffer;
}

l_buffer *ona__lua_to_buffer(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx))
        return NULL;
    luaL_getmetatable(L, ONA_BUFFER_MT);
    bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? lua_touserdata(L, idx) : NULL;
}

int l_buffer_new(lua_State *L) {
    static const char fn[] = "ona.buffer";
    size_t type_len;
    const char *ctype = ona__lua_checkstring(L, 1, fn, &type_len);
    lua_Number count = ona__lua_checknumber(L, 2, fn);
    if (type_len == 0 || type_len >= 64)
        return ona__lua_argerror(L, 1, fn, "C type name must be 1 to 63 bytes");
    if (!(count >= 0) || count != floor(count))
        return ona__lua_argerror(L, 2, fn, "count must be a non-negative integer");
    ona__lua_push_ffi(L);
    lua_getfield(L, -1, "sizeof");
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) != 0 || lua_type(L, -1) != LUA_TNUMBER)
        return ona__lua_argerror(L, 1, fn, lua_pushfstring(L, "unknown C type '%s'", ctype));
    lua_Number elem_size = lua_tonumber(L, -1);
    if (!(elem_size >= 1))
        return ona__lua_argerror(L, 1, fn, lua_pushfstring(L, "C type '%s' has no size", ctype));
    if (count > (lua_Number)(ONA_MESSAGE_MAX_SIZE / (size_t)elem_size))
        return ona__lua_argerror(L, 2, fn,
                                 lua_pushfstring(L,
                                                 "count is too large (a buffer holds at "
                                                 "most %d bytes)",
                                                 (int)ONA_MESSAGE_MAX_SIZE));
    lua_pop(L, 2);
    l_buffer *ud = new_buffer(L);
    int rc = ona_buffer_create(ctype, (size_t)elem_size, (size_t)count, &ud->buffer);
    if (rc != 0)
        return ona__lua_raise(L, fn, "%s", ona_strerror(rc));
    return 1;
}

/* The method's buffer (self), raising under the method's name (`fn`, "buffer:ptr") at the
 * author's line for anything else. */
static l_buffer *check_handle(lua_State *L, const char *fn) {
    l_buffer *b = ona__lua_to_buffer(L, 1);
    if (!b) {
        lua_pushfstring(L, "an ona.Buffer expected (call it as buf:%s()), got %s",
                        strchr(fn, ':') + 1, luaL_typename(L, 1));
        ona__lua_argerror(L, 1, fn, lua_tostring(L, -1));
    }
    return b;
}

static ona_buffer *check_alive(lua_State *L, const char *fn) {
    l_buffer *b = check_handle(L, fn);
    if (!b->buffer)
        ona__lua_argerror(L, 1, fn, "buffer was moved by ona.send or freed");
    return b->buffer;
}

static int l_buffer_ptr(lua_State *L) {
    ona_buffer *b = check_alive(L, "buffer:ptr");
    ona__lua_push_ffi(L);
    lua_getfield(L, -1, "cast");
    lua_pushfstring(L, "%s *", ona_buffer_type(b));
    lua_pushlightuserdata(L, ona_buffer_data(b));
    lua_call(L, 2, 1);
    return 1;
}

static int l_buffer_count(lua_State *L) {
    lua_pushnumber(L, (lua_Number)ona_buffer_count(check_alive(L, "buffer:count")));
    return 1;
}

static int l_buffer_type(lua_State *L) {
    lua_pushstring(L, ona_buffer_type(check_alive(L, "buffer:type")));
    return 1;
}

static int l_buffer_size(lua_State *L) {
    ona_buffer *b = check_alive(L, "buffer:size");
    lua_pushnumber(L, (lua_Number)(ona_buffer_count(b) * ona_buffer_elem_size(b)));
    return 1;
}

static int l_buffer_alive(lua_State *L) {
    lua_pushboolean(L, check_handle(L, "buffer:alive")->buffer != NULL);
    return 1;
}

/* :free() and __gc: destroy the buffer if the handle still owns it. */
static int l_buffer_free(lua_State *L) {
    l_buffer *b = check_handle(L, "buffer:free");
    ona_buffer_destroy(b->buffer);
    b->buffer = NULL;
    return 0;
}

static int l_buffer_tostring(lua_State *L) {
    l_buffer *b = check_handle(L, "buffer:tostring");
    if (b->buffer)
        lua_pushfstring(L, "ona.Buffer(%s[%d])", ona_buffer_type(b->buffer),
                        (int)ona_buffer_count(b->buffer));
    else
        lua_pushliteral(L, "ona.Buffer(moved)");
    return 1;
}

static const luaL_Reg buffer_meta[] = {
    {"__gc", l_buffer_free},
    {"__len", l_buffer_count},
    {"__tostring", l_buffer_tostring},
    {NULL, NULL},
};

static const luaL_Reg buffer_methods[] = {
    {"ptr", l_buffer_ptr},
    {"count", l_buffer_count},
    {"type", l_buffer_type},
    {"size", l_buffer_size},
    {"alive", l_buffer_alive},
    {"free", l_buffer_free},
    {NULL, NULL},
};

void ona__lua_register_buffer(lua_State *L) {
    if (!luaL_newmetatable(L, ONA_BUFFER_MT)) {
        lua_pop(L, 1);
        return;
    }
    luaL_register(L, NULL, buffer_meta);
    lua_newtable(L);
    luaL_register(L, NULL, buffer_methods);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, ONA_BUFFER_MT);
    lua_setfield(L, -2, "__metatable"); /* scripts cannot reach (and break) the __gc */
    lua_pop(L, 1);
}
