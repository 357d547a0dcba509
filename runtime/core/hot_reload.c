/*
 * hot_reload.c: file watching and reloading at frame boundaries (hot_reload.h).
 *
 * Design note.
 *  - Directories are watched, not files: editors save by writing a temporary file and renaming
 *    it over the old one, which ends an inotify watch on the old file but shows up in the
 *    directory's watch as an event naming the file. So a replaced file needs no re-arming, and a
 *    burst of events (write, write, rename) for one file in one poll is one change.
 *  - libuv's loop runs only on the main thread, polled with UV_RUN_NOWAIT at the frame
 *    boundary; other threads only add to the `files` list under `lock`.
 *  - A change is applied at the boundary where it is seen, before the frame's turns: every Lua
 *    system whose script or required project module is that file re-runs its script inside its
 *    own lua_State (the prelude's reload function does the swap; see scripts/prelude.lua);
 *    shader files recompile the sprite program; texture files are decoded again and re-uploaded
 *    under the same handle. A failure (compile error, raising chunk or reload hook) logs
 *    file:line and leaves the old code running; the next save is tried again.
 *  - Mailboxes are not touched, so no queued message is lost or reordered by a reload. A turn
 *    suspended in receive/send when the reload happens finishes in the code it started in; its
 *    next turn runs the new code.
 */
#include "hot_reload.h"

#include "l_ona.h"
#include "system.h"

#include <lauxlib.h>
#include <stdio.h>

static int push_string(char ***array, uint32_t *count, uint32_t *capacity, const char *s) {
    if (*count == *capacity) {
        uint32_t cap = *capacity ? *capacity * 2 : 16;
        char **grown = ona__realloc(*array, cap * sizeof *grown);
        if (!grown)
            return ONA_ENOMEM;
        *array = grown;
        *capacity = cap;
    }
    size_t n = strlen(s);
    char *copy = ona__malloc(n + 1);
    if (!copy)
        return ONA_ENOMEM;
    memcpy(copy, s, n + 1);
    (*array)[(*count)++] = copy;
    return 0;
}

static bool contains(char **array, uint32_t count, const char *s) {
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(array[i], s) == 0)
            return true;
    return false;
}

int ona__hot_reload_init(ona__hot_reload *h, bool watch) {
    memset(h, 0, sizeof *h);
    h->enabled = watch;
    if (uv_mutex_init(&h->lock))
        return ONA_ENOMEM;
    if (watch) {
        if (uv_loop_init(&h->loop)) {
            uv_mutex_destroy(&h->lock);
            return ONA_ENOMEM;
        }
        h->loop_ready = true;
    }
    return 0;
}

static void on_dir_closed(uv_handle_t *handle) {
    ona__watch_dir *d = handle->data;
    ona__free(d->path);
    ona__free(d);
}

void ona__hot_reload_free(ona__hot_reload *h) {
    if (h->loop_ready) {
        for (uint32_t i = 0; i < h->dir_count; i++) {
            uv_fs_event_stop(&h->dirs[i]->handle);
            uv_close((uv_handle_t *)&h->dirs[i]->handle, on_dir_closed);
        }
        uv_run(&h->loop, UV_RUN_DEFAULT); /* runs the close callbacks */
        uv_loop_close(&h->loop);
    }
    for (uint32_t i = 0; i < h->file_count; i++)
        ona__free(h->files[i]);
    for (uint32_t i = 0; i < h->changed_count; i++)
        ona__free(h->changed[i]);
    ona__free(h->files);
    ona__free(h->changed);
    ona__free(h->dirs);
    uv_mutex_destroy(&h->lock);
    memset(h, 0, sizeof *h);
}

void ona__hot_reload_watch(ona__hot_reload *h, const char *path) {
    if (!h->enabled || !path || !*path)
        return;
    uv_mutex_lock(&h->lock);
    if (!contains(h->files, h->file_count, path) &&
        push_string(&h->files, &h->file_count, &h->file_capacity, path) != 0)
        ona_log(ONA_LOG_WARN, "hot reload", "out of memory: %s will not be watched", path);
    uv_mutex_unlock(&h->lock);
}

int ona__hot_reload_mark(ona__hot_reload *h, const char *path) {
    if (contains(h->changed, h->changed_count, path))
        return 0;
    return push_string(&h->changed, &h->changed_count, &h->changed_capacity, path);
}

static void on_dir_event(uv_fs_event_t *handle, const char *filename, int events, int status) {
    (void)events;
    ona__watch_dir *d = handle->data;
    ona__hot_reload *h = d->owner;
    if (status < 0 || !filename)
        return;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", d->path, filename);
    uv_mutex_lock(&h->lock);
    bool watched = contains(h->files, h->file_count, path);
    uv_mutex_unlock(&h->lock);
    if (watched && ona__hot_reload_mark(h, path) != 0)
        ona_log(ONA_LOG_WARN, "hot reload", "out of memory: change of %s dropped", path);
}

/* Watches the directory of every file registered since the last boundary. */
static void arm(ona__hot_reload *h) {
    uv_mutex_lock(&h->lock);
    uint32_t count = h->file_count;
    uv_mutex_unlock(&h->lock);
    for (uint32_t i = h->files_armed; i < count; i++) {
        char dir[2048];
        uv_mutex_lock(&h->lock);
        snprintf(dir, sizeof dir, "%s", h->files[i]);
        uv_mutex_unlock(&h->lock);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        bool known = false;
        for (uint32_t k = 0; k < h->dir_count && !known; k++)
            known = strcmp(h->dirs[k]->path, dir) == 0;
        if (known)
            continue;
        if (h->dir_count == h->dir_capacity) {
            uint32_t cap = h->dir_capacity ? h->dir_capacity * 2 : 8;
            ona__watch_dir **grown = ona__realloc(h->dirs, cap * sizeof *grown);
            if (!grown)
                break;
            h->dirs = grown;
            h->dir_capacity = cap;
        }
        ona__watch_dir *d = ona__calloc(1, sizeof *d);
        char *copy = d ? ona__malloc(strlen(dir) + 1) : NULL;
        if (!copy) {
            ona__free(d);
            break;
        }
        strcpy(copy, dir);
        d->path = copy;
        d->owner = h;
        uv_fs_event_init(&h->loop, &d->handle);
        d->handle.data = d;
        int rc = uv_fs_event_start(&d->handle, on_dir_event, dir, 0);
        if (rc) {
            ona_log(ONA_LOG_WARN, "hot reload", "cannot watch %s: %s", dir, uv_strerror(rc));
            uv_close((uv_handle_t *)&d->handle, on_dir_closed);
            continue;
        }
        h->dirs[h->dir_count++] = d;
    }
    h->files_armed = count;
}

/* Runs the prelude's reload function in the system's state (protected). Returns 1 when the
 * system was reloaded, 0 when the file is not one of its scripts, -1 when the reload failed
 * (logged; the old code keeps running). */
typedef struct reload_call {
    ona__system *sys;
    const char *changed;
    int result;
} reload_call;

static int reload_in_state(lua_State *L) {
    reload_call *call = lua_touserdata(L, 1);
    ona__system *sys = call->sys;
    lua_settop(L, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, ONA__RELOAD_KEY);
    lua_rawgeti(L, LUA_REGISTRYINDEX, sys->module_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, sys->state_ref);
    lua_pushstring(L, sys->script_path);
    ona__system_push_args(sys, L);
    lua_pushstring(L, call->changed);
    lua_call(L, 5, 2);
    if (lua_isnil(L, 1)) {
        call->result = 0;
    } else if (lua_toboolean(L, 1)) {
        call->result = 1;
    } else {
        call->result = -1;
        ona_log(ONA_LOG_ERROR, sys->name, "reload of %s failed, the old code keeps running: %s",
                call->changed, lua_tostring(L, 2) ? lua_tostring(L, 2) : "(no message)");
    }
    return 0;
}

static int reload_system(ona__system *sys, const char *changed) {
    if (sys->native || !sys->L || sys->one_shot || sys->module_ref == LUA_NOREF)
        return 0;
    reload_call call = {sys, changed, 0};
    sys->cap_lifted = true;
    int rc = lua_cpcall(sys->L, reload_in_state, &call);
    sys->cap_lifted = false;
    if (rc) {
        ona_log(ONA_LOG_ERROR, sys->name, "reload of %s failed, the old code keeps running: %s",
                changed, lua_tostring(sys->L, -1) ? lua_tostring(sys->L, -1) : "(no message)");
        lua_pop(sys->L, 1);
        return -1;
    }
    return call.result;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void ona__hot_reload_apply(ona_runtime *rt) {
    ona__hot_reload *h = &rt->hot;
    if (h->loop_ready) {
        arm(h);
        uv_run(&h->loop, UV_RUN_NOWAIT);
    }
    for (uint32_t i = 0; i < h->changed_count; i++) {
        const char *path = h->changed[i];
        uint32_t reloaded = 0, failed = 0;
        bool used = false;
        if (rt->video.gfx && (ends_with(path, "/sprite.vert") || ends_with(path, "/sprite.frag"))) {
            used = true;
            if (ona__gfx_reload_shaders(rt->video.gfx) == 0)
                reloaded++;
            else
                failed++;
        }
        int t = ona__textures_reload(&rt->video.textures, path);
        if (t != ONA_ENOENT) {
            used = true;
            if (t == 0)
                reloaded++;
            else
                failed++;
        }
        for (uint32_t s = 0; s < rt->system_count; s++) {
            int r = reload_system(rt->systems[s], path);
            if (r > 0)
                reloaded++;
            else if (r < 0)
                failed++;
        }
        h->reloads += reloaded;
        h->failures += failed;
        if (reloaded || failed || used)
            ona_log(failed ? ONA_LOG_WARN : ONA_LOG_INFO, "hot reload", "%s: %u reloaded%s", path,
                    reloaded, failed ? ", some failed (old code kept)" : "");
        ona__free(h->changed[i]);
    }
    h->changed_count = 0;
}
