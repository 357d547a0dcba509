/*
 * paths_snapshot.c: one view of the game's files for a piece of work done on several threads
 * at once (paths.h): every read of a file and every lookup of a name made under a snapshot
 * answers what the first one found.
 *
 * Design note. A hot reload runs every affected system's code again, in parallel on the
 * runtime's threads; a thousand systems on one module read the same two files (their script,
 * the module) and resolve the same names, each a handful of system calls (realpath's readlinks,
 * lstat, open, fstat, read), which on a virtual machine cost more than running the code. Under
 * a snapshot the first reader of a path reads the disk and the others copy its bytes, so the
 * work reads each file once; and every system sees the same content, even when an editor
 * writes the file again while the job runs (without it, some systems would run one save and
 * the rest the next). The snapshot is entered per thread (a thread-local pointer) by the items
 * of the job, so another runtime's threads never see it; entries are kept under one mutex, the
 * disk read outside it (two first readers may both read; the first to put wins, and both answer
 * its bytes). Failures are kept too: a file missing for one system is missing for all.
 */
#include "paths.h"

#include "common.h"

#include <string.h>
#include <uv.h>

typedef struct snap_entry {
    char *key; /* the path read, or the name looked up (with its kind's prefix) */
    int rc;
    uint8_t *bytes; /* a read's content; a lookup's resolved path (NUL-terminated) */
    size_t size;
} snap_entry;

struct ona__paths_snapshot {
    uv_mutex_t lock;
    snap_entry *entries;
    uint32_t count, cap;
};

static _Thread_local ona__paths_snapshot *current;

ona__paths_snapshot *ona__paths_snapshot_new(void) {
    ona__paths_snapshot *s = ona__calloc(1, sizeof *s);
    if (s && uv_mutex_init(&s->lock) != 0) {
        ona__free(s);
        s = NULL;
    }
    return s;
}

void ona__paths_snapshot_free(ona__paths_snapshot *s) {
    if (!s)
        return;
    for (uint32_t i = 0; i < s->count; i++) {
        ona__free(s->entries[i].key);
        ona__free(s->entries[i].bytes);
    }
    ona__free(s->entries);
    uv_mutex_destroy(&s->lock);
    ona__free(s);
}

ona__paths_snapshot *ona__paths_snapshot_enter(ona__paths_snapshot *s) {
    ona__paths_snapshot *previous = current;
    current = s;
    return previous;
}

ona__paths_snapshot *ona__paths_snapshot_current(void) {
    return current;
}

/* The entry for `key`, or NULL. Under the lock. */
static const snap_entry *find(const ona__paths_snapshot *s, const char *key) {
    for (uint32_t i = 0; i < s->count; i++)
        if (strcmp(s->entries[i].key, key) == 0)
            return &s->entries[i];
    return NULL;
}

/* Copies e's answer out: a read's bytes (with a NUL after them) up to `limit`. */
static int answer(const snap_entry *e, size_t limit, uint8_t **out, size_t *size) {
    if (e->rc)
        return e->rc;
    if (e->size > limit)
        return ONA_ELIMIT;
    uint8_t *data = ona__malloc(e->size + 1);
    if (!data)
        return ONA_ENOMEM;
    memcpy(data, e->bytes, e->size);
    data[e->size] = 0;
    *out = data;
    *size = e->size;
    return 0;
}

/* Keeps (key, rc, bytes) unless the key is there already; returns the entry for key (the first
 * put's), or NULL when there was no memory to keep it. Under the lock. */
static const snap_entry *put(ona__paths_snapshot *s, const char *key, int rc, const uint8_t *bytes,
                             size_t size) {
    const snap_entry *e = find(s, key);
    if (e)
        return e;
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 8;
        snap_entry *grown = ona__realloc(s->entries, cap * sizeof *grown);
        if (!grown)
            return NULL;
        s->entries = grown;
        s->cap = cap;
    }
    size_t n = strlen(key);
    char *k = ona__malloc(n + 1);
    uint8_t *copy = bytes ? ona__malloc(size + 1) : NULL;
    if (!k || (bytes && !copy)) {
        ona__free(k);
        ona__free(copy);
        return NULL;
    }
    memcpy(k, key, n + 1);
    if (copy) {
        memcpy(copy, bytes, size);
        copy[size] = 0;
    }
    s->entries[s->count] = (snap_entry){k, rc, copy, size};
    return &s->entries[s->count++];
}

int ona__paths_snapshot_read(ona__paths_snapshot *s, const char *path, size_t limit,
                             int (*read)(const char *, size_t, uint8_t **, size_t *),
                             uint8_t **out, size_t *size) {
    uv_mutex_lock(&s->lock);
    const snap_entry *e = find(s, path);
    int rc = e ? answer(e, limit, out, size) : 1;
    uv_mutex_unlock(&s->lock);
    if (rc != 1)
        return rc;
    uint8_t *data = NULL;
    size_t n = 0;
    rc = read(path, limit, &data, &n);
    if (rc == ONA_ELIMIT || rc == ONA_ENOMEM) /* about this caller's limit, or the moment */
        return rc;
    uv_mutex_lock(&s->lock);
    e = put(s, path, rc, rc == 0 ? data : NULL, n);
    int first = e ? answer(e, limit, out, size) : 1;
    uv_mutex_unlock(&s->lock);
    if (first == 1) { /* not kept (no memory): this read's own answer */
        if (rc == 0) {
            *out = data;
            *size = n;
        }
        return rc;
    }
    ona__free(data);
    return first;
}

bool ona__paths_snapshot_lookup(ona__paths_snapshot *s, const char *key, int *rc, char *path,
                                size_t size) {
    uv_mutex_lock(&s->lock);
    const snap_entry *e = find(s, key);
    bool found = e && e->size < size;
    if (found) {
        *rc = e->rc;
        memcpy(path, e->bytes, e->size + 1);
    }
    uv_mutex_unlock(&s->lock);
    return found;
}

void ona__paths_snapshot_note(ona__paths_snapshot *s, const char *key, int rc, const char *path) {
    uv_mutex_lock(&s->lock);
    (void)put(s, key, rc, (const uint8_t *)path, strlen(path));
    uv_mutex_unlock(&s->lock);
}
