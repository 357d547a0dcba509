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
 *  - A save is applied only once the file is quiet, never while it is being written: an event
 *    puts the file on the `settling` list, and each poll stats the files there; one with no event
 *    and no change of size or modification time (ns) for ONA__HOT_RELOAD_SETTLE_NS of wall-clock
 *    time moves to `changed`. So an editor that truncates then writes is seen once, complete; a
 *    writer that pauses longer is caught by the hosts' parse check (runtime/reload.c). A deleted
 *    file waits until it exists again (a rename-style save deletes then creates). Explicit
 *    requests (ona__hot_reload_mark) skip the wait.
 *  - Content, not time, decides: each watched file keeps the digest (digest.h's hash) of what its
 *    user loaded, read by the registering thread right after the load, and of each change
 *    applied since; a settled file whose digest is the same (a `touch`, the same text saved
 *    again) is dropped and counted in `unchanged`. Only regular files are read: a FIFO never is.
 *  - A file registered before its folder exists (a module a require missed, in a folder not made
 *    yet) puts the folder on `missing`, and the nearest existing folder above it is watched; an
 *    event there naming the missing folder (or one on the way to it) retries them all, and a
 *    folder armed late has its watched files settle as if an event had named them (they may have
 *    been written before the watch began).
 */
#include "hot_reload.h"

#include "common.h"
#include "digest.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char *copy_string(const char *s) {
    size_t n = strlen(s);
    char *copy = ona__malloc(n + 1);
    if (copy)
        memcpy(copy, s, n + 1);
    return copy;
}

static int push_string(char ***array, uint32_t *count, uint32_t *capacity, const char *s) {
    if (*count == *capacity) {
        uint32_t cap = *capacity ? *capacity * 2 : 16;
        char **grown = ona__realloc(*array, cap * sizeof *grown);
        if (!grown)
            return ONA_ENOMEM;
        *array = grown;
        *capacity = cap;
    }
    char *copy = copy_string(s);
    if (!copy)
        return ONA_ENOMEM;
    (*array)[(*count)++] = copy;
    return 0;
}

static bool contains(char **array, uint32_t count, const char *s) {
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(array[i], s) == 0)
            return true;
    return false;
}

/* The watched file at `path`, or NULL; under the lock. */
static ona__watched *find_file(ona__hot_reload *h, const char *path) {
    for (uint32_t i = 0; i < h->file_count; i++)
        if (strcmp(h->files[i].path, path) == 0)
            return &h->files[i];
    return NULL;
}

/* The folder part of `path` into `dir` ("." for a bare name). */
static void folder_of(const char *path, char *dir, size_t size) {
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, size, ".");
}

/* The digest of the regular file at `path`: 0, or ONA_ENOENT when it cannot be read. */
static int digest_file(const char *path, uint64_t *digest) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return ONA_ENOENT; /* a FIFO or device is never opened: it could block main */
    FILE *f = fopen(path, "rb");
    if (!f)
        return ONA_ENOENT;
    unsigned char buf[16384];
    uint64_t h = ONA__DIGEST_SEED;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = ona__digest_bytes(h, buf, n);
    fclose(f);
    *digest = h;
    return 0;
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
        ona__free(h->files[i].path);
    for (uint32_t i = 0; i < h->changed_count; i++)
        ona__free(h->changed[i]);
    for (uint32_t i = 0; i < h->missing_count; i++)
        ona__free(h->missing[i]);
    for (uint32_t i = 0; i < h->settling_count; i++)
        ona__free(h->settling[i].path);
    ona__free(h->settling);
    ona__free(h->files);
    ona__free(h->changed);
    ona__free(h->missing);
    ona__free(h->dirs);
    uv_mutex_destroy(&h->lock);
    memset(h, 0, sizeof *h);
}

/* What the file holds is read here, on the registering thread, right after its user loaded it:
 * later saves are compared with that (a file missing now has no content, so any is a change). */
static void watch_file(ona__hot_reload *h, const char *path, bool once) {
    if ((!h->enabled && !h->listing) || !path || !*path)
        return;
    uv_mutex_lock(&h->lock);
    bool known = find_file(h, path) != NULL;
    uv_mutex_unlock(&h->lock);
    uint64_t digest = 0;
    bool read = !known && digest_file(path, &digest) == 0;
    uv_mutex_lock(&h->lock);
    ona__watched *f = find_file(h, path);
    if (!f && h->file_count == h->file_capacity) {
        uint32_t cap = h->file_capacity ? h->file_capacity * 2 : 16;
        ona__watched *grown = ona__realloc(h->files, cap * sizeof *grown);
        if (grown) {
            h->files = grown;
            h->file_capacity = cap;
        }
    }
    char *copy = !f && h->file_count < h->file_capacity ? copy_string(path) : NULL;
    if (copy) {
        f = &h->files[h->file_count++];
        *f = (ona__watched){.path = copy, .digest = digest, .known = read};
    }
    if (f)
        f->once |= once;
    uv_mutex_unlock(&h->lock);
    if (!f)
        ona_log(ONA_LOG_WARN, "hot reload", "out of memory: %s will not be watched", path);
}

void ona__hot_reload_watch(ona__hot_reload *h, const char *path) {
    watch_file(h, path, false);
}

void ona__hot_reload_watch_once(ona__hot_reload *h, const char *path) {
    watch_file(h, path, true);
}

bool ona__hot_reload_ran_once(ona__hot_reload *h, const char *path) {
    uv_mutex_lock(&h->lock);
    ona__watched *f = find_file(h, path);
    bool once = f && f->once;
    uv_mutex_unlock(&h->lock);
    return once;
}

/* Main: records `digest` as the content applied for `path`; returns whether it differs from
 * the last one (or none was known). */
static bool note_digest(ona__hot_reload *h, const char *path, uint64_t digest) {
    uv_mutex_lock(&h->lock);
    ona__watched *f = find_file(h, path);
    bool differs = !f || !f->known || f->digest != digest;
    if (f) {
        f->digest = digest;
        f->known = true;
    }
    uv_mutex_unlock(&h->lock);
    return differs;
}

int ona__hot_reload_mark(ona__hot_reload *h, const char *path) {
    uint64_t digest;
    if (digest_file(path, &digest) == 0)
        note_digest(h, path, digest);
    if (contains(h->changed, h->changed_count, path))
        return 0;
    return push_string(&h->changed, &h->changed_count, &h->changed_capacity, path);
}

/* A file event: (re)start waiting for `path` to be quiet. */
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
    char *copy = copy_string(path);
    if (!copy)
        return ONA_ENOMEM;
    h->settling[h->settling_count++] = (ona__settling){copy, -1, 0, uv_hrtime(), true};
    return 0;
}

/* Moves the settling files that have been quiet long enough to `changed`, dropping those whose
 * content is what was applied last. */
static void promote_quiet(ona__hot_reload *h) {
    uint64_t now = uv_hrtime();
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
        if (f->fresh || size != f->size || mtime != f->mtime_ns)
            f->quiet_since = now;
        f->fresh = false;
        f->size = size;
        f->mtime_ns = mtime;
        uint64_t digest;
        if (size < 0 || now - f->quiet_since < ONA__HOT_RELOAD_SETTLE_NS ||
            digest_file(f->path, &digest) != 0) {
            h->settling[kept++] = *f;
            continue;
        }
        if (!note_digest(h, f->path, digest)) {
            h->unchanged++;
            ona_log(ONA_LOG_DEBUG, "hot reload", "%s: saved unchanged, nothing to reload",
                    f->path);
            ona__free(f->path);
            continue;
        }
        if (ona__hot_reload_mark(h, f->path) == 0) {
            ona__free(f->path);
            continue;
        }
        h->settling[kept++] = *f; /* out of memory: tried again at the next poll */
    }
    h->settling_count = kept;
}

/* Whether `path` is a missing folder or one above a missing folder. */
static bool leads_to_missing(ona__hot_reload *h, const char *path) {
    size_t n = strlen(path);
    for (uint32_t i = 0; i < h->missing_count; i++) {
        const char *m = h->missing[i];
        if (strncmp(m, path, n) == 0 && (m[n] == '\0' || m[n] == '/'))
            return true;
    }
    return false;
}

static void on_dir_event(uv_fs_event_t *handle, const char *filename, int events, int status) {
    (void)events;
    ona__watch_dir *d = handle->data;
    ona__hot_reload *h = d->owner;
    if (status < 0 || !filename)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", d->path, strcmp(d->path, "/") ? "/" : "", filename);
    if (leads_to_missing(h, path))
        h->rescan = true;
    uv_mutex_lock(&h->lock);
    bool watched = find_file(h, path) != NULL;
    uv_mutex_unlock(&h->lock);
    if (watched && settle(h, path) != 0)
        ona_log(ONA_LOG_WARN, "hot reload", "out of memory: change of %s dropped", path);
}

static bool is_watched_dir(ona__hot_reload *h, const char *dir) {
    for (uint32_t k = 0; k < h->dir_count; k++)
        if (strcmp(h->dirs[k]->path, dir) == 0)
            return true;
    return false;
}

/* Starts a watch on `dir`: 0, ONA_ENOENT when it does not exist, or another error (logged). */
static int watch_dir(ona__hot_reload *h, const char *dir) {
    if (is_watched_dir(h, dir))
        return 0;
    if (h->dir_count == h->dir_capacity) {
        uint32_t cap = h->dir_capacity ? h->dir_capacity * 2 : 8;
        ona__watch_dir **grown = ona__realloc(h->dirs, cap * sizeof *grown);
        if (!grown)
            return ONA_ENOMEM;
        h->dirs = grown;
        h->dir_capacity = cap;
    }
    ona__watch_dir *d = ona__calloc(1, sizeof *d);
    char *copy = d ? copy_string(dir) : NULL;
    if (!copy) {
        ona__free(d);
        return ONA_ENOMEM;
    }
    d->path = copy;
    d->owner = h;
    uv_fs_event_init(h->loop, &d->handle);
    d->handle.data = d;
    int rc = uv_fs_event_start(&d->handle, on_dir_event, dir, 0);
    if (rc) {
        if (rc != UV_ENOENT && rc != UV_ENOTDIR)
            ona_log(ONA_LOG_WARN, "hot reload", "cannot watch %s: %s", dir, uv_strerror(rc));
        close_dir(h, d);
        return rc == UV_ENOENT || rc == UV_ENOTDIR ? ONA_ENOENT : ONA_EINVAL;
    }
    h->dirs[h->dir_count++] = d;
    return 0;
}

/* Watches the nearest folder above the missing `dir` that exists, so that an event there says
 * when the missing one may have appeared. True when a new watch was started. */
static bool watch_above(ona__hot_reload *h, const char *dir) {
    char up[4096];
    snprintf(up, sizeof up, "%s", dir);
    for (;;) {
        char *slash = strrchr(up, '/');
        if (!slash)
            return false; /* a relative folder with nothing above it: "." is the start */
        if (slash == up)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (is_watched_dir(h, up))
            return false;
        int rc = watch_dir(h, up);
        if (rc == 0)
            return true;
        if (rc != ONA_ENOENT || strcmp(up, "/") == 0)
            return false;
    }
}

/* A folder that now has a watch: its watched files that exist were maybe written before the
 * watch began, so each waits to settle as if an event had named it (its digest decides). */
static void settle_files_in(ona__hot_reload *h, const char *dir) {
    uv_mutex_lock(&h->lock);
    uint32_t count = h->file_count;
    uv_mutex_unlock(&h->lock);
    for (uint32_t i = 0; i < count; i++) {
        char path[4096], folder[4096];
        uv_mutex_lock(&h->lock);
        snprintf(path, sizeof path, "%s", h->files[i].path);
        uv_mutex_unlock(&h->lock);
        folder_of(path, folder, sizeof folder);
        if (strcmp(folder, dir) == 0 && access(path, F_OK) == 0)
            settle(h, path);
    }
}

/* Tries every missing folder again, until no new watch starts. */
static void retry_missing(ona__hot_reload *h) {
    bool progress = true;
    for (int round = 0; progress && round < 64; round++) {
        progress = false;
        uint32_t kept = 0;
        for (uint32_t i = 0; i < h->missing_count; i++) {
            char *dir = h->missing[i];
            int rc = watch_dir(h, dir);
            if (rc == 0) {
                settle_files_in(h, dir);
                ona__free(dir);
                progress = true;
                continue;
            }
            if (rc == ONA_ENOENT && watch_above(h, dir))
                progress = true;
            h->missing[kept++] = dir;
        }
        h->missing_count = kept;
    }
}

/* Watches the folder of every file registered since the last boundary. */
static void arm(ona__hot_reload *h) {
    uv_mutex_lock(&h->lock);
    uint32_t count = h->file_count;
    uv_mutex_unlock(&h->lock);
    for (uint32_t i = h->files_armed; i < count; i++) {
        char path[4096], dir[4096];
        uv_mutex_lock(&h->lock);
        snprintf(path, sizeof path, "%s", h->files[i].path);
        uv_mutex_unlock(&h->lock);
        folder_of(path, dir, sizeof dir);
        if (contains(h->missing, h->missing_count, dir)) {
            h->rescan = true; /* its file was loaded, so the folder may be there now */
            continue;
        }
        int rc = watch_dir(h, dir);
        if (rc == ONA_ENOENT &&
            push_string(&h->missing, &h->missing_count, &h->missing_capacity, dir) == 0)
            h->rescan = true;
    }
    h->files_armed = count;
    if (h->rescan) {
        h->rescan = false;
        retry_missing(h);
    }
}

void ona__hot_reload_poll(ona__hot_reload *h) {
    if (!h->loop)
        return;
    arm(h);
    promote_quiet(h);
}

void ona__hot_reload_clear(ona__hot_reload *h) {
    for (uint32_t i = 0; i < h->changed_count; i++)
        ona__free(h->changed[i]);
    h->changed_count = 0;
}
