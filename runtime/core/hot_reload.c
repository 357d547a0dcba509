/*
 * hot_reload.c: watching files for hot reload (hot_reload.h). What a change does (re-running a
 * system's script, recompiling a shader, decoding a texture again) is the library's top level
 * (runtime/reload.c), which asks this module for the changes seen at each frame boundary.
 *
 * Design note.
 *  - Directories are watched, not files: editors save by writing a temporary file and renaming
 *    it over the old one, which ends an inotify watch on the old file but shows up in the
 *    directory's watch as an event naming the file. So a replaced file needs no re-arming, and a
 *    burst of events (write, write, rename) for one file in one poll is one change.
 *  - The watches are handles on the runtime's loop (loop.h), which runs only on the main thread,
 *    polled with UV_RUN_NOWAIT at the frame boundary; other threads only add to the `files`
 *    list under `lock`.
 *  - Changes seen in one poll are de-duplicated: a burst of events for one file is one change.
 *  - A save is applied only once the file is stable, never while it is being written: an event
 *    puts the file on the `settling` list, and each poll stats the files there; one whose size
 *    and modification time (ns) equal those of the previous poll, with no event since, moves to
 *    `changed`. So a change waits at least one frame after its last write, and an editor that
 *    truncates then writes is normally seen once, complete (the prelude also refuses an empty
 *    module, for a writer slower than a frame). A deleted file waits until it exists again (a
 *    rename-style save deletes then creates). Explicit requests (ona__hot_reload_mark) skip the
 *    wait.
 *  - A file registered before it exists (a module a require missed) has its directory watched
 *    when that exists; a directory that does not is skipped without a warning.
 */
#include "hot_reload.h"

#include "common.h"

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

int ona__hot_reload_init(ona__hot_reload *h, uv_loop_t *loop, bool watch) {
    memset(h, 0, sizeof *h);
    h->enabled = watch;
    if (uv_mutex_init(&h->lock))
        return ONA_ENOMEM;
    h->loop = watch ? loop : NULL;
    return 0;
}

static void on_dir_closed(uv_handle_t *handle) {
    ona__watch_dir *d = handle->data;
    d->owner->closing--;
    ona__free(d->path);
    ona__free(d);
}

static void close_dir(ona__hot_reload *h, ona__watch_dir *d) {
    h->closing++;
    uv_close((uv_handle_t *)&d->handle, on_dir_closed);
}

void ona__hot_reload_free(ona__hot_reload *h) {
    if (h->loop) {
        for (uint32_t i = 0; i < h->dir_count; i++) {
            uv_fs_event_stop(&h->dirs[i]->handle);
            close_dir(h, h->dirs[i]);
        }
        /* The loop is the runtime's and may hold other handles: run it only until this
         * watcher's close callbacks have run (a closing handle's callback runs at the next
         * iteration, so this takes one). */
        while (h->closing)
            uv_run(h->loop, UV_RUN_NOWAIT);
    }
    for (uint32_t i = 0; i < h->file_count; i++)
        ona__free(h->files[i]);
    for (uint32_t i = 0; i < h->changed_count; i++)
        ona__free(h->changed[i]);
    for (uint32_t i = 0; i < h->settling_count; i++)
        ona__free(h->settling[i].path);
    ona__free(h->settling);
    ona__free(h->files);
    ona__free(h->changed);
    ona__free(h->dirs);
    uv_mutex_destroy(&h->lock);
    memset(h, 0, sizeof *h);
}

void ona__hot_reload_watch(ona__hot_reload *h, const char *path) {
    if ((!h->enabled && !h->listing) || !path || !*path)
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

/* A file event: (re)start waiting for `path` to be stable. */
static int settle(ona__hot_reload *h, const char *path) {
    for (uint32_t i = 0; i < h->settling_count; i++)
        if (strcmp(h->settling[i].path, path) == 0) {
            h->settling[i].fresh = true;
            return 0;
        }
    if (h->settling_count == h->settling_capacity) {
        uint32_t cap = h->settling_capacity ? h->settling_capacity * 2 : 8;
        ona__settling *grown = ona__realloc(h->settling, cap * sizeof *grown);
        if (!grown)
            return ONA_ENOMEM;
        h->settling = grown;
        h->settling_capacity = cap;
    }
    size_t n = strlen(path);
    char *copy = ona__malloc(n + 1);
    if (!copy)
        return ONA_ENOMEM;
    memcpy(copy, path, n + 1);
    h->settling[h->settling_count++] = (ona__settling){copy, -1, 0, true};
    return 0;
}

/* Moves the settling files that did not change since the last poll to `changed`. */
static void promote_stable(ona__hot_reload *h) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->settling_count; i++) {
        ona__settling *f = &h->settling[i];
        uv_fs_t req;
        int64_t size = -1, mtime = 0;
        if (uv_fs_stat(NULL, &req, f->path, NULL) == 0) {
            size = (int64_t)req.statbuf.st_size;
            mtime = (int64_t)req.statbuf.st_mtim.tv_sec * 1000000000 + req.statbuf.st_mtim.tv_nsec;
        }
        uv_fs_req_cleanup(&req);
        bool stable = !f->fresh && size >= 0 && size == f->size && mtime == f->mtime_ns;
        if (stable && ona__hot_reload_mark(h, f->path) == 0) {
            ona__free(f->path);
            continue;
        }
        f->fresh = false;
        f->size = size;
        f->mtime_ns = mtime;
        h->settling[kept++] = *f;
    }
    h->settling_count = kept;
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
    if (watched && settle(h, path) != 0)
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
        uv_fs_event_init(h->loop, &d->handle);
        d->handle.data = d;
        int rc = uv_fs_event_start(&d->handle, on_dir_event, dir, 0);
        if (rc) {
            if (rc != UV_ENOENT) /* a missing module's candidate in a folder that is not there */
                ona_log(ONA_LOG_WARN, "hot reload", "cannot watch %s: %s", dir, uv_strerror(rc));
            close_dir(h, d);
            continue;
        }
        h->dirs[h->dir_count++] = d;
    }
    h->files_armed = count;
}

void ona__hot_reload_poll(ona__hot_reload *h) {
    if (!h->loop)
        return;
    arm(h);
    promote_stable(h);
}

void ona__hot_reload_clear(ona__hot_reload *h) {
    for (uint32_t i = 0; i < h->changed_count; i++)
        ona__free(h->changed[i]);
    h->changed_count = 0;
}
