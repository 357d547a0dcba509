/*
 * paths_overlay.c: file contents that stand in for what the disk holds (paths.h): a replay's
 * hot reloads, applied from the recording, are read by every loader through ona__read_file as
 * if the file held the recorded bytes.
 *
 * Design note. A recorded reload is an input: the replay applies the content the recording
 * kept, at its frame, even when the file on disk is now another or gone. Every loader of game
 * files (modules, scripts, shaders, textures, sounds, fonts) reads whole files through
 * ona__read_file, so the stand-in lives there rather than in each loader. The table is the
 * process's, keyed by resolved path and tagged by its owner (a runtime's record), which drops
 * its entries when the replay ends; two runtimes replaying the same file at the same time in
 * one process would see each other's. Entries are put by main at a frame boundary and read from
 * any thread, under one mutex; `count` lets a read skip the lock while the table is empty.
 */
#include "paths.h"

#include "common.h"

#include <stdatomic.h>
#include <uv.h>

typedef struct overlay_entry {
    const void *owner;
    char *path;
    uint8_t *bytes;
    size_t size;
} overlay_entry;

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t lock;
static overlay_entry *entries;
static uint32_t entry_count, entry_cap;
/* Relaxed is enough: a reader that sees 0 while a put is under way reads the disk, as it would
 * have a moment earlier; one that sees the entry takes the lock, which orders the bytes. */
static atomic_uint count;

static void init_lock(void) {
    if (uv_mutex_init(&lock) != 0)
        abort();
}

int ona__paths_overlay_put(const void *owner, const char *path, const uint8_t *bytes, size_t size) {
    uv_once(&once, init_lock);
    size_t n = strlen(path);
    char *copy_path = ona__malloc(n + 1);
    uint8_t *copy = ona__malloc(size ? size : 1);
    if (!copy_path || !copy) {
        ona__free(copy_path);
        ona__free(copy);
        return ONA_ENOMEM;
    }
    memcpy(copy_path, path, n + 1);
    if (size)
        memcpy(copy, bytes, size);
    uv_mutex_lock(&lock);
    overlay_entry *e = NULL;
    for (uint32_t i = 0; i < entry_count && !e; i++)
        if (entries[i].owner == owner && strcmp(entries[i].path, path) == 0)
            e = &entries[i];
    if (!e && entry_count == entry_cap) {
        uint32_t cap = entry_cap ? entry_cap * 2 : 8;
        overlay_entry *grown = ona__realloc(entries, cap * sizeof *grown);
        if (!grown) {
            uv_mutex_unlock(&lock);
            ona__free(copy_path);
            ona__free(copy);
            return ONA_ENOMEM;
        }
        entries = grown;
        entry_cap = cap;
    }
    if (e) {
        ona__free(e->path);
        ona__free(e->bytes);
    } else {
        e = &entries[entry_count++];
    }
    *e = (overlay_entry){owner, copy_path, copy, size};
    atomic_store_explicit(&count, entry_count, memory_order_relaxed);
    uv_mutex_unlock(&lock);
    return 0;
}

void ona__paths_overlay_drop(const void *owner) {
    if (atomic_load_explicit(&count, memory_order_relaxed) == 0)
        return;
    uv_mutex_lock(&lock);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < entry_count; i++) {
        if (entries[i].owner == owner) {
            ona__free(entries[i].path);
            ona__free(entries[i].bytes);
        } else {
            entries[kept++] = entries[i];
        }
    }
    entry_count = kept;
    if (!kept) {
        ona__free(entries);
        entries = NULL;
        entry_cap = 0;
    }
    atomic_store_explicit(&count, entry_count, memory_order_relaxed);
    uv_mutex_unlock(&lock);
}

int ona__paths_overlay_read(const char *path, size_t limit, uint8_t **out, size_t *size) {
    if (atomic_load_explicit(&count, memory_order_relaxed) == 0)
        return 1;
    int rc = 1;
    uv_mutex_lock(&lock);
    for (uint32_t i = entry_count; i-- > 0 && rc == 1;) {
        const overlay_entry *e = &entries[i];
        if (strcmp(e->path, path) != 0)
            continue;
        uint8_t *data = e->size > limit ? NULL : ona__malloc(e->size + 1);
        rc = e->size > limit ? ONA_ELIMIT : data ? 0 : ONA_ENOMEM;
        if (data) {
            memcpy(data, e->bytes, e->size);
            data[e->size] = 0;
            *out = data;
            *size = e->size;
        }
    }
    uv_mutex_unlock(&lock);
    return rc;
}
