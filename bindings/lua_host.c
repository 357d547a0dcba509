/*
 * lua_host.c: a Lua system's state: creation with a counting allocator, the prelude, its script's
 * chunk, and its end (lua_host.h). Spawning and the host table are in lua_spawn.c, turns in
 * lua_turn.c, reloads in lua_reload.c.
 *
 * Design note.
 *  - Every Lua system has its own lua_State made with a counting allocator (lua_alloc.c) whose
 *    user pointer is the system's ona__lua, so memory per system is reported and its cap (the
 *    runtime's default unless the spawn says otherwise) becomes an out-of-memory error in that
 *    system only. The user pointer is also how the `ona` bindings find their system from any
 *    coroutine of the state.
 *  - A script that returns nothing is a one-shot: its chunk was its whole life; it ends at the
 *    next frame boundary.
 *  - A spawn builds only what every system needs: the standard libraries a script may
 *    never touch are opened on first use (std_libs), as are the `ona` groups (l_modules.c), and the
 *    hot reload's steps are compiled at a system's first reload (reload_chunk).
 *  - A sandboxed system's state is built as every other, and then, after the prelude and before
 *    the script's chunk, loses what the sandbox takes away (lua_sandbox.c).
 */
#include "lua_host.h"
#include "lua_lazy.h"
#include "lua_watchdog.h"

#include "l_message.h"
#include "l_modules.h"
#include "l_ona.h"
#include "lua_check.h"
#include "lua_chunks.h"
#include "lua_sandbox.h"

#include <lauxlib.h>
#include <luajit.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

/* --- The state ------------------------------------------------------------------------------- */

extern const unsigned char ona_prelude_lua[];
extern const unsigned long ona_prelude_lua_size;
extern const unsigned char ona_inbox_lua[];
extern const unsigned long ona_inbox_lua_size;

/* package.preload["ona.inbox"]: the message protocol module (scripts/inbox.lua) ships inside the
 * library, so every game can require it without a copy of its own. */
static int load_inbox(lua_State *L) {
    if (luaL_loadbuffer(L, (const char *)ona_inbox_lua, ona_inbox_lua_size, "=ona/inbox.lua"))
        return lua_error(L);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* raw.reload_chunk() -> the function that makes the hot reload's steps: the text from
 * the "--@reload" line of scripts/prelude.lua to the end of the long comment that holds it,
 * compiled now, at a system's first reload, rather than at every spawn. Its lines keep their
 * numbers in prelude.lua (as many newlines go first) and its chunk name is the prelude's, so
 * ona__lua_author_line passes over its frames as over the rest of the prelude. */
static int reload_chunk(lua_State *L) {
    static const char marker[] = "\n--@reload\n";
    const char *text = (const char *)ona_prelude_lua;
    size_t size = ona_prelude_lua_size;
    const char *begin = memmem(text, size, marker, sizeof marker - 1);
    const char *end = NULL;
    if (begin) {
        begin++;
        end = memmem(begin, size - (size_t)(begin - text), "\n]==]", 5);
    }
    if (!begin || !end)
        return luaL_error(L, "prelude.lua: the hot reload's text (--@reload) is missing");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *p = text; p < begin; p++)
        if (*p == '\n')
            luaL_addchar(&b, '\n');
    luaL_addlstring(&b, begin, (size_t)(end - begin));
    luaL_pushresult(&b);
    size_t len;
    const char *chunk = lua_tolstring(L, -1, &len);
    if (ona__lua_chunk_load(L, chunk, len, ONA__PRELUDE_CHUNK, "t"))
        return lua_error(L);
    /* Interpreted only, with every function it makes: run once a reload, its loops would only
     * start traces that abort (pairs, recursion), each abort a C++-style throw whose unwinder
     * searches the frame tables of every state's machine code. */
    luaJIT_setmode(L, -1, LUAJIT_MODE_ALLFUNC | LUAJIT_MODE_OFF);
    return 1;
}

/* Builds "root1/?.lua;root1/?/init.lua;root2/?.lua;..." for package.path. */
static void build_package_path(const ona__services *svc, luaL_Buffer *b) {
    for (uint32_t i = 0; i < svc->root_count; i++) {
        if (i)
            luaL_addchar(b, ';');
        luaL_addstring(b, svc->roots[i]);
        luaL_addstring(b, "/?.lua;");
        luaL_addstring(b, svc->roots[i]);
        luaL_addstring(b, "/?/init.lua");
    }
}

/* --- The standard libraries, some opened on first use ---------------------------------------
 * luaL_openlibs was a third of a spawn's instructions. The libraries a script may well never
 * touch (io, os, math, debug, bit) are instead, under their usual global and package.loaded
 * names, an empty table whose metatable opens the library into that very table on the first
 * read or write of any field and then goes away (LuaJIT's luaopen_* fill the table they find in
 * package.loaded): from then on it is the library's own plain table, the same for `io` and
 * `require("io")`. Fields stored raw before the opening (the prelude's os.exit) are kept. base,
 * package, table, string (the string metatable's __index) and jit (whose opening switches the
 * JIT compiler on) open at once, as ffi stays in package.preload. */
typedef struct std_lib {
    const char *name;
    lua_CFunction open;
    bool lazy;
} std_lib;

static const std_lib std_libs[] = {
    {"", luaopen_base, false},
    {LUA_LOADLIBNAME, luaopen_package, false},
    {LUA_TABLIBNAME, luaopen_table, false},
    {LUA_IOLIBNAME, luaopen_io, true},
    {LUA_OSLIBNAME, luaopen_os, true},
    {LUA_STRLIBNAME, luaopen_string, false},
    {LUA_MATHLIBNAME, luaopen_math, true},
    {LUA_DBLIBNAME, luaopen_debug, true},
    {LUA_BITLIBNAME, luaopen_bit, true},
    {LUA_JITLIBNAME, luaopen_jit, false},
};

/* The lazy libraries' filler (lua_lazy.h): fill(stub, index in std_libs). The fields stored in
 * the stub so far are set aside, luaopen_* fills the stub, and they are put back over it. */
static int lib_fill(lua_State *L) {
    lua_Integer index = lua_tointeger(L, 2);
    if (index < 0 || index >= (lua_Integer)ONA_ARRAY_COUNT(std_libs) || !std_libs[index].lazy)
        return luaL_error(L, "no lazy library %d", (int)index);
    const std_lib *lib = &std_libs[index];
    lua_settop(L, 1);
    lua_newtable(L); /* 2: the stub's own fields */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 2);
    }
    lua_pushcfunction(L, lib->open);
    lua_pushstring(L, lib->name);
    lua_call(L, 1, 0);
    if (lib->open == luaopen_math) {
        /* LuaJIT's math.random starts every state from one fixed seed: each system gets its
         * own instead, from the session seed, its name and its spawn order (a restart replays
         * it). A double holds the seed exactly (below 2^53). */
        lua_getfield(L, 1, "randomseed");
        uint64_t seed = ona__services_default_seed(ona__lua_of(L)->sys, ONA__SEED_MATH_RANDOM);
        lua_pushnumber(L, (lua_Number)seed);
        lua_call(L, 1, 0);
    }
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, 1);
    }
    return 0;
}

/* What luaL_openlibs does, with the lazy libraries as stubs. */
static void open_std_libs(lua_State *L) {
    for (size_t i = 0; i < ONA_ARRAY_COUNT(std_libs); i++) {
        if (std_libs[i].lazy)
            continue;
        lua_pushcfunction(L, std_libs[i].open);
        lua_pushstring(L, std_libs[i].name);
        lua_call(L, 1, 0);
    }
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    int loaded = lua_gettop(L);
    ona__lua_lazy_push_methods(L);
    lua_pushcfunction(L, lib_fill);
    for (size_t i = 0; i < ONA_ARRAY_COUNT(std_libs); i++) {
        if (!std_libs[i].lazy)
            continue;
        ona__lua_lazy_table(L, loaded + 1, loaded + 3, (lua_Integer)i);
        lua_pushvalue(L, -1);
        lua_setfield(L, loaded, std_libs[i].name); /* package.loaded */
        lua_setglobal(L, std_libs[i].name);
    }
    lua_pop(L, 4);
    lua_getfield(L, LUA_REGISTRYINDEX, "_PRELOAD");
    lua_pushcfunction(L, luaopen_ffi);
    lua_setfield(L, -2, LUA_FFILIBNAME);
    lua_pop(L, 1);
}

/* Runs under lua_cpcall: opens the libraries and the `ona` module and runs the prelude (which
 * returns the turn trampoline and the reload function, kept in the registry). Nothing here is the
 * system's own (its name, cap, seed, args or script): a state built so far is the same for every
 * spawn of the runtime, which is what lets it be built ahead (lua_pool.c). */
static int open_base(lua_State *L) {
    ona__lua *lua = lua_touserdata(L, 1);
    ona__services *svc = lua->svc;
    lua_settop(L, 0);
    /* No collection while the libraries and the prelude are set up: nearly everything made
     * here lives on, so the collector's steps would only trace it (~8% of a spawn's
     * instructions). It restarts before the script's chunk, which may make garbage. */
    lua_gc(L, LUA_GCSTOP, 0);
    open_std_libs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, load_inbox);
    lua_setfield(L, -2, "ona.inbox");
    lua_pop(L, 2);
    ona__lua_register_types(L);
    ona__lua_open_modules(L); /* pushes ona, raw */
    lua_pushcfunction(L, reload_chunk);
    lua_setfield(L, -2, "reload_chunk");
    ona__lua_open_files(L);
    ona__lua_open_watchdog(L);
    lua_pushvalue(L, -2);
    lua_setglobal(L, "ona");
    /* The prelude's bytecode, compiled once per runtime, loads faster than its source. */
    const ona__lua_runtime *host = svc->core->host_state[ONA__HOST_SCRIPT];
    const char *prelude =
        host && host->prelude_bc ? host->prelude_bc : (const char *)ona_prelude_lua;
    size_t prelude_size = host && host->prelude_bc ? host->prelude_bc_size : ona_prelude_lua_size;
    if (luaL_loadbuffer(L, prelude, prelude_size, "=prelude.lua"))
        return lua_error(L);
    lua_insert(L, -3); /* prelude, ona, raw */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    build_package_path(svc, &b);
    luaL_pushresult(&b);
    lua_call(L, 3, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, ONA__RELOAD_KEY);
    lua->turn_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    lua_newtable(L);
    lua->state_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    lua->events_ref = luaL_ref(L, LUA_REGISTRYINDEX);

    lua_gc(L, LUA_GCRESTART, 0);
    return 0;
}

/* Runs under lua_cpcall on a state open_base built: what is the system's own. Strips a
 * sandboxed state, then loads and runs the script chunk with the spawn args and keeps what it
 * returned. */
static int open_script(lua_State *L) {
    ona__lua *lua = lua_touserdata(L, 1);
    lua_settop(L, 0);
    /* Per spawn, never in a state built ahead: the prelude has taken what it keeps
     * (lua_sandbox.c). */
    if (lua->sandboxed)
        ona__lua_sandbox(L);
    ona__lua_record_warnings(L, lua->svc->core); /* a recording's blind spots say so */
    /* Read as the loaders read (a replay's recorded reload stands in for the disk, a packed
     * game's archive is read through the path table) and loaded as the one bytecode every
     * state of these bytes loads (lua_chunks.c); the chunk is "@path", so errors read
     * path:line: message. */
    if (ona__lua_load_source(L, lua->script_path, lua->sandboxed))
        return lua_error(L);
    /* The chunk gets the spawn args too (`local args = ...`): a one-shot main.lua has no init. */
    if (ona__lua_push_args(lua, L) != 0)
        return luaL_error(L, "%s: the spawn args could not be copied", lua->script_path);
    lua_call(L, 1, 1);
    if (lua_istable(L, -1)) {
        lua->module_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua->sys->one_shot = true;
    } else {
        return luaL_error(L,
                          "%s: a system script must return a table of callbacks (init, "
                          "receive, process, exit, reload) or nothing, not a %s",
                          lua->script_path, luaL_typename(L, -1));
    }
    return 0;
}

/* A Lua error outside any protected call cannot be recovered: say which system it was before
 * LuaJIT ends the process. The runtime keeps its own calls protected or under a lifted cap, so
 * only a real out-of-memory of the process gets here. */
static int on_panic(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    ona_log(ONA_LOG_ERROR, lua && lua->sys ? lua->sys->name : "lua",
            "unprotected Lua error, aborting: %s",
            lua_tostring(L, -1) ? lua_tostring(L, -1) : "(not a string)");
    return 0;
}

typedef struct error_text {
    ona__lua *lua;
    char *buf;
    size_t size;
} error_text;

static int describe_error(lua_State *L) {
    error_text *e = lua_touserdata(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "ona.error_value");
    ona__lua_error_text(e->lua, L, e->buf, e->size);
    return 0;
}

/* Pops the error value at the top of the state and writes it as text: strings as they are,
 * anything else described (its __tostring, or its type), protected since that may allocate. */
static void error_value_text(ona__lua *lua, char *buf, size_t size) {
    lua_State *L = lua->L;
    if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
        snprintf(buf, size, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "ona.error_value");
    error_text e = {lua, buf, size};
    if (lua_cpcall(L, describe_error, &e) != 0) {
        lua_pop(L, 1);
        snprintf(buf, size, "an error value that could not be described (out of memory)");
    }
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "ona.error_value");
}

void ona__lua_init(ona__lua *lua, ona__services *svc) {
    lua->svc = svc;
    lua->co_ref = lua->module_ref = lua->state_ref = lua->events_ref = lua->turn_ref = LUA_NOREF;
    ona_message_init(&lua->args);
}

/* A failed lua_cpcall of the load (rc): the reason into err, the state closed. */
static int load_failed(ona__lua *lua, int rc, char *err, size_t errsize) {
    error_value_text(lua, err, errsize);
    int code = rc == LUA_ERRMEM ? ONA_ENOMEM : ONA_ESCRIPT;
    if (rc == LUA_ERRMEM && lua->mem_exceeded)
        snprintf(err, errsize, "%s: exceeded its memory cap of %zu bytes while loading",
                 lua->script_path ? lua->script_path : "a Lua state", lua->mem_cap);
    ona__lua_closestate(lua);
    return code;
}

int ona__lua_build(ona__lua *lua, char *err, size_t errsize) {
    lua->mem_used = lua->mem_peak = 0;
    lua->mem_exceeded = false;
    lua_State *L = ona__lua_newstate(lua);
    if (!L) {
        snprintf(err, errsize, "could not create a Lua state%s",
                 lua->mem_cap ? " (memory cap too small?)" : "");
        return ONA_ENOMEM;
    }
    lua_atpanic(L, on_panic);
    lua->L = L;
    lua->co = NULL;
    lua->co_ref = lua->module_ref = lua->state_ref = lua->events_ref = lua->turn_ref = LUA_NOREF;
    int rc = lua_cpcall(L, open_base, lua);
    return rc ? load_failed(lua, rc, err, errsize) : 0;
}

int ona__lua_load(ona__lua *lua, char *err, size_t errsize) {
    if (lua->mem_cap == ONA_MEMORY_UNCAPPED)
        lua->mem_cap = 0; /* "no cap" inside the host, as stats and ona.memory() report it */
    /* A state built ahead was built uncapped: one whose build went past this system's cap is
     * built again under it, to fail as it would have. Its counts are the same as a fresh
     * state's (the build is the same), so ona.memory() and the cap see no difference. */
    if (lua->L && lua->mem_cap && lua->mem_peak > lua->mem_cap)
        ona__lua_closestate(lua);
    if (!lua->L) {
        int rc = ona__lua_build(lua, err, errsize);
        if (rc)
            return rc;
    }
    lua->sys->one_shot = false;
    ona__watch_scope watch; /* the chunk (main.lua's included) runs under the budget */
    ona__lua_watch_begin(lua, "chunk", &watch);
    int rc = lua_cpcall(lua->L, open_script, lua);
    ona__watchdog_end(&watch);
    if (rc)
        return load_failed(lua, rc, err, errsize);
    lua_State *L = lua->L;
    lua_settop(L, 0);
    if (!lua->sys->one_shot) {
        /* The turn's values (lua_host.h). An empty main stack has LUA_MINSTACK (20) free
         * slots, so these pushes (and push_start's four copies above them) never grow it:
         * nothing here can fail. */
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua->turn_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua->module_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua->state_ref);
        lua_rawgeti(L, LUA_REGISTRYINDEX, lua->events_ref);
    }
    return 0;
}

static int call_exit(lua_State *L) {
    ona__lua *lua = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lua->module_ref);
    lua_getfield(L, -1, "exit");
    if (!lua_isfunction(L, -1))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lua->state_ref);
    lua_call(L, 1, 0);
    return 0;
}

void ona__lua_close(ona__lua *lua, bool run_exit) {
    if (!lua->L)
        return;
    if (run_exit && lua->module_ref != LUA_NOREF) {
        ona__watch_scope watch;
        ona__lua_watch_begin(lua, "exit", &watch);
        int rc = lua_cpcall(lua->L, call_exit, lua);
        ona__watchdog_end(&watch);
        if (rc) {
            char text[512];
            error_value_text(lua, text, sizeof text);
            ona_log(ONA_LOG_ERROR, lua->sys->name, "exit: %s", text);
        }
    }
    ona__lua_closestate(lua);
    lua->co = NULL;
}

int ona__lua_push_args(ona__lua *lua, lua_State *L) {
    if (!lua_checkstack(L, 2 + (int)ona_message_count(&lua->args)))
        return ONA_ENOMEM;
    if (ona_message_count(&lua->args) == 0) {
        lua_pushnil(L);
        return 0;
    }
    ona_message copy;
    char err[256];
    int rc = ona__message_clone(&lua->args, &copy);
    if (rc)
        return rc;
    int n = ona__message_decode_lua(&copy, L, err, sizeof err);
    ona_message_release(&copy);
    if (n < 0)
        return n;
    if (n == 0)
        lua_pushnil(L);
    else if (n > 1)
        lua_pop(L, n - 1);
    return 0;
}

void ona__lua_free(ona__lua *lua) {
    ona__lua_close(lua, false);
    ona_message_release(&lua->args);
    ona__free(lua->script_path);
    ona__free(lua);
}

/* --- The prelude's bytecode ------------------------------------------------------------------ */

typedef struct bytecode {
    char *data;
    size_t size, capacity;
    bool failed;
} bytecode;

static int write_bytecode(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    bytecode *bc = ud;
    if (bc->size + size > bc->capacity) {
        size_t cap = bc->capacity ? bc->capacity * 2 : 16384;
        while (cap < bc->size + size)
            cap *= 2;
        char *grown = ona__realloc(bc->data, cap);
        if (!grown) {
            bc->failed = true;
            return 1;
        }
        bc->data = grown;
        bc->capacity = cap;
    }
    memcpy(bc->data + bc->size, p, size);
    bc->size += size;
    return 0;
}

int ona__lua_prepare(ona__core *core, void **state) {
    ona__lua_runtime *host = ona__calloc(1, sizeof *host);
    *state = host;
    lua_State *L = host ? luaL_newstate() : NULL;
    if (!L)
        return 0;
    bytecode bc = {0};
    int rc =
        luaL_loadbuffer(L, (const char *)ona_prelude_lua, ona_prelude_lua_size, "=prelude.lua");
    if (rc == 0)
        rc = lua_dump(L, write_bytecode, &bc);
    if (rc || bc.failed) {
        /* Not fatal: every spawn then compiles the source, as it would without this. */
        ona_log(ONA_LOG_WARN, "runtime", "prelude bytecode not made (%s); loading its source",
                lua_isstring(L, -1) ? lua_tostring(L, -1) : "out of memory");
        ona__free(bc.data);
        bc.data = NULL;
        bc.size = 0;
    }
    lua_close(L);
    host->prelude_bc = bc.data;
    host->prelude_bc_size = bc.size;
    ona__lua_prebuilt_init(host);
    ona__lua_prebuilt_fill(core);
    return 0;
}

void ona__lua_between_frames(ona__core *core, void *state) {
    (void)state;
    ona__lua_prebuilt_fill(core);
}

void ona__lua_release(ona__core *core, void *state) {
    (void)core;
    ona__lua_runtime *host = state;
    if (host) {
        ona__lua_prebuilt_release(host);
        ona__free(host->prelude_bc);
    }
    ona__free(host);
}
