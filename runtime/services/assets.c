/*
 * assets.c: the asset registry (assets.h).
 *
 * Design note. One table of entries, keyed by (kind, resolved path, param), handed out in order
 * and never reused, so an entry's index is stable; its `id` (generation 1 << 16 | index + 1) is
 * published with a release store once the entry's fields are complete, and ona__assets_get
 * checks it with an acquire load: a stale or forged id looks up to NULL. The lock guards the
 * search and the fields; the decode runs outside it, with the entry marked `loading`, so two
 * threads asking for different files decode in parallel, and a second thread asking for the
 * same new file waits on `loaded` for the first's handle instead of decoding it twice.
 * Reloads run on main at the frame boundary, when no turn runs and so no load is in progress
 * (loads happen inside turns, or on main): a kind's reload hook may change its handle's content.
 * A missing file is kept where it is expected (under the first script root), so the watcher's
 * event for the file when it is created names the same path; a file created before its folder
 * was watched is looked for once, right after the watcher's first poll for it.
 */
#include "assets.h"

#include "common.h"
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { GENERATION = 1 }; /* entries are never reused */

static uint32_t make_id(uint32_t index) {
    return ((uint32_t)GENERATION << 16) | (index + 1);
}

int ona__assets_init(ona__assets *a, char *const *roots, uint32_t root_count,
                     ona__hot_reload *hot) {
    memset(a, 0, sizeof *a);
    a->roots = roots;
    a->root_count = root_count;
    a->hot = hot;
    a->entries = ona__calloc(ONA__MAX_ASSETS, sizeof *a->entries);
    if (!a->entries)
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < ONA__MAX_ASSETS; i++)
        atomic_init(&a->entries[i].id, 0);
    if (uv_mutex_init(&a->lock)) {
        ona__free(a->entries);
        return ONA_ENOMEM;
    }
    if (uv_cond_init(&a->loaded)) {
        uv_mutex_destroy(&a->lock);
        ona__free(a->entries);
        return ONA_ENOMEM;
    }
    return 0;
}

void ona__assets_free(ona__assets *a) {
    if (!a->entries)
        return;
    for (uint32_t i = 0; i < a->used; i++)
        ona__free(a->entries[i].path);
    ona__free(a->entries);
    a->entries = NULL;
    uv_cond_destroy(&a->loaded);
    uv_mutex_destroy(&a->lock);
}

void ona__assets_set_kind(ona__assets *a, ona__asset_kind kind, const ona__asset_ops *ops,
                          void *ctx) {
    if ((unsigned)kind < ONA__ASSET_KIND_COUNT) {
        a->kinds[kind].ops = ops;
        a->kinds[kind].ctx = ctx;
    }
}

/* Where `name` is: its resolved path (also for a folder or FIFO there, which its kind's load
 * refuses in words); for a missing file, where it would be under the first script root (its
 * folder canonical, as watched file events name it), else `name` as given. Returns what
 * ona__paths_resolve said. */
static int locate(ona__assets *a, const char *name, char *path, size_t size) {
    int rc = ona__paths_resolve(a->roots, a->root_count, name, path, size);
    if (rc == 0 || rc == ONA_ENOTFILE)
        return rc;
    snprintf(path, size, "%s", name);
    if (rc != ONA_ENOENT || name[0] == '/' || a->root_count == 0)
        return rc;
    char candidate[PATH_MAX], dir[PATH_MAX];
    int n = snprintf(candidate, sizeof candidate, "%s/%s", a->roots[0], name);
    if (n < 0 || (size_t)n >= sizeof candidate)
        return rc;
    char *slash = strrchr(candidate, '/');
    *slash = '\0';
    if (!realpath(candidate, dir))
        return rc;
    n = snprintf(path, size, "%s/%s", dir, slash + 1);
    if (n < 0 || (size_t)n >= size)
        snprintf(path, size, "%s", name);
    return rc;
}

/* The entry for (kind, path, param), or NULL. Lock held. */
static ona__asset_entry *find(ona__assets *a, ona__asset_kind kind, const char *path, int param) {
    for (uint32_t i = 0; i < a->used; i++) {
        ona__asset_entry *e = &a->entries[i];
        if (e->kind == kind && e->param == param && strcmp(e->path, path) == 0)
            return e;
    }
    return NULL;
}

int ona__assets_load(ona__assets *a, ona__asset_kind kind, const char *name, int param,
                     const char *who, uint32_t *handle, char *path, size_t size) {
    *handle = 0;
    if ((unsigned)kind >= ONA__ASSET_KIND_COUNT || !a->kinds[kind].ops)
        return ONA_EINVAL;
    const ona__asset_ops *ops = a->kinds[kind].ops;
    void *ctx = a->kinds[kind].ctx;
    if (ops->placeholder)
        *handle = ops->placeholder(ctx);
    if (!name || !*name)
        return ONA_EINVAL;
    char resolved[PATH_MAX];
    int where = locate(a, name, resolved, sizeof resolved);
    if (path && size)
        snprintf(path, size, "%s", resolved);
    if (where != 0 && where != ONA_ENOENT && where != ONA_ENOTFILE) {
        /* Outside the game folder (or a name too long): no entry, nothing read or watched. */
        ona_log(ONA_LOG_ERROR, who, "%s %s: %s; %s", ops->name, name, ona__paths_why(where, NULL),
                ops->placeholder ? "the placeholder instead" : "not loaded");
        return where;
    }

    uv_mutex_lock(&a->lock);
    ona__asset_entry *e = find(a, kind, resolved, param);
    while (e && e->loading)
        uv_cond_wait(&a->loaded, &a->lock);
    if (e && (e->rc == 0 || ops->owns_failed)) {
        *handle = e->handle;
        int rc = e->rc;
        uv_mutex_unlock(&a->lock);
        if (rc)
            ona_log(ONA_LOG_ERROR, who, "%s %s: %s; %s", ops->name, resolved,
                    ona__paths_why(rc, resolved),
                    "still the placeholder until the file can be read");
        return rc;
    }
    if (!e) { /* a new entry, published once loaded */
        int full = a->used >= ONA__MAX_ASSETS ? ONA_ELIMIT : 0;
        char *copy = full ? NULL : ona__malloc(strlen(resolved) + 1);
        if (!copy) {
            uv_mutex_unlock(&a->lock);
            int rc = full ? full : ONA_ENOMEM;
            ona_log(ONA_LOG_ERROR, who, "%s %s: %s (at most %d assets); %s", ops->name, resolved,
                    ona_strerror(rc), ONA__MAX_ASSETS, "the placeholder instead");
            *handle = ops->placeholder ? ops->placeholder(ctx) : 0;
            return rc;
        }
        strcpy(copy, resolved);
        e = &a->entries[a->used++];
        e->kind = kind;
        e->param = param;
        e->path = copy;
    }
    e->loading = true;
    uv_mutex_unlock(&a->lock);

    uint32_t got = 0;
    int rc = ops->load(ctx, resolved, param, who, &got);
    if (a->hot)
        ona__hot_reload_watch(a->hot, resolved);

    uv_mutex_lock(&a->lock);
    e->handle = got;
    e->rc = rc;
    e->loading = false;
    uint32_t index = (uint32_t)(e - a->entries);
    /* release: a reader that sees the id sees the fields above. */
    atomic_store_explicit(&e->id, make_id(index), memory_order_release);
    uv_cond_broadcast(&a->loaded);
    uv_mutex_unlock(&a->lock);
    *handle = got;
    return rc;
}

int ona__assets_reload(ona__assets *a, const char *path) {
    int result = ONA_ENOENT;
    bool done[ONA__ASSET_KIND_COUNT] = {false};
    uv_mutex_lock(&a->lock);
    uint32_t used = a->used;
    uv_mutex_unlock(&a->lock);
    /* Main at the boundary: no load runs (loads run in turns, or on main), so the entries below
     * `used` are complete and stay as they are while the hooks run without the lock. */
    for (uint32_t i = 0; i < used; i++) {
        ona__asset_entry *e = &a->entries[i];
        const ona__asset_ops *ops = a->kinds[e->kind].ops;
        if (e->loading || strcmp(e->path, path) != 0 || !ops || !e->handle)
            continue;
        if (!ops->owns_failed && e->rc != 0)
            continue; /* its handle is another file's: the next load tries this one again */
        if (done[e->kind])
            continue; /* the kind reloads every handle of the file at once (a font's sizes) */
        done[e->kind] = true;
        int rc = ops->reload(a->kinds[e->kind].ctx, e->handle, path, e->param);
        if (ops->owns_failed)
            e->rc = rc;
        if (rc == 0)
            a->reloads++;
        else
            a->failures++;
        if (result == ONA_ENOENT || (result == 0 && rc != 0))
            result = rc;
    }
    return result;
}

void ona__assets_look_for_missing(ona__assets *a) {
    if (!a->hot || !a->hot->enabled)
        return;
    uv_mutex_lock(&a->lock);
    uint32_t used = a->used;
    uv_mutex_unlock(&a->lock);
    for (uint32_t i = 0; i < used; i++) { /* main at the boundary: no load runs, as above */
        ona__asset_entry *e = &a->entries[i];
        const ona__asset_ops *ops = a->kinds[e->kind].ops;
        if (e->looked || e->loading || e->rc == 0 || !ops || !ops->owns_failed)
            continue;
        e->looked = true;
        if (access(e->path, F_OK) == 0)
            ona__hot_reload_mark(a->hot, e->path);
    }
}

const ona__asset_entry *ona__assets_get(ona__assets *a, uint32_t id) {
    uint32_t index = id & 0xFFFFu;
    if (index == 0 || index > ONA__MAX_ASSETS)
        return NULL;
    ona__asset_entry *e = &a->entries[index - 1];
    /* acquire: pairs with the release in ona__assets_load; the entry's fields are complete. */
    return atomic_load_explicit(&e->id, memory_order_acquire) == id ? e : NULL;
}

uint32_t ona__assets_id(ona__assets *a, ona__asset_kind kind, uint32_t handle) {
    uint32_t found = 0;
    uv_mutex_lock(&a->lock);
    for (uint32_t i = 0; i < a->used && !found; i++)
        if (a->entries[i].kind == kind && a->entries[i].handle == handle && !a->entries[i].loading)
            found = make_id(i);
    uv_mutex_unlock(&a->lock);
    return found;
}
