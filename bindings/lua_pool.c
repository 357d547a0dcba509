/*
 * lua_pool.c: Lua states built ahead of their spawn (lua_host.h: ona__lua_prebuilt_*).
 *
 * Design note.
 *  - Most of a spawn is the same for every system: a new state, the standard libraries, the
 *    `ona` module, the prelude (lua_host.c's open_base). The runtime keeps ONA__LUA_PREBUILT of
 *    those ready, each inside the ona__lua it was built for (the allocator's user pointer and the
 *    prelude's `raw.self` are that struct's address, so the struct travels with its state). A
 *    spawn takes one and does only what is the system's: its name, cap, budget, args, seed, and
 *    its script's chunk (open_script). The ready states are made at runtime create and topped up
 *    by main between frames (ona__lua_prebuilt_fill), so the build is off the spawner's path: a
 *    spawn inside a turn, or a burst of spawns between two frames, takes a built state while
 *    any is left and builds its own after that, as before.
 *  - A taken state behaves as a fresh one would: nothing ran in it before (a state is used by
 *    one system only and closed with it, never handed back), the bundled LuaJIT's string hash
 *    seed is fixed, math.random is seeded at its first use from the system (lua_host.c's
 *    lib_fill), and its counted bytes are the same as a fresh state's. A system whose cap the
 *    build went past gets a state built under its cap instead, so it fails as it would have.
 *  - Per-spawn settings never go into the ready states: whatever a spawn option changes in the
 *    state (its libraries included) is done after the take, in open_script's part of the load.
 *  - Only while the allocator hook is libc's: a state made under an embedder's allocator (or
 *    the tests' failing one) is made at its spawn, through the hook, as before.
 *  - Thread: the fill is main's between frames (no turn runs, nothing else builds); a take is
 *    any spawning thread's; `lock` orders the two.
 */
#include "lua_host.h"

#include <stdio.h>

void ona__lua_prebuilt_init(ona__lua_runtime *host) {
    host->ready_lock_made = uv_mutex_init(&host->ready_lock) == 0;
}

uint32_t ona__lua_prebuilt_fill(ona__core *core) {
    ona__lua_runtime *host = core->host_state[ONA__HOST_SCRIPT];
    if (!host || !host->ready_lock_made || !ona__allocator_is_default())
        return 0;
    uv_mutex_lock(&host->ready_lock);
    uint32_t have = host->ready_count;
    uv_mutex_unlock(&host->ready_lock);
    uint32_t built = 0;
    for (; have + built < ONA__LUA_PREBUILT; built++) {
        ona__lua *lua = ona__calloc(1, sizeof *lua);
        if (!lua)
            break;
        ona__lua_init(lua, core->services);
        char err[256];
        if (ona__lua_build(lua, err, sizeof err) != 0) {
            /* Not the runtime's failure: the spawns that find none build their own. */
            ona_log(ONA_LOG_DEBUG, "runtime", "no Lua state built ahead: %s", err);
            ona__lua_free(lua);
            break;
        }
        uv_mutex_lock(&host->ready_lock);
        host->ready[host->ready_count++] = lua;
        uv_mutex_unlock(&host->ready_lock);
    }
    return built;
}

ona__lua *ona__lua_prebuilt_take(ona__services *svc) {
    ona__lua_runtime *host = svc->core->host_state[ONA__HOST_SCRIPT];
    if (!host || !host->ready_lock_made || !ona__allocator_is_default())
        return NULL;
    ona__lua *lua = NULL;
    uv_mutex_lock(&host->ready_lock);
    if (host->ready_count)
        lua = host->ready[--host->ready_count];
    uv_mutex_unlock(&host->ready_lock);
    return lua;
}

uint32_t ona__lua_prebuilt_count(ona__core *core) {
    ona__lua_runtime *host = core->host_state[ONA__HOST_SCRIPT];
    if (!host || !host->ready_lock_made)
        return 0;
    uv_mutex_lock(&host->ready_lock);
    uint32_t n = host->ready_count;
    uv_mutex_unlock(&host->ready_lock);
    return n;
}

void ona__lua_prebuilt_release(ona__lua_runtime *host) {
    if (!host->ready_lock_made)
        return;
    for (uint32_t i = 0; i < host->ready_count; i++)
        ona__lua_free(host->ready[i]);
    host->ready_count = 0;
    uv_mutex_destroy(&host->ready_lock);
    host->ready_lock_made = false;
}
