/*
 * lua_files.c: the files a Lua system's code comes from (lua_sandbox.h): `require`'s search and
 * load of modules for every system, and a sandboxed system's loadfile, dofile and
 * package.searchpath.
 *
 * Design note. A module is looked for along package.path's templates as Lua does ("?" becomes
 * the name with its dots made slashes), but each candidate is resolved by
 * ona__paths_resolve_game, the rule every asset path follows: a relative candidate under the
 * game's script roots and never in the working directory, and whatever it resolves to (after
 * `..` and symbolic links) inside a root. A candidate outside (an absolute template elsewhere, a
 * `..` that leaves the folder, a link out), a name with a NUL byte, and a FIFO, folder or device
 * where a module's file should be are misuses: they raise at the line of the `require`, never a
 * silent "not found" and never a read that blocks (the file is read by ona__read_file, which
 * opens without blocking and refuses anything but a regular file). Candidates that do not exist
 * are handed back to the prelude's loader, which watches them so that creating the module
 * reloads the systems that wanted it. A sandboxed system loads source only: a file that holds
 * bytecode is refused by its first byte (and by LuaJIT's text mode), since LuaJIT does not
 * verify bytecode and a forged chunk can read and write any memory.
 */
#include "lua_sandbox.h"

#include "lua_check.h"
#include "lua_chunks.h"
#include "lua_host.h"
#include "paths.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

enum { PATH_BYTES = 4096 };

static bool blank(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
            return false;
    return true;
}

/* ona__lua_load_source, and a module's refusal of an empty file during a hot reload (a save
 * caught between truncating and writing). */
static int load_file(lua_State *L, const char *path, bool text_only, bool refuse_blank) {
    uint8_t *data;
    size_t size;
    int rc = ona__read_file(path, ONA__LUA_SOURCE_MAX_BYTES, &data, &size);
    if (rc) {
        lua_pushfstring(L, "%s: %s", path, ona__paths_why(rc, path));
        return LUA_ERRFILE;
    }
    char chunkname[PATH_BYTES + 2];
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    int status;
    bool binary = text_only && size > 0 && data[0] == LUA_SIGNATURE[0];
    bool empty = refuse_blank && blank(data, size);
    if (binary || empty)
        status = LUA_ERRSYNTAX;
    else
        status =
            ona__lua_chunk_load(L, (const char *)data, size, chunkname, text_only ? "t" : NULL);
    ona__free(data); /* before anything below can raise */
    if (binary)
        lua_pushfstring(L,
                        "%s: a binary chunk (bytecode) is refused in a sandboxed system: it "
                        "loads Lua source only",
                        path);
    else if (empty)
        lua_pushfstring(L, "%s is empty (a save caught mid-write?): keeping the old module", path);
    return status;
}

int ona__lua_load_source(lua_State *L, const char *path, bool text_only) {
    return load_file(L, path, text_only, false);
}

/* Appends to `out` (of `size` bytes, `*len` used) `n` bytes of `s`; false when they do not fit. */
static bool append(char *out, size_t size, size_t *len, const char *s, size_t n) {
    if (*len + n >= size)
        return false;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
    return true;
}

/* The part of `candidate` below the script root it starts with (the runtime's templates are
 * "root/?.lua"), so that a relative root is not applied twice; else `candidate` itself. An
 * absolute root's candidates resolve as they are, inside it. */
static const char *under_root(const ona__services *svc, const char *candidate) {
    for (uint32_t i = 0; i < svc->root_count; i++) {
        const char *root = svc->roots[i];
        size_t n = strlen(root);
        if (root[0] != '/' && n && strncmp(candidate, root, n) == 0 && candidate[n] == '/')
            return candidate + n + 1;
    }
    return candidate;
}

/* The candidate of `template` (n bytes) for `stem`: every "?" replaced. False when too long. */
static bool candidate_of(const char *template, size_t n, const char *stem, char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        bool ok = template[i] == '?' ? append(out, size, &len, stem, strlen(stem))
                                     : append(out, size, &len, template + i, 1);
        if (!ok)
            return false;
    }
    return true;
}

/* Looks module `name` up along `templates` (package.path) in the game folder, `sep` in the name
 * read as `rep` (".", "/" for require). 0 with the file's resolved path in `path`; ONA_ENOENT
 * with every candidate appended to the table at `missed`. Raises, under the name `fn`, at the
 * author's line for a NUL byte, a candidate outside the game folder, one too long, and one that
 * is not a regular file. */
static int search(lua_State *L, const char *fn, int name_arg, int templates_arg, const char *sep,
                  const char *rep, char *path, size_t size, int missed) {
    size_t name_len, templates_len;
    const char *name = ona__lua_checkstring(L, name_arg, fn, &name_len);
    const char *templates = lua_tolstring(L, templates_arg, &templates_len);
    if (!templates)
        ona__lua_raise(L, fn, "package.path must be a string, not %s",
                       luaL_typename(L, templates_arg));
    if (strlen(name) != name_len)
        ona__lua_argerror(L, name_arg, fn, "the module name holds a NUL byte");
    if (strlen(templates) != templates_len)
        ona__lua_raise(L, fn, "package.path holds a NUL byte");
    char stem[PATH_BYTES];
    if (name_len >= sizeof stem)
        ona__lua_argerror(L, name_arg, fn, "the module name is too long");
    size_t stem_len = 0;
    stem[0] = '\0';
    size_t sep_len = strlen(sep);
    for (const char *c = name; *c;) {
        bool at_sep = sep_len && strncmp(c, sep, sep_len) == 0;
        if (!append(stem, sizeof stem, &stem_len, at_sep ? rep : c, at_sep ? strlen(rep) : 1))
            ona__lua_argerror(L, name_arg, fn, "the module name is too long");
        c += at_sep ? sep_len : 1;
    }
    const ona__services *svc = ona__lua_of(L)->svc;
    char candidate[PATH_BYTES];
    int n = (int)lua_objlen(L, missed);
    for (const char *t = templates; *t;) {
        const char *end = strchr(t, ';');
        size_t len = end ? (size_t)(end - t) : strlen(t);
        if (len > 0) {
            if (!candidate_of(t, len, stem, candidate, sizeof candidate))
                ona__lua_raise(L, fn, "module '%s': a candidate path is too long", name);
            int rc = ona__paths_resolve_game(svc->roots, svc->root_count,
                                             under_root(svc, candidate), path, size);
            if (rc == 0)
                return 0;
            if (rc == ONA_EPATH)
                ona__lua_raise(L, fn, "module '%s': '%s' (from package.path) is %s", name,
                               candidate, ona__paths_why(rc, NULL));
            if (rc == ONA_ERANGE)
                ona__lua_raise(L, fn, "module '%s': the path of '%s' is too long", name, candidate);
            if (rc != ONA_ENOENT)
                ona__lua_raise(L, fn, "module '%s': %s %s", name, path, ona__paths_why(rc, path));
            lua_pushstring(L, path);
            lua_rawseti(L, missed, ++n);
        }
        t += len;
        if (*t == ';')
            t++;
    }
    return ONA_ENOENT;
}

/* Pushes Lua's words for a module not found: "\n\tno file 'candidate'" for each candidate. */
static void push_not_found(lua_State *L, int missed) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int n = (int)lua_objlen(L, missed);
    for (int i = 1; i <= n; i++) {
        luaL_addstring(&b, "\n\tno file '");
        lua_rawgeti(L, missed, i);
        luaL_addvalue(&b);
        luaL_addchar(&b, '\'');
    }
    luaL_pushresult(&b);
}

/* raw.module(name, package.path, reloading) -> file, chunk | nil, "\n\tno file ...", candidates:
 * the search of the prelude's `require` loader. A file that does not compile raises its own
 * "file:line: message"; while reloading, an empty file raises too. */
static int l_raw_module(lua_State *L) {
    lua_settop(L, 3);
    bool reloading = lua_toboolean(L, 3);
    lua_newtable(L); /* 4: the candidates that do not exist */
    char path[PATH_BYTES];
    if (search(L, "require", 1, 2, ".", "/", path, sizeof path, 4) != 0) {
        lua_pushnil(L);
        push_not_found(L, 4);
        lua_pushvalue(L, 4);
        return 3;
    }
    lua_pushstring(L, path);
    if (load_file(L, path, ona__lua_of(L)->sandboxed, reloading) != 0)
        return lua_error(L);
    return 2;
}

int ona__lua_sandbox_searchpath(lua_State *L) {
    const char *sep = luaL_optstring(L, 3, ".");
    const char *rep = luaL_optstring(L, 4, "/");
    lua_settop(L, 4);
    lua_newtable(L); /* 5 */
    char path[PATH_BYTES];
    if (search(L, "package.searchpath", 1, 2, sep, rep, path, sizeof path, 5) != 0) {
        lua_pushnil(L);
        push_not_found(L, 5);
        return 2;
    }
    lua_pushstring(L, path);
    return 1;
}

/* The file named by argument 1 of loadfile or dofile (`fn`), resolved into `path`: 0, ONA_ENOENT
 * or ONA_ENOTFILE (for the caller to report); raises for what can never be loaded (no name,
 * which would read standard input; a NUL byte; a path outside the game folder). */
static int resolve_arg(lua_State *L, const char *fn, char *path, size_t size) {
    size_t len;
    const char *name = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
    if (!name) {
        lua_pushfstring(L,
                        "a file name expected, got %s: a sandboxed system reads no standard "
                        "input",
                        luaL_typename(L, 1));
        ona__lua_argerror(L, 1, fn, lua_tostring(L, -1));
    }
    if (strlen(name) != len)
        ona__lua_argerror(L, 1, fn, "the path holds a NUL byte");
    if (len == 0)
        ona__lua_argerror(L, 1, fn, "the path is empty");
    const ona__services *svc = ona__lua_of(L)->svc;
    int rc = ona__paths_resolve_game(svc->roots, svc->root_count, name, path, size);
    ona__lua_check_game_path(L, 1, fn, name, rc);
    return rc;
}

int ona__lua_sandbox_loadfile(lua_State *L) {
    char path[PATH_BYTES];
    int rc = resolve_arg(L, "loadfile", path, sizeof path);
    if (rc) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", lua_tostring(L, 1), ona__paths_why(rc, path));
        return 2;
    }
    if (ona__lua_load_source(L, path, true) != 0) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (lua_istable(L, 3)) {
        lua_pushvalue(L, 3);
        lua_setfenv(L, -2);
    }
    return 1;
}

int ona__lua_sandbox_dofile(lua_State *L) {
    char path[PATH_BYTES];
    int rc = resolve_arg(L, "dofile", path, sizeof path);
    if (rc)
        return ona__lua_raise(L, "dofile", "'%s': %s", lua_tostring(L, 1),
                              ona__paths_why(rc, path));
    lua_settop(L, 1);
    if (ona__lua_load_source(L, path, true) != 0)
        return lua_error(L);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

static int l_raw_ffi(lua_State *L) {
    ona__lua_push_ffi(L);
    return 1;
}

/* raw.load_script(path) -> chunk | nil, message: the system's own script read again for a hot
 * reload, as its spawn read it. */
static int l_raw_load_script(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    if (load_file(L, path, ona__lua_of(L)->sandboxed, false) != 0) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    return 1;
}

/* raw.requirer() -> file | nil: the file of the first caller above require whose source is
 * "@file" (levels 3-6 from here, past the prelude's note_requirer and its loader: LuaJIT's
 * require, the prelude's require, then the author's code); a reload of the required module
 * re-runs that file's module too. */
static int l_raw_requirer(lua_State *L) {
    lua_Debug ar;
    for (int level = 3; level <= 6 && lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "S", &ar) && ar.source && ar.source[0] == '@') {
            lua_pushstring(L, ar.source + 1);
            return 1;
        }
    }
    return 0;
}

void ona__lua_open_files(lua_State *L) {
    lua_pushcfunction(L, l_raw_requirer);
    lua_setfield(L, -2, "requirer");
    lua_pushcfunction(L, l_raw_module);
    lua_setfield(L, -2, "module");
    lua_pushcfunction(L, l_raw_load_script);
    lua_setfield(L, -2, "load_script");
    lua_pushcfunction(L, l_raw_ffi);
    lua_setfield(L, -2, "ffi");
}
