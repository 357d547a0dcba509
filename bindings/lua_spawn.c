/*
 * lua_spawn.c: making Lua systems: ona__lua_spawn and the Lua host's table (lua_host.h).
 *
 * Design note. A spawn resolves the script under the script roots, registers the system with
 * the core first, then runs its chunk on the spawning thread: a missing file or a compile error
 * is returned to the spawner, and a chunk that spawns until max_systems cannot take its own
 * place. A script's ona.spawn and a sandboxed system's script are confined to the game folder as
 * asset paths are (ona__paths_resolve_game); the embedder's C calls may name any file. A chunk
 * that fails leaves the system abandoned: the core frees it at the next boundary
 * without running anything of it. Spawn args may not carry buffers, because a restart replays
 * them.
 */
#include "draw_state.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <stdio.h>

/* --- The host -------------------------------------------------------------------------------- */

static void host_destroy(ona__system *sys, bool run_exit) {
    ona__lua *lua = sys->host_data;
    ona__services *svc = lua->svc;
    ona__lua_close(lua, run_exit);
    ona__lua_free(lua);
    /* After exit, which may still use them (its assets, drawing into its canvases). */
    ona__services_system_ended(svc, sys);
    /* A one-shot's (main.lua's) canvases are the runtime's: its chunk is its whole life, so what
     * it made is for the systems it started. */
    if (!sys->one_shot)
        ona__services_free_canvases(svc, sys->id);
}

static int host_restart(ona__system *sys) {
    ona__lua *lua = sys->host_data;
    ona__lua_close(lua, false);
    char err[512];
    int rc = ona__lua_load(lua, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, sys->name, "restart failed: %s", err);
    return rc;
}

static void host_memory(const ona__system *sys, size_t *used, size_t *peak, size_t *cap) {
    const ona__lua *lua = sys->host_data;
    *used = lua->L ? lua->mem_used : 0;
    *peak = lua->mem_peak;
    *cap = lua->mem_cap;
}

static int host_spawn(ona__core *core, const void *desc_in, ona_system *out);

const ona__host ona__lua_host = {
    .kind = "lua",
    .prepare = ona__lua_prepare,
    .release = ona__lua_release,
    .spawn = host_spawn,
    .run = ona__lua_run,
    .restart = host_restart,
    .reload = ona__lua_reload,
    .check = ona__lua_check,
    .destroy = host_destroy,
    .memory = host_memory,
    .between_frames = ona__lua_between_frames,
};

/* --- Spawning -------------------------------------------------------------------------------- */

static bool message_has_buffer(ona_message *m) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END)
        if (v.type == ONA_VALUE_BUFFER)
            return true;
    return false;
}

/* The system's name: the desc's, else the script's file name without ".lua". */
static void default_name(const ona_spawn_desc *desc, const char *path, char *name, size_t size) {
    if (desc->name && desc->name[0]) {
        snprintf(name, size, "%s", desc->name);
        return;
    }
    const char *base = strrchr(path, '/');
    snprintf(name, size, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".lua") == 0)
        *dot = '\0';
}

int ona__lua_spawn(ona__services *svc, const ona_spawn_desc *desc, bool confined, ona_system *out,
                   char *err, size_t errsize) {
    ona_message *args = desc ? desc->args : NULL;
    char path[4096];
    int rc = 0;
    bool sandboxed = desc && (desc->sandbox || (svc && svc->sandbox));
    if (!svc || !desc || !out || !desc->script) {
        snprintf(err, errsize, "spawn needs a runtime, a desc with a script, and an out handle");
        rc = ONA_EINVAL;
    } else if (args && message_has_buffer(args)) {
        snprintf(err, errsize,
                 "spawn arguments cannot carry buffers (a restart replays them): "
                 "send the buffer as a message instead");
        rc = ONA_EINVAL;
    } else if ((rc = confined || sandboxed
                         ? ona__paths_resolve_game(svc->roots, svc->root_count, desc->script, path,
                                                   sizeof path)
                         : ona__services_find(svc, desc->script, path, sizeof path)) != 0) {
        if (rc == ONA_ERANGE)
            snprintf(err, errsize, "the path of script '%s' is too long", desc->script);
        else if (rc == ONA_EPATH)
            snprintf(err, errsize, "script '%s' is %s", desc->script, ona__paths_why(rc, NULL));
        else if (rc == ONA_ENOTFILE || rc == ONA_EIO)
            snprintf(err, errsize, "script '%s' %s", desc->script, ona__paths_why(rc, path));
        else
            snprintf(err, errsize, "no such script '%s' (searched the script roots: %s%s)",
                     desc->script, svc->roots[0], svc->root_count > 1 ? ", ..." : "");
    }
    ona__lua *lua = NULL;
    if (rc == 0) {
        /* A state built ahead when one is ready (lua_pool.c), else one built by the load. */
        lua = ona__lua_prebuilt_take(svc);
        if (!lua && (lua = ona__calloc(1, sizeof *lua)) != NULL)
            ona__lua_init(lua, svc);
        if (lua)
            lua->script_path = ona__malloc(strlen(path) + 1);
        if (!lua || !lua->script_path) {
            if (lua)
                ona__lua_free(lua);
            lua = NULL;
            snprintf(err, errsize, "%s", ona_strerror(ONA_ENOMEM));
            rc = ONA_ENOMEM;
        }
    }
    if (rc) {
        if (args)
            ona_message_release(args);
        if (out)
            out->id = 0;
        return rc;
    }
    strcpy(lua->script_path, path);
    lua->sandboxed = sandboxed;
    lua->mem_cap = desc->memory_cap ? desc->memory_cap : svc->memory_cap;
    uint32_t budget_ms = desc->budget_ms ? desc->budget_ms : svc->turn_budget_ms;
    lua->budget_ns = budget_ms == ONA_BUDGET_OFF ? 0 : budget_ms * 1000000ull;
    if (args) {
        lua->args = *args;
        ona_message_init(args);
    }
    char name[64];
    default_name(desc, path, name, sizeof name);
    ona__order_ref after[ONA_MAX_AFTER];
    uint32_t after_count = 0;
    rc = ona__order_refs(desc->after, desc->after_count, desc->after_names,
                         desc->after_name_count, after, &after_count, err, errsize);
    ona__spawn spawn = {
        .name = name,
        .after = after,
        .after_count = after_count,
        .host = &ona__lua_host,
        .host_data = lua,
        .mailbox_capacity = desc->mailbox_capacity,
        .restart_limit = desc->restart_limit,
        .policy = desc->policy,
    };
    ona__system *sys;
    if (rc == 0)
        rc = ona__core_spawn(svc->core, &spawn, &sys, err, errsize);
    if (rc) {
        ona__lua_free(lua);
        out->id = 0;
        return rc;
    }
    lua->sys = sys;
    /* Its chunk is its code running: what it spawns is numbered among its children. */
    ona__system *previous = ona__core_enter(sys);
    rc = ona__lua_load(lua, err, errsize);
    ona__core_leave(previous);
    if (rc) {
        ona__core_abandon(svc->core, sys);
        out->id = 0;
        return rc;
    }
    if (sys->one_shot) {
        /* Its chunk was its whole life: close the state now, end it at the boundary. */
        ona__lua_close(lua, false);
        sys->status = ONA_SYSTEM_STOPPED;
        ona__services_watch_once(svc, path); /* a change is named: it needs a restart */
    } else {
        ona__services_watch(svc, path);
    }
    out->id = sys->id;
    return 0;
}

/* The host's spawn (ona_runtime_spawn, ona_ctx_spawn): the desc's shared fields checked, errors
 * logged. */
static int host_spawn(ona__core *core, const void *desc_in, ona_system *out) {
    const ona_spawn_desc *desc = desc_in;
    const char *bad =
        desc ? ona__core_check_spawn(desc->name, desc->mailbox_capacity, desc->policy) : NULL;
    if (bad) {
        ona_log(ONA_LOG_ERROR, "spawn", "cannot spawn '%s': %s",
                desc->script ? desc->script : "(no script)", bad);
        if (desc->args)
            ona_message_release(desc->args);
        if (out)
            out->id = 0;
        return ONA_EINVAL;
    }
    char err[1024];
    int rc = ona__lua_spawn(core ? core->services : NULL, desc, false, out, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, "spawn", "%s", err);
    return rc;
}
