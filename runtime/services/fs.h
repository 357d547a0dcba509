/*
 * fs.h: the game's file system on PhysicsFS (runtime/services/fs.c): the game's folders and
 * archives as one read-only tree, the save folder over it, and writes into the save folder.
 * Internal to the library; the Lua binding is bindings/l_fs.c.
 *
 * A path here is relative to the game ("levels/1.txt"); ona__fs_check_path makes it canonical and
 * refuses one that leaves the game. Every function may run on any thread.
 */
#ifndef ONA_FS_H
#define ONA_FS_H

#include "common.h"

#include <stdbool.h>

struct ona__services;

/* One mounted tree (a script root, or the save folder) of a runtime. */
typedef struct ona__fs_tree {
    char *point; /* its PhysicsFS mount point, "/ona<k>" */
    char *real;  /* the folder or archive it shows (canonical) */
} ona__fs_tree;

typedef struct ona__fs {
    ona__fs_tree *roots; /* the script roots, in their order */
    uint32_t root_count;
    ona__fs_tree save; /* point NULL until the save folder exists */
    bool started;      /* holds a reference to PhysicsFS's init */
    bool packed;       /* a root is an archive (the game is one file): nothing is watched */
} ona__fs;

/* Starts PhysicsFS (refcounted: the first runtime starts it, the last stops it) and mounts every
 * script root of `s`: a folder as it is, a regular file as an archive (a zip), which is also
 * mounted in the core's path table (paths.h) so every loader reads it; that root's name becomes
 * its canonical path. Main, at creation. 0, ONA_EFORMAT (a root that is a file but not an
 * archive PhysicsFS can read, logged), ONA_ENOENT (a root that does not exist is skipped, not an
 * error: 0), ONA_ENOMEM. */
int ona__fs_init(struct ona__services *s);
/* Unmounts what init mounted and gives back the reference. Main, at destroy. */
void ona__fs_free(struct ona__services *s);

/* Makes `path` (len bytes) canonical in `out` ("." and empty parts dropped; "" is the game's
 * top). ONA_EPATH with *why for a path that leaves the game: absolute, a "..", a NUL, a '\\';
 * ONA_ERANGE when it does not fit. */
int ona__fs_check_path(const char *path, size_t len, char *out, size_t size, const char **why);

/* What `path` (canonical) is: the save folder's entry first, then the roots' in order. 0 with
 * *is_dir, *size and *in_save; ONA_ENOENT. `saves` false: the game only. */
int ona__fs_stat(struct ona__services *s, const char *path, bool saves, bool *is_dir,
                 uint64_t *size, bool *in_save);
/* Reads file `path` whole (ona__free it; a NUL after it), where ona__fs_stat finds it; `real`
 * gets the file's path outside the tree (a root's folder or archive + "/" + path), for a
 * recording's list of the game's files. 0, ONA_ENOENT, ONA_ENOTFILE (a folder), ONA_ELIMIT (past
 * `limit`), ONA_EIO, ONA_ENOMEM. */
int ona__fs_read(struct ona__services *s, const char *path, bool saves, size_t limit, uint8_t **out,
                 size_t *size, bool *in_save, char *real, size_t real_size);
/* The names in folder `path`, merged over the trees, sorted by bytes and without duplicates,
 * as a NULL-terminated array (ona__fs_free_list it) with *count. 0, ONA_ENOENT (no such folder
 * anywhere), ONA_ENOTFILE... never: a file is ONA_ENOENT too; ONA_ENOMEM. */
int ona__fs_list(struct ona__services *s, const char *path, bool saves, char ***names,
                 uint32_t *count);
void ona__fs_free_list(char **names);
/* Writes `size` bytes as file `path` of the save folder (its folders made), atomically, as a
 * save is written (save.h). 0, ONA_ENOENT (no save folder), ONA_EIO; err says why in words. */
int ona__fs_write(struct ona__services *s, const char *path, const void *data, size_t size,
                  char *err, size_t errsize);

/* PhysicsFS's reference for code that mounts trees of its own (the fuzz target): take and give
 * back. 0 or ONA_EIO. */
int ona__fs_physfs_acquire(void);
void ona__fs_physfs_release(void);

#endif
