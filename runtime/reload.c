/*
 * reload.c: what a changed file does, at the frame boundary (runtime_internal.h).
 *
 * Design note. The core's watcher (core/hot_reload.c) says which files changed since the last
 * boundary; here each change goes to whatever uses that file, before the frame's turns: the
 * sprite shaders recompile (gfx); every asset loaded from the file (a texture, sound, font or
 * game shader) is reloaded under the same handle by the asset registry (services/assets.c), which
 * also fills a texture or sound whose file was missing when it appears; and every Lua system
 * whose script or required project module is that file re-runs its code in its own state
 * (bindings/lua_reload.c). A failure (compile error, raising chunk or reload hook) logs
 * file:line and leaves the old code running; the next save is tried again. A successful reload
 * of a paused system (it failed while files are watched) resumes it with its state kept
 * (ona__core_resume): edit and continue.
 */
#include "lua_host.h"
#include "runtime_internal.h"

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void ona__runtime_apply_reloads(ona_runtime *rt) {
    ona__hot_reload *h = &rt->hot;
    ona__hot_reload_poll(h);
    ona__assets_look_for_missing(&rt->services.assets);
    for (uint32_t i = 0; i < h->changed_count; i++) {
        const char *path = h->changed[i];
        uint32_t reloaded = 0, failed = 0;
        bool used = false;
        ona__video *v = &rt->services.video;
        if (v->gfx && (ends_with(path, "/sprite.vert") || ends_with(path, "/sprite.frag"))) {
            used = true;
            if (ona__gfx_reload_shaders(v->gfx) == 0)
                reloaded++;
            else
                failed++;
        }
        int a = ona__assets_reload(&rt->services.assets, path); /* textures, sounds, fonts */
        if (a != ONA_ENOENT) {
            used = true;
            if (a == 0)
                reloaded++;
            else
                failed++;
        }
        for (uint32_t s = 0; s < rt->core.system_count; s++) {
            ona__system *sys = rt->core.systems[s];
            int r = ona__lua_reload(sys, path);
            if (r > 0) {
                reloaded++;
                ona__core_resume(&rt->core, sys);
            } else if (r < 0)
                failed++;
        }
        h->reloads += reloaded;
        h->failures += failed;
        if (reloaded || failed || used)
            ona_log(failed ? ONA_LOG_WARN : ONA_LOG_INFO, "hot reload", "%s: %u reloaded%s", path,
                    reloaded, failed ? ", some failed (old code kept)" : "");
    }
    ona__hot_reload_clear(h);
}
