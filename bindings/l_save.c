/*
 * l_save.c: ona.save(name, value) and ona.load(name) for Lua systems.
 *
 * Design note. A value is encoded by the message codec (l_message.c) exactly as a send would,
 * so whatever can be sent can be saved (nil, booleans, numbers, strings, nested tables; shared
 * strings are written as plain ones) and whatever cannot is refused with its path ("value.cb is
 * a function"); buffers, which only move between systems, are refused too. The file work
 * (format, atomic replace, checks) is runtime/save.c's, with no Lua. Misuse (a bad name, a
 * value that cannot be saved) raises at the author's line; what the disk says (no such save,
 * corrupt, no space) returns nil and a message naming the file, and is logged unless it is a
 * missing save. A recorded session keeps what each load returned and a replay answers from it,
 * writing nothing (runtime/services/record_saves.c). Loading decodes under lua_cpcall so that a
 * memory error cannot leak the bytes read.
 */
#include "l_message.h"
#include "l_modules.h"
#include "lua_check.h"
#include "lua_host.h"
#include "record.h"
#include "save.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

static const char *check_name(lua_State *L, const char *fn) {
    size_t len;
    const char *name = ona__lua_checkstring(L, 1, fn, &len);
    char why[200];
    /* The file layer sees a C string: a name cut at a NUL would silently be another save's. */
    if (strlen(name) != len)
        ona__lua_raise(L, fn, "bad argument #1 (the save name '%s\\0...' has a NUL byte at byte %d)",
                       name, (int)strlen(name) + 1);
    if (ona__save_check_name(name, why, sizeof why) != 0)
        ona__lua_argerror(L, 1, fn, why);
    return name;
}

/* ona.save(name, value) -> true | nil, reason */
static int l_save_save(lua_State *L) {
    static const char fn[] = "ona.save";
    ona__lua *lua = ona__lua_of(L);
    const char *name = check_name(L, fn);
    if (lua_isnoneornil(L, 2))
        ona__lua_argerror(L, 2, fn, "a value to save expected, got nil");
    lua_settop(L, 2);
    ona_message m;
    ona_message_init(&m);
    ona__moves moves;
    char why[400];
    int rc = ona__message_encode_lua_named(&m, L, 2, 2, &moves, "value", why, sizeof why);
    if (rc) {
        ona_message_release(&m);
        if (rc == ONA_ENOMEM) {
            lua_pushnil(L);
            lua_pushfstring(L, "save %s: out of memory encoding the value", name);
            return 2;
        }
        return ona__lua_raise(L, fn, "cannot save '%s': %s", name, why);
    }
    char err[600];
    rc = ona__record_save(lua->svc->record, lua->svc->save_dir, name, &m, err, sizeof err);
    /* The encode lent the value's buffers, never moved them: releasing leaves them alone. */
    ona_message_release(&m);
    if (rc == ONA_EENCODE)
        return ona__lua_raise(L, fn, "%s", err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, lua->sys->name, "%s", err);
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

typedef struct decode_job {
    const uint8_t *bytes;
    size_t size;
    char err[200];
    int ref;
} decode_job;

/* Under lua_cpcall: decodes the value and keeps it in the registry (cpcall drops results). */
static int decode_protected(lua_State *L) {
    decode_job *job = lua_touserdata(L, 1);
    int n = ona__message_decode_bytes_lua(job->bytes, job->size, L, job->err, sizeof job->err);
    if (n != 1) {
        job->ref = LUA_NOREF;
        return 0;
    }
    job->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* ona.load(name) -> value | nil, reason */
static int l_save_load(lua_State *L) {
    static const char fn[] = "ona.load";
    ona__lua *lua = ona__lua_of(L);
    const char *name = check_name(L, fn);
    uint8_t *bytes;
    size_t size;
    char err[600];
    int rc = ona__record_load(lua->svc->record, lua->svc->core, lua->svc->save_dir, name, &bytes,
                              &size, err, sizeof err);
    if (rc) {
        if (rc != ONA_ENOENT)
            ona_log(ONA_LOG_ERROR, lua->sys->name, "%s", err);
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    decode_job job = {.bytes = bytes, .size = size, .ref = LUA_NOREF};
    int status = lua_cpcall(L, decode_protected, &job);
    ona__free(bytes);
    if (status != 0)
        return lua_error(L); /* out of memory: the error value is on the stack */
    if (job.ref == LUA_NOREF) {
        lua_pushnil(L);
        lua_pushfstring(L, "save %s: corrupt: %s", name, job.err);
        return 2;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, job.ref);
    luaL_unref(L, LUA_REGISTRYINDEX, job.ref);
    return 1;
}

void ona__lua_open_save(lua_State *L) {
    lua_pushcfunction(L, l_save_save);
    lua_setfield(L, -2, "save");
    lua_pushcfunction(L, l_save_load);
    lua_setfield(L, -2, "load");
}
