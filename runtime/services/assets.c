/*
 * assets.c: the asset registry (assets.h).
 *
 * Design note. One table of entries, keyed by (kind, resolved path, param); an entry's `id` is
 * generation-checked (core/handle.h), published with a release store once the entry's fields
 * are complete, so a stale or forged id looks up to NULL. The lock guards the
 * search and the fields; the decode runs outside it, with the entry marked `loading`, so two
 * threads asking for different files decode in parallel, and a second thread asking for the
 * same new file waits on `loaded` for the first's handle instead of decoding it twice.
 * Reloads run on main at the frame boundary, when no turn runs and so no load is in progress
 * (loads happen inside turns, or on main): a kind's reload hook may change its handle's content.
 * A missing file is kept where it is expected (under the first script root), so the watcher's
 * event for the file when it is created names the same path; a file created before its folder
 * was watched is looked for once, right after the watcher's first poll for it. When files are
 * not watched, a load of a file whose last load failed asks for it to be read again at the next
 * boundary: one read per frame however often the game asks.
 *
 * References are counted per (holder, entry) in one small table under the lock, so a system's
 * all go at once when it ends and a release by a holder that holds none is refused. Loads and
 * releases only count; the boundary frees: an entry nobody holds is taken out of the table
 * under the lock (a load from then on makes a new one) and its kind's unload hook runs after,
 * without the lock, on main where GL may be called and no turn can be using the handle. A
 * freed entry's slot is reused with the next generation.
 */
#include "assets.h"

#include "common.h"
#include "handle.h"
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int ona__assets_init(ona__assets *a, char *const *roots, uint32_t root_count,
                     ona__hot_reload *hot) {
    memset(a, 0, sizeof *a);
    a->roots = roots;
    a->root_count = root_count;
    a->hot = hot;
    a->entries = ona__calloc(ONA__MAX_ASSETS, sizeof *a->entries);
    a->free_entries = ona__calloc(ONA__MAX_ASSETS, sizeof *a->free_entries);
    if (!a->entries || !a->free_entries) {
        ona__free(a->entries);
        ona__free(a->free_entries);
        a->entries = NULL;
        return ONA_ENOMEM;
    }
    for (uint32_t i = 0; i < ONA__MAX_ASSETS; i++)
        atomic_init(&a->entries[i].id, 0);
    if (uv_mutex_init(&a->lock)) {
        ona__free(a->entries);
        ona__free(a->free_entries);
        a->entries = NULL;
        return ONA_ENOMEM;
    }
    if (uv_cond_init(&a->loaded)) {
        uv_mutex_destroy(&a->lock);
        ona__free(a->entries);
        ona__free(a->free_entries);
        a->entries = NULL;
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
    ona__free(a->free_entries);
    ona__free(a->refs);
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
    const char *rest = slash + 1;
    if (!realpath(candidate, dir)) {
        /* Its folder is missing too (the watcher waits for it to appear): under the root. */
        if (!realpath(a->roots[0], dir))
            return rc;
        rest = name;
    }
    n = snprintf(path, size, "%s/%s", dir, rest);
    if (n < 0 || (size_t)n >= size)
        snprintf(path, size, "%s", name);
    return rc;
}

/* The entry for (kind, path, param), or NULL. Lock held. */
static ona__asset_entry *find(ona__assets *a, ona__asset_kind kind, const char *path, int param) {
    for (uint32_t i = 0; i < a->used; i++) {
        ona__asset_entry *e = &a->entries[i];
        if (e->path && e->kind == kind && e->param == param && strcmp(e->path, path) == 0)
            return e;
    }
    return NULL;
}

/* Whether files are watched: a fixed file is then picked up by the watcher. */
static bool watching(const ona__assets *a) {
    return a->hot && a->hot->enabled;
}

/* One more reference of `holder` to entry `index`. Lock held; room was made (ona__grow). */
static void hold(ona__assets *a, uint64_t holder, uint32_t index) {
    a->entries[index].refs++;
    for (uint32_t i = 0; i < a->ref_count; i++) {
        if (a->refs[i].holder == holder && a->refs[i].entry == index) {
            a->refs[i].count++;
            return;
        }
    }
    a->refs[a->ref_count++] = (ona__asset_ref){holder, index, 1};
}

int ona__assets_load(ona__assets *a, ona__asset_kind kind, const char *name, int param,
                     const char *who, uint64_t holder, uint32_t *handle, char *path, size_t size) {
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
    while (e && e->loading) {
        uv_cond_wait(&a->loaded, &a->lock);
        e = find(a, kind, resolved, param); /* the same entry: none is freed while one loads */
    }
    if (ona__grow((void **)&a->refs, &a->ref_capacity, a->ref_count + 1, sizeof *a->refs)) {
        uv_mutex_unlock(&a->lock);
        ona_log(ONA_LOG_ERROR, who, "%s %s: %s; %s", ops->name, resolved, ona_strerror(ONA_ENOMEM),
                "the placeholder instead");
        return ONA_ENOMEM;
    }
    if (e && (e->rc == 0 || ops->owns_failed)) {
        hold(a, holder, (uint32_t)(e - a->entries));
        *handle = e->handle;
        int rc = e->rc;
        bool retry = rc != 0 && !watching(a);
        e->retry |= retry;
        uv_mutex_unlock(&a->lock);
        if (rc)
            ona_log(ONA_LOG_ERROR, who, "%s %s: %s; %s", ops->name, resolved,
                    ona__paths_why(rc, resolved),
                    retry ? "still the placeholder; read again at the next frame"
                          : "still the placeholder until the file can be read");
        return rc;
    }
    uint32_t index = e ? (uint32_t)(e - a->entries) : 0;
    if (!e) { /* a new entry, published once loaded */
        char *copy = ona__malloc(strlen(resolved) + 1);
        int full = copy && !ona__handle_take_slot(a->free_entries, &a->free_count, &a->used,
                                                  ONA__MAX_ASSETS, &index)
                       ? ONA_ELIMIT
                       : 0;
        if (!copy || full) {
            ona__free(copy);
            uv_mutex_unlock(&a->lock);
            int rc = full ? full : ONA_ENOMEM;
            ona_log(ONA_LOG_ERROR, who, "%s %s: %s (at most %d assets); %s", ops->name, resolved,
                    ona_strerror(rc), ONA__MAX_ASSETS, "the placeholder instead");
            *handle = ops->placeholder ? ops->placeholder(ctx) : 0;
            return rc;
        }
        strcpy(copy, resolved);
        e = &a->entries[index];
        e->kind = kind;
        e->param = param;
        e->path = copy;
        e->refs = 0;
        e->looked = e->retry = false;
    }
    /* A shared-failure kind's entry that failed before is loaded again here, in place. */
    hold(a, holder, index);
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
    if (atomic_load_explicit(&e->id, memory_order_relaxed) == 0) { /* ours: under the lock */
        e->generation = ona__handle_next_generation(e->generation);
        /* release: a reader that sees the id sees the fields above. */
        atomic_store_explicit(&e->id, ona__handle_make(index, e->generation), memory_order_release);
    }
    uv_cond_broadcast(&a->loaded);
    uv_mutex_unlock(&a->lock);
    *handle = got;
    return rc;
}

int ona__assets_release(ona__assets *a, ona__asset_kind kind, uint32_t handle, uint64_t holder) {
    int rc = ONA_ESTALE;
    uv_mutex_lock(&a->lock);
    for (uint32_t i = 0; i < a->ref_count; i++) {
        ona__asset_ref *r = &a->refs[i];
        ona__asset_entry *e = &a->entries[r->entry];
        if (r->holder != holder || e->kind != kind || e->handle != handle || e->loading)
            continue;
        e->refs--;
        if (--r->count == 0)
            *r = a->refs[--a->ref_count];
        rc = 0;
        break;
    }
    uv_mutex_unlock(&a->lock);
    return rc;
}

void ona__assets_release_all(ona__assets *a, uint64_t holder) {
    uv_mutex_lock(&a->lock);
    for (uint32_t i = 0; i < a->ref_count;) {
        ona__asset_ref *r = &a->refs[i];
        if (r->holder != holder) {
            i++;
            continue;
        }
        a->entries[r->entry].refs -= r->count;
        *r = a->refs[--a->ref_count];
    }
    uv_mutex_unlock(&a->lock);
}

/* Frees the entries nobody holds whose kind can unload (main, at the boundary). */
static void collect(ona__assets *a) {
    enum { BATCH = 64 };
    struct {
        ona__asset_kind kind;
        uint32_t handle;
    } gone[BATCH];
    uint32_t n;
    do {
        n = 0;
        uv_mutex_lock(&a->lock);
        for (uint32_t i = 0; i < a->used && n < BATCH; i++) {
            ona__asset_entry *e = &a->entries[i];
            const ona__asset_ops *ops = e->path ? a->kinds[e->kind].ops : NULL;
            if (!ops || !ops->unload || e->refs || e->loading)
                continue;
            /* Out of the table first: a load from any thread makes a new entry from now on. */
            atomic_store_explicit(&e->id, 0,
                                  memory_order_relaxed); /* readers: see ona__assets_get */
            if (e->handle && (e->rc == 0 || ops->owns_failed)) {
                gone[n].kind = e->kind;
                gone[n++].handle = e->handle;
            }
            ona__free(e->path);
            e->path = NULL;
            e->handle = 0;
            a->free_entries[a->free_count++] = i;
        }
        uv_mutex_unlock(&a->lock);
        for (uint32_t i = 0; i < n; i++) {
            a->kinds[gone[i].kind].ops->unload(a->kinds[gone[i].kind].ctx, gone[i].handle);
            a->unloads++;
        }
    } while (n == BATCH);
}

/* Reads again the failed files a load asked for (main, at the boundary: no load runs). */
static void retry_failed(ona__assets *a) {
    uv_mutex_lock(&a->lock);
    uint32_t used = a->used;
    uv_mutex_unlock(&a->lock);
    for (uint32_t i = 0; i < used; i++) {
        ona__asset_entry *e = &a->entries[i];
        if (!e->path || !e->retry || e->loading)
            continue;
        e->retry = false;
        const ona__asset_ops *ops = a->kinds[e->kind].ops;
        e->rc = ops->reload(a->kinds[e->kind].ctx, e->handle, e->path, e->param);
        a->retries++;
    }
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
        if (!e->path || e->loading || strcmp(e->path, path) != 0 || !ops || !e->handle)
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

static void look_for_missing(ona__assets *a) {
    if (!watching(a))
        return;
    uv_mutex_lock(&a->lock);
    uint32_t used = a->used;
    uv_mutex_unlock(&a->lock);
    for (uint32_t i = 0; i < used; i++) { /* main at the boundary: no load runs, as above */
        ona__asset_entry *e = &a->entries[i];
        const ona__asset_ops *ops = a->kinds[e->kind].ops;
        if (!e->path || e->looked || e->loading || e->rc == 0 || !ops || !ops->owns_failed)
            continue;
        e->looked = true;
        if (access(e->path, F_OK) == 0)
            ona__hot_reload_mark(a->hot, e->path);
    }
}

void ona__assets_boundary(ona__assets *a) {
    collect(a);
    retry_failed(a);
    look_for_missing(a);
}

void ona__assets_upload(ona__assets *a) {
    for (int k = 0; k < ONA__ASSET_KIND_COUNT; k++)
        if (a->kinds[k].ops && a->kinds[k].ops->upload)
            a->kinds[k].ops->upload(a->kinds[k].ctx);
}

const ona__asset_entry *ona__assets_get(ona__assets *a, uint32_t id) {
    return ONA__HANDLE_LOOKUP(a->entries, ona__asset_entry, ONA__MAX_ASSETS, id);
}

uint32_t ona__assets_id(ona__assets *a, ona__asset_kind kind, uint32_t handle) {
    uint32_t found = 0;
    uv_mutex_lock(&a->lock);
    for (uint32_t i = 0; i < a->used && !found; i++) {
        ona__asset_entry *e = &a->entries[i];
        if (e->path && e->kind == kind && e->handle == handle && !e->loading)
            found = atomic_load_explicit(&e->id, memory_order_relaxed); /* under the lock */
    }
    uv_mutex_unlock(&a->lock);
    return found;
}

uint32_t ona__assets_count(ona__assets *a) {
    uv_mutex_lock(&a->lock);
    uint32_t n = a->used - a->free_count;
    uv_mutex_unlock(&a->lock);
    return n;
}
