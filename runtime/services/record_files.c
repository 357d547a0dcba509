/*
 * record_files.c: the game files a recording names (record.h): every file the session loaded,
 * with a digest of its bytes, and every hot reload with the frame it took effect in.
 *
 * Design note. The watcher (core/hot_reload.c) already lists every file a system loads: its
 * script at spawn, a module at require, an asset at load. While a runtime records or replays it
 * lists them even when files are not watched (`listing`). After each recorded frame the files
 * listed since are read and digested here, on main, and written as 'G' chunks before the frame,
 * named relative to the script root they are under, so a replay from another folder or machine
 * finds them. A replay reads the recorded list at start and names each file that is missing or
 * whose digest differs; it does not stop: checking a fix against a recorded bug is the point.
 * A hot reload is written with the frame it took effect in and its new content ('C', at most
 * ONA__RECORD_CONTENT_FILE_BYTES a file and _TOTAL_BYTES in all, with a warning past them), and
 * replayed at that frame with that content, which stands in for the file on disk from then on
 * (paths_overlay.c), whatever the disk holds now. A reload without content (an older recording,
 * or past the bounds) is replayed with the file as it is now, and a difference is named. With
 * resimulate the current files are the point: the disk is read.
 */
#include "record.h"

#include "digest.h"
#include "paths.h"

#include <limits.h>
#include <stdlib.h>

/* Files past this size are named with size 0 and digest 0 (not read). */
#define MAX_FILE_BYTES (256u << 20)

int ona__record_files_init(ona__record *r, ona__hot_reload *hot, char *const *roots,
                           uint32_t root_count) {
    r->hot = hot;
    r->roots = roots;
    r->root_count = root_count;
    r->real_roots = ona__calloc(root_count ? root_count : 1, sizeof *r->real_roots);
    if (!r->real_roots)
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < root_count; i++) {
        char real[PATH_MAX];
        if (!realpath(roots[i], real))
            continue;
        r->real_roots[i] = ona__malloc(strlen(real) + 1);
        if (!r->real_roots[i])
            return ONA_ENOMEM;
        strcpy(r->real_roots[i], real);
    }
    return 0;
}

void ona__record_files_free(ona__record *r) {
    ona__paths_overlay_drop(r);
    for (uint32_t i = 0; r->real_roots && i < r->root_count; i++)
        ona__free(r->real_roots[i]);
    ona__free(r->real_roots);
    r->real_roots = NULL;
}

/* `path` relative to the first script root it is under (as given or resolved), else itself. */
static const char *relative(const ona__record *r, const char *path) {
    for (uint32_t i = 0; i < r->root_count; i++) {
        const char *forms[2] = {r->roots[i], r->real_roots ? r->real_roots[i] : NULL};
        for (int k = 0; k < 2; k++) {
            size_t n = forms[k] ? strlen(forms[k]) : 0;
            if (n && strncmp(path, forms[k], n) == 0 && path[n] == '/')
                return path + n + 1;
        }
    }
    return path;
}

/* The size and digest of the file at `path`; both 0 when it cannot be read. */
static void digest_file(const char *path, uint64_t *size, uint64_t *digest) {
    uint8_t *bytes;
    size_t n;
    *size = *digest = 0;
    if (ona__read_file(path, MAX_FILE_BYTES, &bytes, &n) != 0)
        return;
    *size = n;
    *digest = ona__digest_bytes(ONA__DIGEST_SEED, bytes, n);
    ona__free(bytes);
}

/* The watcher's `i`th file into `out`; false past its last. */
static bool listed(ona__hot_reload *h, uint32_t i, char *out, size_t size) {
    uv_mutex_lock(&h->lock);
    bool there = i < h->file_count;
    if (there)
        snprintf(out, size, "%s", h->files[i].path);
    uv_mutex_unlock(&h->lock);
    return there;
}

void ona__record_note_files(ona__record *r) {
    if (!r->recording || !r->hot)
        return;
    char path[PATH_MAX];
    while (listed(r->hot, r->files_noted, path, sizeof path)) {
        r->files_noted++;
        const char *rel = relative(r, path);
        if (strlen(rel) >= ONA__RECORD_PATH_BYTES) {
            ona_log(ONA_LOG_DEBUG, "record", "%s: the path is too long to be recorded", rel);
            continue;
        }
        uint64_t size, digest;
        digest_file(path, &size, &digest);
        ona__rec_put_file(&r->buf, rel, size, digest);
    }
}

/* Writes the reload of `path` in `frame` ('R') and, within the bounds, its content ('C'). */
static void record_reload(ona__record *r, uint64_t frame, const char *path) {
    const char *rel = relative(r, path);
    if (strlen(rel) >= ONA__RECORD_PATH_BYTES)
        return;
    uint8_t *bytes = NULL;
    size_t n = 0;
    uint64_t size = 0, digest = 0;
    if (ona__read_file(path, MAX_FILE_BYTES, &bytes, &n) == 0) {
        size = n;
        digest = ona__digest_bytes(ONA__DIGEST_SEED, bytes, n);
    }
    ona__rec_put_reload(&r->buf, frame, rel, size, digest);
    if (bytes && n <= ONA__RECORD_CONTENT_FILE_BYTES &&
        r->reload_bytes + n <= ONA__RECORD_CONTENT_TOTAL_BYTES) {
        r->reload_bytes += n;
        ona__rec_put_content(&r->buf, frame, rel, bytes, n);
    } else if (bytes) {
        ona_log(ONA_LOG_WARN, "record",
                "the reload of %s (%zu bytes) in frame %llu is past what a recording keeps (%u KiB "
                "a file, %u MiB in all): its content is not recorded, so a replay cannot be exact "
                "from here",
                rel, n, (unsigned long long)frame, ONA__RECORD_CONTENT_FILE_BYTES >> 10,
                ONA__RECORD_CONTENT_TOTAL_BYTES >> 20);
    }
    ona__free(bytes);
}

/* Where the recording's file `name` is now: an absolute name as it is, else under the first
 * script root that has it (the first root when none has). */
static void locate(const ona__record *r, const char *name, char *out, size_t size) {
    if (name[0] == '/' || r->root_count == 0) {
        snprintf(out, size, "%s", name);
        return;
    }
    for (uint32_t i = 0; i < r->root_count; i++) {
        snprintf(out, size, "%s/%s", r->roots[i], name);
        if (ona__paths_check_file(out) == 0)
            return;
    }
    snprintf(out, size, "%s/%s", r->roots[0], name);
}

void ona__replay_check_files(ona__record *r) {
    for (uint32_t i = 0; i < r->rec.file_count; i++) {
        const ona__rec_file *f = &r->rec.files[i];
        if (f->frame || (f->size == 0 && f->digest == 0)) /* a reload, or a file missing then */
            continue;
        const char *name = r->rec.names + f->name;
        char path[PATH_MAX];
        locate(r, name, path, sizeof path);
        uint64_t size, digest;
        digest_file(path, &size, &digest);
        if (size == 0 && digest == 0)
            ona_log(ONA_LOG_WARN, "replay", "%s is missing (the recording loaded it)", name);
        else if (size != f->size || digest != f->digest)
            ona_log(ONA_LOG_WARN, "replay", "%s changed since the recording", name);
    }
}

void ona__record_reloads(ona__record *r, uint64_t frame) {
    ona__hot_reload *h = r->hot;
    if (!h)
        return;
    if (r->recording) {
        for (uint32_t i = 0; i < h->changed_count; i++)
            record_reload(r, frame, h->changed[i]);
        return;
    }
    if (!r->replaying)
        return;
    if (!r->resimulate) /* the recording's reloads are the replay's input, not the editor's */
        ona__hot_reload_clear(h);
    for (uint32_t i = 0; i < r->rec.file_count; i++) {
        const ona__rec_file *f = &r->rec.files[i];
        if (f->frame != frame)
            continue;
        const char *name = r->rec.names + f->name;
        char path[PATH_MAX];
        bool found = false;
        for (uint32_t k = 0; !found && listed(h, k, path, sizeof path); k++)
            found = strcmp(relative(r, path), name) == 0;
        if (!found) {
            ona_log(ONA_LOG_WARN, "replay",
                    "the recording reloads %s at frame %llu, which this replay has not loaded",
                    name, (unsigned long long)frame);
            continue;
        }
        if (f->has_content && !r->resimulate) {
            if (ona__paths_overlay_put(r, path, r->rec.contents + f->content, f->content_size)) {
                ona_log(ONA_LOG_ERROR, "replay", "out of memory replaying the reload of %s", name);
                continue;
            }
        } else {
            uint64_t size, digest;
            digest_file(path, &size, &digest);
            if (size != f->size || digest != f->digest)
                ona_log(ONA_LOG_WARN, "replay",
                        "%s is reloaded at frame %llu from the file as it is now, which is not the "
                        "content that was reloaded then%s",
                        name, (unsigned long long)frame,
                        r->rec.version >= 3 && !r->resimulate
                            ? " (the recording did not keep it: the replay cannot be exact)"
                            : "");
        }
        if (ona__hot_reload_mark(h, path) != 0)
            ona_log(ONA_LOG_ERROR, "replay", "out of memory replaying the reload of %s", name);
    }
}
