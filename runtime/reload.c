/*
 * reload.c: what a changed file does, at the frame boundary (runtime_internal.h).
 *
 * Design note. The core's watcher (core/hot_reload.c) says which files changed since the last
 * boundary; here each change goes to whatever uses that file, before the frame's turns: the
 * sprite shaders recompile (gfx); every asset loaded from the file (a texture, sound, font or
 * game shader) is reloaded under the same handle by the asset registry (services/assets.c), which
 * also fills a texture or sound whose file was missing when it appears; and every system whose
 * host has files is asked through its table (ona__host.reload): a Lua system whose script or
 * required project module is that file re-runs its code in its own state
 * (bindings/lua_reload.c). A failure (compile error, raising chunk or reload hook) logs
 * file:line and leaves the old code running; the next save is tried again. A successful reload
 * of a paused system (it failed while files are watched) resumes it with its state kept
 * (ona__core_resume): edit and continue.
 */
#include "runtime_internal.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What a changed file did: how many of its users reloaded it, how many failed, and whether it
 * has any user at all. */
typedef struct reload_tally {
    uint32_t reloaded, failed;
    bool used;
} reload_tally;

/* Counts one user's answer: `ours` when the file is its, `ok` when its reload worked. */
static void tally(reload_tally *t, bool ours, bool ok) {
    if (!ours)
        return;
    t->used = true;
    if (ok)
        t->reloaded++;
    else
        t->failed++;
}

void ona__runtime_apply_reloads(ona_runtime *rt) {
    ona__hot_reload *h = &rt->hot;
    ona__hot_reload_poll(h);
    /* A recording writes the changes as inputs of the coming frame; a replay plays its own. */
    ona__record_reloads(&rt->record, rt->core.frame + 1);
    ona__assets_boundary(&rt->services.assets); /* frees, retries, files created unseen */
    for (uint32_t i = 0; i < h->changed_count; i++) {
        const char *path = h->changed[i];
        reload_tally n = {0};
        ona__video *v = &rt->services.video;
        if (v->gfx && (ends_with(path, "/sprite.vert") || ends_with(path, "/sprite.frag")))
            tally(&n, true, ona__gfx_reload_shaders(v->gfx) == 0);
        int a = ona__assets_reload(&rt->services.assets, path); /* textures, sounds, fonts */
        tally(&n, a != ONA_ENOENT, a == 0);
        /* Every system whose host has files asks it: >0 reloaded, 0 not its file, <0 failed. */
        for (uint32_t s = 0; s < rt->core.system_count; s++) {
            ona__system *sys = rt->core.systems[s];
            int r = sys->host->reload ? sys->host->reload(sys, path) : 0;
            tally(&n, r != 0, r > 0);
            if (r > 0)
                ona__core_resume(&rt->core, sys);
        }
        h->reloads += n.reloaded;
        h->failures += n.failed;
        if (n.used)
            ona_log(n.failed ? ONA_LOG_WARN : ONA_LOG_INFO, "hot reload", "%s: %u reloaded%s", path,
                    n.reloaded, n.failed ? ", some failed (old code kept)" : "");
    }
    ona__hot_reload_clear(h);
}
