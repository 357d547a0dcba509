/*
 * paths.h: finding a game's files (scripts, modules, textures) under its script roots, and reading
 * one whole. Internal. Pure functions of the file system; any thread.
 */
#ifndef ONA_PATHS_H
#define ONA_PATHS_H

#include "ona/base.h"

#include <stdbool.h>
#include <stdio.h>

/* Finds `name` (for the embedder's C calls): an absolute path as it is, else under each root in
 * turn, never in the working directory. The result is canonical (realpath), so file events match
 * it. 0; ONA_ENOENT with `path` holding the last candidate; ONA_ENOTFILE (with `path` canonical)
 * when the first root holding the name holds a folder, FIFO, socket or device there;
 * ONA_ERANGE when a candidate does not fit. */
int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size);
/* The same for a name a game's script gave, confined to the roots: an absolute `name` only when
 * it lies inside a root, and the result inside a root after `..` and symbolic links; else
 * ONA_EPATH (absolute elsewhere, a `..` climbing out of the folder, a link out). */
int ona__paths_resolve_game(char *const *roots, uint32_t root_count, const char *name, char *path,
                            size_t size);

/* 0 when `path` is a regular file, ONA_ENOENT, ONA_ENOTFILE (a folder, FIFO...) or ONA_EIO. Never
 * opens it, so a FIFO cannot block. */
int ona__paths_check_file(const char *path);

/* Words for what a path error means, for a log line or a script's message: "no such file", "is
 * a directory, not a file" (it looks at `path` for ONA_ENOTFILE), "outside the game folder
 * (...)"; ona_strerror's text for other codes. Static storage. */
const char *ona__paths_why(int rc, const char *path);

/* Reads the whole file at `path` into a new buffer (ona__free it) with a NUL after the last byte,
 * so text can be read as a string; `*size` is the byte count without it. A file longer than
 * `limit` bytes is refused before anything is allocated. Anything but a regular file is refused
 * without blocking (ONA_ENOTFILE: a FIFO is opened non-blocking and checked with fstat). 0,
 * ONA_ENOENT (no such file, or a path through something that is not a directory), ONA_ENOTFILE,
 * ONA_EIO (any other open or read failure), ONA_ELIMIT, ONA_ENOMEM; on an error `*out` and
 * `*size` are untouched. */
int ona__read_file(const char *path, size_t limit, uint8_t **out, size_t *size);

/* paths_overlay.c: content that ona__read_file returns for `path` (resolved) instead of the
 * disk's, until `owner` drops it: a replay's recorded hot reloads. Main puts and drops; any
 * thread reads. put: 0 or ONA_ENOMEM (a second put of the path replaces the first). read: 1
 * when `path` has none, else ona__read_file's results. */
int ona__paths_overlay_put(const void *owner, const char *path, const uint8_t *bytes, size_t size);
void ona__paths_overlay_drop(const void *owner);
int ona__paths_overlay_read(const char *path, size_t limit, uint8_t **out, size_t *size);

/* paths_snapshot.c: one view of the files for work spread over threads (a hot reload's job).
 * While a thread has entered a snapshot, ona__read_file and the resolve functions answer what
 * the first read of that path (lookup of that name) under the snapshot found, so the work reads
 * each file once and every part of it sees the same bytes. Whoever made it frees it once no
 * thread is in it; enter returns the thread's previous snapshot, to enter again after. */
typedef struct ona__paths_snapshot ona__paths_snapshot;
ona__paths_snapshot *ona__paths_snapshot_new(void); /* NULL when out of memory */
void ona__paths_snapshot_free(ona__paths_snapshot *s);
ona__paths_snapshot *ona__paths_snapshot_enter(ona__paths_snapshot *s);
ona__paths_snapshot *ona__paths_snapshot_current(void);
/* ona__read_file under snapshot `s`: the kept answer, else `read`'s, kept for the next reader
 * (a refusal for the caller's limit, or for memory, is not kept). */
int ona__paths_snapshot_read(ona__paths_snapshot *s, const char *path, size_t limit,
                             int (*read)(const char *, size_t, uint8_t **, size_t *),
                             uint8_t **out, size_t *size);
/* A name's lookup: true with the kept result code and path; note keeps one. */
bool ona__paths_snapshot_lookup(ona__paths_snapshot *s, const char *key, int *rc, char *path,
                                size_t size);
void ona__paths_snapshot_note(ona__paths_snapshot *s, const char *key, int rc, const char *path);

/* --- Archives mounted as folders -------------------------------------------------------------
 * A game packed into one file (a zip) is a script root that is a file: its entries are named as
 * if the archive were a folder, "<archive path>/<entry>", and every function above reads them
 * through the ops of whoever mounted it (runtime/services/fs.c, on PhysicsFS), so every loader
 * finds a packed game's files the way it finds a folder's. Any thread; the table has a lock. */
typedef struct ona__mount_ops {
    /* What entry `rel` ("" for the archive's top) is: 0 with *is_dir and *size, else
     * ONA_ENOENT or ONA_EIO. */
    int (*stat)(void *ctx, const char *rel, bool *is_dir, uint64_t *size);
    /* Reads entry `rel` whole as ona__read_file does (a NUL after it; ONA_ELIMIT past limit). */
    int (*read)(void *ctx, const char *rel, size_t limit, uint8_t **out, size_t *size);
} ona__mount_ops;

/* Makes `prefix` (an archive's canonical path) a folder whose entries `ops` read; ctx is
 * passed back, and must live until ona__paths_unmount(ctx). 0, ONA_ELIMIT (64 at once),
 * ONA_ENOMEM. The same prefix mounted twice is read through the first mount still there. */
int ona__paths_mount(const char *prefix, const ona__mount_ops *ops, void *ctx);
/* Removes ctx's mount; no call reads through it after this returns. */
void ona__paths_unmount(void *ctx);
/* True when `path` is inside a mounted archive (no file there is on disk). */
bool ona__paths_mounted(const char *path);
/* Opens `path` for reading: fopen for a file on disk, a stream over the entry's bytes for one
 * in an archive. NULL with errno set when it cannot be read. */
FILE *ona__paths_fopen(const char *path);

#endif
