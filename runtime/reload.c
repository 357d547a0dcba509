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
 * (bindings/lua_reload.c). Before any of that, each host checks the file (ona__host.check): a
 * Lua file that does not compile, or is empty, is refused once, with why, and no system sees it.
 * The systems are asked in parallel on the runtime's threads (ona__core_parallel: each reload
 * touches only its own state), and their answers are taken on main in spawn order. A failure
 * (compile error, raising chunk or reload hook) logs file:line and leaves the old code running;
 * the next save is tried again. A successful reload of a paused system (it failed while files
 * are watched) resumes it with its state kept (ona__core_resume): edit and continue. A changed
 * file that no one uses but that ran once at start (main.lua) is named, with what to do.
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

/* Whether a host refuses the changed file as code (logged): it is not applied at all. */
static bool refused(ona_runtime *rt, const char *path) {
    for (int k = 0; k < ONA__HOST_SLOTS; k++) {
        const ona__host *host = rt->core.hosts[k];
        char err[1024];
        int rc = host && host->check ? host->check(path, err, sizeof err) : 0;
        if (rc == ONA_EBUSY) {
            ona_log(ONA_LOG_INFO, "hot reload",
                    "%s: not reloaded (a save between truncating and writing); the rest of the "
                    "save is applied when it comes",
                    err);
            return true;
        }
        if (rc) {
            ona_log(ONA_LOG_WARN, "hot reload",
                    "%s; not reloaded, the old code keeps running (a save caught half-way, or a "
                    "syntax error; the next save of the file is tried)",
                    err);
            rt->hot.failures++;
            return true;
        }
    }
    return false;
}

/* The systems asked about one changed file, and their answers (main's until the job). */
typedef struct reload_job {
    ona__system **systems;
    const char *path;
    int *results;
    ona__paths_snapshot *files; /* the job's view of the files, or NULL */
} reload_job;

static void reload_one(void *ctx, uint32_t index) {
    reload_job *job = ctx;
    ona__system *sys = job->systems[index];
    ona__paths_snapshot *previous = ona__paths_snapshot_enter(job->files);
    job->results[index] = sys->host->reload ? sys->host->reload(sys, job->path) : 0;
    ona__paths_snapshot_enter(previous);
}

void ona__runtime_apply_reloads(ona_runtime *rt) {
    ona__hot_reload *h = &rt->hot;
    ona__hot_reload_poll(h);
    /* A recording writes the changes as inputs of the coming frame; a replay plays its own. */
    ona__record_reloads(&rt->record, rt->core.frame + 1);
    ona__assets_boundary(&rt->services.assets); /* frees, retries, files created unseen */
    int *results = NULL;
    if (h->changed_count) {
        results = ona__calloc(rt->core.system_count + 1, sizeof *results);
        if (!results) { /* the changes stay listed: tried again at the next boundary */
            ona_log(ONA_LOG_WARN, "hot reload", "out of memory: changes applied next frame");
            return;
        }
    }
    for (uint32_t i = 0; i < h->changed_count; i++) {
        const char *path = h->changed[i];
        /* One view of the files for all that this change does (paths_snapshot.c): the check, the
         * assets and every system's reload read each file once, and every system runs the save
         * that was checked. Without memory for it, each reads its own. */
        ona__paths_snapshot *files = ona__paths_snapshot_new();
        ona__paths_snapshot *previous = ona__paths_snapshot_enter(files);
        bool refuse = refused(rt, path);
        if (refuse) {
            ona__paths_snapshot_enter(previous);
            ona__paths_snapshot_free(files);
            continue;
        }
        reload_tally n = {0};
        ona__video *v = &rt->services.video;
        if (v->gfx && (ends_with(path, "/sprite.vert") || ends_with(path, "/sprite.frag")))
            tally(&n, true, ona__gfx_reload_shaders(v->gfx) == 0);
        int a = ona__assets_reload(&rt->services.assets, path); /* textures, sounds, fonts */
        tally(&n, a != ONA_ENOENT, a == 0);
        /* Every system whose host has files asks it, in parallel (each in its own state): >0
         * reloaded, 0 not its file, <0 failed. Then main takes the answers in spawn order. */
        reload_job job = {rt->core.systems, path, results, files};
        ona__core_parallel(&rt->core, rt->core.system_count, reload_one, &job);
        ona__paths_snapshot_enter(previous);
        ona__paths_snapshot_free(files);
        for (uint32_t s = 0; s < rt->core.system_count; s++) {
            int r = results[s];
            tally(&n, r != 0, r > 0);
            if (r > 0)
                ona__core_resume(&rt->core, rt->core.systems[s]);
        }
        h->reloads += n.reloaded;
        h->failures += n.failed;
        if (n.used)
            ona_log(n.failed ? ONA_LOG_WARN : ONA_LOG_INFO, "hot reload", "%s: %u reloaded%s", path,
                    n.reloaded, n.failed ? ", some failed (old code kept)" : "");
        else if (ona__hot_reload_ran_once(h, path))
            ona_log(ONA_LOG_WARN, "hot reload",
                    "%s changed: it ran once, at start, to start the game, so nothing reloads it; "
                    "restart the game to run the new version (the systems' own scripts and "
                    "modules reload while it runs)",
                    path);
    }
    ona__free(results);
    ona__hot_reload_clear(h);
}
