/*
 * runtime_internal.h: what an ona_runtime is made of. Internal to the library's top level
 * (runtime/runtime.c and its neighbours) and to the bindings, which reach the video and the file watcher through it.
 *
 * Layering: runtime/core (actors, scheduler; no Lua, SDL or GL) <- runtime/gfx (window, GL,
 * textures, render queues) and bindings (Lua) <- the top level (runtime.c, native.c, stats.c, reload.c), which ties them together behind the
 * public API. The core never sees this struct: it gets its own ona__core, the first member, so
 * a core pointer converts back with ona__runtime_of.
 */
#ifndef ONA_RUNTIME_INTERNAL_H
#define ONA_RUNTIME_INTERNAL_H

#include "core.h"
#include "hot_reload.h"
#include "paths.h"
#include "video.h"
#include "watchdog.h"

struct ona_runtime {
    ona__core core; /* first: see ona__runtime_of */
    ona_runtime_desc desc; /* defaults applied; script_roots copied into `roots` */
    char **roots;
    uint32_t root_count;
    ona__video video;
    bool core_ready, video_ready, hot_ready;
    ona__hot_reload hot;
    ona__watchdog *watchdog; /* the turn budget's thread (watchdog.c) */
    /* The prelude compiled once (bindings/lua_host.c); NULL: spawns load its source. */
    char *prelude_bc;
    size_t prelude_bc_size;
    uint64_t last_frame_ns, max_frame_ns, total_frame_ns; /* main */
};

static inline ona_runtime *ona__runtime_of(ona__core *core) {
    return (ona_runtime *)core;
}

/* Finds a game file by name under the runtime's script roots (paths.h). */
static inline int ona__runtime_find(ona_runtime *rt, const char *name, char *path, size_t size) {
    return ona__paths_resolve(rt->roots, rt->root_count, name, path, size);
}

/* reload.c: at the frame boundary, applies the file changes seen (scripts, modules, shaders,
 * textures). Main thread. */
void ona__runtime_apply_reloads(ona_runtime *rt);

/* native.c: the host of C systems. */
extern const ona__host ona__native_host;

#endif
