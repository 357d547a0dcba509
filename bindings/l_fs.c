/*
 * l_fs.c: ona.fs, the game's files for Lua systems: read, lines, list, exists, info relative to
 * the game (its folder or its archive), and write into the save folder.
 *
 * Design note. The file work is runtime/services/fs.c's (PhysicsFS; no Lua there). A path that
 * leaves the game (absolute, "..", a NUL byte, a '\') is a misuse and raises at the author's
 * line; a path that is merely missing is `nil, message` (read, info, list; lines raises, as
 * io.lines does, since its result is called). Reads see the save folder over the game, LÖVE's
 * rule, except in a sandboxed system, which sees the game alone and may not write. A game file
 * read here is a game file like a script or a texture: it is handed to the watcher, whose list
 * is what a recording names and digests ('G' chunks), so a replay names a level file that
 * changed. Files from the save folder are not (saves are not recorded). Reads are bounded by
 * ONA__FS_MAX_READ; memory is freed before anything can raise.
 */
#include "l_modules.h"
#include "lua_check.h"
#include "lua_host.h"

#include "fs.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define ONA__FS_MAX_READ (256u << 20) /* bytes ona.fs.read returns at most */

enum { PATH_BYTES = 4096 };

/* Checks argument 1 as a game path into `out`; raises for one that leaves the game. */
static void check_path(lua_State *L, const char *fn, char *out, size_t size) {
    size_t len;
    const char *path = ona__lua_checkstring(L, 1, fn, &len);
    const char *why;
    int rc = ona__fs_check_path(path, len, out, size, &why);
    if (rc == ONA_EPATH)
        ona__lua_raise(L, fn, "bad argument #1 ('%s' %s)", path, why);
    if (rc == ONA_ERANGE)
        ona__lua_raise(L, fn, "bad argument #1 (the path '%.80s...' is too long)", path);
}

static bool reads_saves(const ona__lua *lua) {
    return !lua->sandboxed;
}

/* Pushes nil and "<path>: <why>"; returns 2. */
static int fail(lua_State *L, const char *path, int rc) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path,
                    rc == ONA_ENOENT     ? "no such file or folder in the game"
                    : rc == ONA_ENOTFILE ? "is a folder, not a file"
                    : rc == ONA_ELIMIT   ? "the file is too large"
                                         : ona_strerror(rc));
    return 2;
}

/* What a protected push (lua_cpcall) copies into the state: bytes as a string, or names as an
 * array. A memory error there must not leak the C copy, which the caller frees either way. */
typedef struct push_job {
    const uint8_t *bytes;
    size_t size;
    char **names;
    uint32_t count;
    int ref;
} push_job;

static int push_protected(lua_State *L) {
    push_job *job = lua_touserdata(L, 1);
    if (job->names) {
        lua_createtable(L, (int)job->count, 0);
        for (uint32_t i = 0; i < job->count; i++) {
            lua_pushstring(L, job->names[i]);
            lua_rawseti(L, -2, (int)i + 1);
        }
    } else
        lua_pushlstring(L, (const char *)job->bytes, job->size);
    job->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* Pushes the job's value; raises a memory error after the caller's copy is freed. */
static void push_job_value(lua_State *L, push_job *job, void *owned, bool is_list) {
    int status = lua_cpcall(L, push_protected, job);
    if (is_list)
        ona__fs_free_list(owned);
    else
        ona__free(owned);
    if (status != 0)
        lua_error(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, job->ref);
    luaL_unref(L, LUA_REGISTRYINDEX, job->ref);
}

/* Reads file argument 1 onto the stack as a string: 1, or pushes nil, message: 2. */
static int read_onto(lua_State *L, const char *fn) {
    ona__lua *lua = ona__lua_of(L);
    char path[PATH_BYTES], real[PATH_BYTES];
    check_path(L, fn, path, sizeof path);
    uint8_t *data;
    size_t size;
    bool in_save = false;
    int rc = ona__fs_read(lua->svc, path, reads_saves(lua), ONA__FS_MAX_READ, &data, &size,
                          &in_save, real, sizeof real);
    if (rc)
        return fail(L, path, rc);
    /* A game file: listed for a recording (digested) and watched like every loaded file. */
    if (!in_save)
        ona__services_watch(lua->svc, real);
    push_job job = {.bytes = data, .size = size};
    push_job_value(L, &job, data, false);
    return 1;
}

/* ona.fs.read(path) -> string | nil, message */
static int l_fs_read(lua_State *L) {
    return read_onto(L, "ona.fs.read");
}

/* The iterator of ona.fs.lines: upvalue 1 the text, 2 the offset of the next line. Lines end at
 * "\n" (a "\r" before it is dropped); a last line without one is returned too. */
static int next_line(lua_State *L) {
    size_t size;
    const char *text = lua_tolstring(L, lua_upvalueindex(1), &size);
    size_t at = (size_t)lua_tointeger(L, lua_upvalueindex(2));
    if (at >= size)
        return 0;
    const char *nl = memchr(text + at, '\n', size - at);
    size_t end = nl ? (size_t)(nl - text) : size;
    size_t n = end - at;
    if (n && text[at + n - 1] == '\r')
        n--;
    lua_pushinteger(L, (lua_Integer)(nl ? end + 1 : size));
    lua_replace(L, lua_upvalueindex(2));
    lua_pushlstring(L, text + at, n);
    return 1;
}

/* ona.fs.lines(path) -> iterator over the lines; raises for a missing file */
static int l_fs_lines(lua_State *L) {
    static const char fn[] = "ona.fs.lines";
    if (read_onto(L, fn) != 1)
        return ona__lua_raise(L, fn, "%s", lua_tostring(L, -1));
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, next_line, 2);
    return 1;
}

/* ona.fs.list(folder) -> { names sorted by bytes } | nil, message */
static int l_fs_list(lua_State *L) {
    static const char fn[] = "ona.fs.list";
    ona__lua *lua = ona__lua_of(L);
    char path[PATH_BYTES];
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_pushliteral(L, "");
    }
    check_path(L, fn, path, sizeof path);
    char **names;
    uint32_t count;
    int rc = ona__fs_list(lua->svc, path, reads_saves(lua), &names, &count);
    if (rc == ONA_ENOENT) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: no such folder in the game", *path ? path : ".");
        return 2;
    }
    if (rc)
        return fail(L, path, rc);
    push_job job = {.names = names, .count = count};
    push_job_value(L, &job, names, true);
    return 1;
}

/* ona.fs.exists(path) -> boolean */
static int l_fs_exists(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    char path[PATH_BYTES];
    check_path(L, "ona.fs.exists", path, sizeof path);
    bool is_dir, in_save;
    uint64_t size;
    lua_pushboolean(L,
                    ona__fs_stat(lua->svc, path, reads_saves(lua), &is_dir, &size, &in_save) == 0);
    return 1;
}

/* ona.fs.info(path) -> { type = "file"|"directory", size = bytes, save = boolean } | nil, msg */
static int l_fs_info(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    char path[PATH_BYTES];
    check_path(L, "ona.fs.info", path, sizeof path);
    bool is_dir, in_save;
    uint64_t size;
    int rc = ona__fs_stat(lua->svc, path, reads_saves(lua), &is_dir, &size, &in_save);
    if (rc)
        return fail(L, *path ? path : ".", rc);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, is_dir ? "directory" : "file");
    lua_setfield(L, -2, "type");
    lua_pushnumber(L, is_dir ? 0 : (lua_Number)size);
    lua_setfield(L, -2, "size");
    lua_pushboolean(L, in_save);
    lua_setfield(L, -2, "save");
    return 1;
}

/* ona.fs.write(path, data) -> true | nil, message: into the save folder, atomically */
static int l_fs_write(lua_State *L) {
    static const char fn[] = "ona.fs.write";
    ona__lua *lua = ona__lua_of(L);
    if (lua->sandboxed)
        return ona__lua_raise(L, fn,
                              "a sandboxed system cannot write files (the save folder lies "
                              "outside the game folder)");
    char path[PATH_BYTES];
    check_path(L, fn, path, sizeof path);
    if (!*path)
        return ona__lua_argerror(L, 1, fn, "the path names no file");
    if (lua_type(L, 2) != LUA_TSTRING)
        return ona__lua_argerror(
            L, 2, fn, lua_pushfstring(L, "string expected, got %s", luaL_typename(L, 2)));
    size_t size;
    const char *data = lua_tolstring(L, 2, &size);
    char err[PATH_BYTES + 256];
    int rc = ona__fs_write(lua->svc, path, data, size, err, sizeof err);
    if (rc == ONA_ERANGE)
        return ona__lua_raise(L, fn, "%s", err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, lua->sys->name, "ona.fs.write %s", err);
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

void ona__lua_open_fs(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"read", l_fs_read},     {"lines", l_fs_lines}, {"list", l_fs_list},
        {"exists", l_fs_exists}, {"info", l_fs_info},   {"write", l_fs_write},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        lua_pushcfunction(L, fns[i].func);
        lua_setfield(L, -2, fns[i].name);
    }
}
