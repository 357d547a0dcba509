/*
 * fs.c: the game's file system (fs.h) on PhysicsFS: every script root, folder or archive, and the
 * save folder, each mounted at a mount point of its own, read as one tree by ona.fs, and the
 * packed game's archive lent to every loader through the core's path table (paths.h).
 *
 * Design note.
 *  - PhysicsFS is process-wide: PHYSFS_init and PHYSFS_deinit are not thread-safe and there is
 *    one search path for the process. A process-wide count of users (runtimes, the fuzz target)
 *    under `lock` starts it with the first and stops it with the last. Mounts and unmounts also
 *    go through `lock`; reads (stat, open, read, enumerate) take PhysicsFS's own state lock and
 *    run on any thread, each on its own file handle.
 *  - Isolation: a runtime looks only under its own trees' mount points ("/ona<k>"), never at
 *    PhysicsFS's merged root, so two runtimes never see each other's files. PhysicsFS treats a
 *    second mount of the same folder or archive as done already, so a tree is shared, with a
 *    count, by the runtimes that mount the same canonical path (they see the same files anyway).
 *  - Symbolic links are not followed (PhysicsFS's default, never changed here): a link, or a
 *    path through one, reads as missing, so nothing outside the game is reachable through ona.fs.
 *  - Paths are checked before PhysicsFS sees them (ona__fs_check_path): absolute, "..", NUL and
 *    '\\' are refused as leaving the game; "." and repeated slashes are dropped.
 *  - The save folder overlays the game (LÖVE's rule) for ona.fs's reads: an entry there wins over
 *    the game's of the same path. It is mounted once it exists (it is created by the first save),
 *    checked at each read that needs it. Writes never go through PhysicsFS: they are saves'
 *    atomic writes (save.h), into the save folder only.
 */
#include "fs.h"

#include "paths.h"
#include "save.h"
#include "services.h"

#include <errno.h>
#include <limits.h>
#include <physfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <uv.h>

enum { PATH_BYTES = 4096 };

/* --- PhysicsFS, shared by the process ------------------------------------------------------- */

typedef struct shared_tree {
    char *real;
    char point[24];
    uint32_t refs;
} shared_tree;

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t lock; /* guards everything below */
static uint32_t users;
static shared_tree *trees;
static uint32_t tree_count, tree_capacity;
static uint64_t next_point;

static void init_lock(void) {
    if (uv_mutex_init(&lock) != 0)
        abort(); /* only when the OS has no resources for one lock, before any game runs */
}

static const char *physfs_why(void) {
    return PHYSFS_getErrorByCode(PHYSFS_getLastErrorCode());
}

int ona__fs_physfs_acquire(void) {
    uv_once(&once, init_lock);
    uv_mutex_lock(&lock);
    int rc = 0;
    if (users == 0 && !PHYSFS_init(NULL)) {
        ona_log(ONA_LOG_ERROR, "fs", "PhysicsFS did not start: %s", physfs_why());
        rc = ONA_EIO;
    }
    if (rc == 0)
        users++;
    uv_mutex_unlock(&lock);
    return rc;
}

void ona__fs_physfs_release(void) {
    uv_once(&once, init_lock);
    uv_mutex_lock(&lock);
    if (users && --users == 0) {
        PHYSFS_deinit();
        ona__free(trees);
        trees = NULL;
        tree_count = tree_capacity = 0;
    }
    uv_mutex_unlock(&lock);
}

/* Mounts `real` (a folder or an archive) at a point of its own, or takes one more reference to
 * its mount; *point gets the point. 0, ONA_EFORMAT (PhysicsFS cannot read it: *why), ONA_ENOMEM. */
static int tree_take(const char *real, char **point, const char **why) {
    uv_mutex_lock(&lock);
    int rc = 0;
    shared_tree *t = NULL;
    for (uint32_t i = 0; i < tree_count && !t; i++)
        if (strcmp(trees[i].real, real) == 0)
            t = &trees[i];
    if (!t) {
        if (tree_count == tree_capacity) {
            uint32_t cap = tree_capacity ? tree_capacity * 2 : 8;
            shared_tree *grown = ona__realloc(trees, cap * sizeof *grown);
            if (!grown)
                rc = ONA_ENOMEM;
            else {
                trees = grown;
                tree_capacity = cap;
            }
        }
        char *copy = rc ? NULL : ona__malloc(strlen(real) + 1);
        if (!rc && !copy)
            rc = ONA_ENOMEM;
        if (!rc) {
            strcpy(copy, real);
            t = &trees[tree_count];
            *t = (shared_tree){.real = copy, .refs = 0};
            snprintf(t->point, sizeof t->point, "/ona%llu", (unsigned long long)++next_point);
            if (!PHYSFS_mount(real, t->point, 1)) {
                *why = physfs_why();
                ona__free(copy);
                t = NULL;
                rc = ONA_EFORMAT;
            } else
                tree_count++;
        }
    }
    if (t) {
        *point = ona__malloc(strlen(t->point) + 1);
        if (*point) {
            strcpy(*point, t->point);
            t->refs++;
        } else
            rc = ONA_ENOMEM;
    }
    uv_mutex_unlock(&lock);
    return rc;
}

static void tree_give(const char *real) {
    uv_mutex_lock(&lock);
    for (uint32_t i = 0; i < tree_count; i++)
        if (strcmp(trees[i].real, real) == 0) {
            if (--trees[i].refs == 0) {
                if (!PHYSFS_unmount(trees[i].real))
                    ona_log(ONA_LOG_WARN, "fs", "%s could not be unmounted: %s", trees[i].real,
                            physfs_why());
                ona__free(trees[i].real);
                trees[i] = trees[--tree_count];
            }
            break;
        }
    uv_mutex_unlock(&lock);
}

/* "<point>/<path>" (just the point for ""); false when it does not fit. */
static bool join(const char *point, const char *path, char *out, size_t size) {
    int n = snprintf(out, size, "%s%s%s", point, *path ? "/" : "", path);
    return n >= 0 && (size_t)n < size;
}

/* --- One tree ------------------------------------------------------------------------------- */

static int tree_stat(const ona__fs_tree *t, const char *path, bool *is_dir, uint64_t *size) {
    char full[PATH_BYTES];
    PHYSFS_Stat st;
    if (!t->point || !join(t->point, path, full, sizeof full) || !PHYSFS_stat(full, &st))
        return ONA_ENOENT;
    if (st.filetype != PHYSFS_FILETYPE_REGULAR && st.filetype != PHYSFS_FILETYPE_DIRECTORY)
        return ONA_ENOENT; /* a link (never followed) or a device */
    *is_dir = st.filetype == PHYSFS_FILETYPE_DIRECTORY;
    *size = st.filesize > 0 ? (uint64_t)st.filesize : 0;
    return 0;
}

static int tree_read(const ona__fs_tree *t, const char *path, size_t limit, uint8_t **out,
                     size_t *size) {
    char full[PATH_BYTES];
    if (!join(t->point, path, full, sizeof full))
        return ONA_ENOENT;
    PHYSFS_File *f = PHYSFS_openRead(full);
    if (!f)
        return PHYSFS_getLastErrorCode() == PHYSFS_ERR_OUT_OF_MEMORY ? ONA_ENOMEM : ONA_ENOENT;
    PHYSFS_sint64 n = PHYSFS_fileLength(f);
    int rc = 0;
    uint8_t *data = NULL;
    if (n < 0)
        rc = ONA_EIO;
    else if ((uint64_t)n > limit)
        rc = ONA_ELIMIT;
    else if (!(data = ona__malloc((size_t)n + 1)))
        rc = ONA_ENOMEM;
    else if (PHYSFS_readBytes(f, data, (PHYSFS_uint64)n) != n)
        rc = ONA_EIO; /* a damaged archive entry, or a file cut while read */
    PHYSFS_close(f);
    if (rc) {
        ona__free(data);
        return rc;
    }
    data[n] = 0;
    *out = data;
    *size = (size_t)n;
    return 0;
}

/* The core's reads of an archive root's entries (paths.h). */
static int mount_stat(void *ctx, const char *rel, bool *is_dir, uint64_t *size) {
    return tree_stat(ctx, rel, is_dir, size);
}

static int mount_read(void *ctx, const char *rel, size_t limit, uint8_t **out, size_t *size) {
    return tree_read(ctx, rel, limit, out, size);
}

static const ona__mount_ops archive_ops = {mount_stat, mount_read};

/* --- A runtime's trees ---------------------------------------------------------------------- */

int ona__fs_init(ona__services *s) {
    ona__fs *fs = &s->fs;
    int rc = ona__fs_physfs_acquire();
    if (rc)
        return rc;
    fs->started = true;
    fs->roots = ona__calloc(s->root_count ? s->root_count : 1, sizeof *fs->roots);
    if (!fs->roots)
        return ONA_ENOMEM;
    fs->root_count = s->root_count;
    for (uint32_t i = 0; i < s->root_count && rc == 0; i++) {
        char real[PATH_MAX];
        struct stat st;
        if (!realpath(s->roots[i], real) || stat(real, &st) != 0 ||
            !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            continue; /* a root not there (yet), or no folder: its loads say so by name */
        bool archive = S_ISREG(st.st_mode);
        const char *why = NULL;
        ona__fs_tree *t = &fs->roots[i];
        rc = tree_take(real, &t->point, &why);
        if (rc == ONA_EFORMAT)
            ona_log(ONA_LOG_ERROR, "fs", "%s: %s (%s)", real,
                    archive ? "not a game archive PhysicsFS can read (a zip made by `ona pack`)"
                            : "cannot be mounted",
                    why ? why : "unknown");
        if (rc)
            break;
        t->real = ona__malloc(strlen(real) + 1);
        if (!t->real)
            return ONA_ENOMEM;
        strcpy(t->real, real);
        if (archive) {
            /* Loaders name its files "<archive>/<entry>": the root is the canonical path. */
            char *name = ona__malloc(strlen(real) + 1);
            if (!name)
                return ONA_ENOMEM;
            strcpy(name, real);
            ona__free(s->roots[i]);
            s->roots[i] = name;
            rc = ona__paths_mount(real, &archive_ops, t);
            fs->packed = true;
        }
    }
    return rc;
}

void ona__fs_free(ona__services *s) {
    ona__fs *fs = &s->fs;
    for (uint32_t i = 0; fs->roots && i < fs->root_count; i++) {
        ona__paths_unmount(&fs->roots[i]); /* first: no loader reads through it after */
        if (fs->roots[i].point)
            tree_give(fs->roots[i].real);
        ona__free(fs->roots[i].point);
        ona__free(fs->roots[i].real);
    }
    ona__free(fs->roots);
    if (fs->save.point)
        tree_give(fs->save.real);
    ona__free(fs->save.point);
    ona__free(fs->save.real);
    if (fs->started)
        ona__fs_physfs_release();
    *fs = (ona__fs){0};
}

/* The save folder's tree, mounted once the folder exists; NULL before. */
static const ona__fs_tree *save_tree(ona__services *s) {
    ona__fs *fs = &s->fs;
    uv_mutex_lock(&lock);
    bool mounted = fs->save.point != NULL;
    uv_mutex_unlock(&lock);
    if (mounted)
        return &fs->save;
    struct stat st;
    if (!s->save_dir || stat(s->save_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    char real[PATH_MAX];
    if (!realpath(s->save_dir, real))
        return NULL;
    char *point = NULL, *copy = ona__malloc(strlen(real) + 1);
    const char *why;
    if (!copy || tree_take(real, &point, &why) != 0) {
        ona__free(copy);
        return NULL;
    }
    strcpy(copy, real);
    uv_mutex_lock(&lock);
    bool lost = fs->save.point != NULL; /* another thread mounted it meanwhile */
    if (!lost) {
        fs->save.real = copy;
        fs->save.point = point;
    }
    uv_mutex_unlock(&lock);
    if (lost) {
        tree_give(real);
        ona__free(point);
        ona__free(copy);
    }
    return &s->fs.save;
}

int ona__fs_check_path(const char *path, size_t len, char *out, size_t size, const char **why) {
    *why = NULL;
    if (strlen(path) != len)
        *why = "holds a NUL byte";
    else if (path[0] == '/')
        *why = "is absolute (a path is relative to the game)";
    else if (strchr(path, '\\'))
        *why = "holds a '\\' (paths use '/')";
    if (*why)
        return ONA_EPATH;
    size_t n = 0;
    for (const char *c = path; *c;) {
        const char *end = strchr(c, '/');
        size_t part = end ? (size_t)(end - c) : strlen(c);
        if (part == 2 && c[0] == '.' && c[1] == '.') {
            *why = "has a '..' (a path may not leave the game)";
            return ONA_EPATH;
        }
        if (part > 0 && !(part == 1 && c[0] == '.')) {
            if (n + part + 2 > size)
                return ONA_ERANGE;
            if (n)
                out[n++] = '/';
            memcpy(out + n, c, part);
            n += part;
        }
        c += part;
        while (*c == '/')
            c++;
    }
    if (size == 0)
        return ONA_ERANGE;
    out[n] = '\0';
    return 0;
}

int ona__fs_stat(ona__services *s, const char *path, bool saves, bool *is_dir, uint64_t *size,
                 bool *in_save) {
    const ona__fs_tree *save = saves ? save_tree(s) : NULL;
    *in_save = save && tree_stat(save, path, is_dir, size) == 0;
    if (*in_save)
        return 0;
    for (uint32_t i = 0; i < s->fs.root_count; i++)
        if (tree_stat(&s->fs.roots[i], path, is_dir, size) == 0)
            return 0;
    return ONA_ENOENT;
}

int ona__fs_read(ona__services *s, const char *path, bool saves, size_t limit, uint8_t **out,
                 size_t *size, bool *in_save, char *real, size_t real_size) {
    const ona__fs_tree *save = saves ? save_tree(s) : NULL;
    const ona__fs_tree *found = NULL;
    bool is_dir = false;
    uint64_t bytes;
    if (save && tree_stat(save, path, &is_dir, &bytes) == 0)
        found = save;
    for (uint32_t i = 0; !found && i < s->fs.root_count; i++)
        if (tree_stat(&s->fs.roots[i], path, &is_dir, &bytes) == 0)
            found = &s->fs.roots[i];
    if (!found)
        return ONA_ENOENT;
    if (is_dir)
        return ONA_ENOTFILE;
    *in_save = found == save;
    snprintf(real, real_size, "%s/%s", found->real, path);
    return tree_read(found, path, limit, out, size);
}

/* --- Listing -------------------------------------------------------------------------------- */

typedef struct name_list {
    char **names;
    uint32_t count, capacity;
    int rc;
} name_list;

static void list_add(name_list *l, const char *name) {
    if (l->rc)
        return;
    if (l->count + 1 >= l->capacity) {
        uint32_t cap = l->capacity ? l->capacity * 2 : 16;
        char **grown = ona__realloc(l->names, cap * sizeof *grown);
        if (!grown) {
            l->rc = ONA_ENOMEM;
            return;
        }
        l->names = grown;
        l->capacity = cap;
    }
    char *copy = ona__malloc(strlen(name) + 1);
    if (!copy) {
        l->rc = ONA_ENOMEM;
        return;
    }
    strcpy(copy, name);
    l->names[l->count++] = copy;
    l->names[l->count] = NULL;
}

static int by_bytes(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A temporary file an atomic write left behind (".<name>.tmp-XXXXXX"): never shown. */
static bool leftover(const char *name) {
    return name[0] == '.' && strstr(name, ".tmp-") != NULL;
}

static void list_tree(const ona__fs_tree *t, const char *path, bool is_save, name_list *l,
                      bool *any) {
    bool is_dir = false;
    uint64_t size;
    char full[PATH_BYTES];
    if (!t->point || tree_stat(t, path, &is_dir, &size) != 0 || !is_dir ||
        !join(t->point, path, full, sizeof full))
        return;
    *any = true;
    char **names = PHYSFS_enumerateFiles(full);
    if (!names) {
        l->rc = ONA_ENOMEM;
        return;
    }
    for (char **n = names; *n; n++)
        if (!(is_save && leftover(*n)))
            list_add(l, *n);
    PHYSFS_freeList(names);
}

int ona__fs_list(ona__services *s, const char *path, bool saves, char ***names, uint32_t *count) {
    name_list l = {0};
    bool any = false;
    const ona__fs_tree *save = saves ? save_tree(s) : NULL;
    if (save)
        list_tree(save, path, true, &l, &any);
    for (uint32_t i = 0; i < s->fs.root_count; i++)
        list_tree(&s->fs.roots[i], path, false, &l, &any);
    if (!l.rc && !any)
        l.rc = ONA_ENOENT;
    if (!l.rc && !l.names && !(l.names = ona__calloc(1, sizeof *l.names)))
        l.rc = ONA_ENOMEM; /* an empty folder: an empty list */
    if (l.rc) {
        ona__fs_free_list(l.names);
        return l.rc;
    }
    qsort(l.names, l.count, sizeof *l.names, by_bytes);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l.count; i++) {
        if (kept && strcmp(l.names[kept - 1], l.names[i]) == 0)
            ona__free(l.names[i]);
        else
            l.names[kept++] = l.names[i];
    }
    l.names[kept] = NULL;
    *names = l.names;
    *count = kept;
    return 0;
}

void ona__fs_free_list(char **names) {
    for (char **n = names; n && *n; n++)
        ona__free(*n);
    ona__free(names);
}

/* --- Writing -------------------------------------------------------------------------------- */

int ona__fs_write(ona__services *s, const char *path, const void *data, size_t size, char *err,
                  size_t errsize) {
    if (!s->save_dir || !*s->save_dir) {
        snprintf(err, errsize,
                 "%s: no save folder (neither XDG_DATA_HOME nor HOME is set; set "
                 "ona_runtime_desc.save_dir or the launcher's --save-dir)",
                 path);
        return ONA_ENOENT;
    }
    char full[PATH_BYTES], dir[PATH_BYTES];
    int n = snprintf(full, sizeof full, "%s/%s", s->save_dir, path);
    if (n < 0 || (size_t)n >= sizeof full) {
        snprintf(err, errsize, "%s: the path is too long", path);
        return ONA_ERANGE;
    }
    snprintf(dir, sizeof dir, "%s", full);
    *strrchr(dir, '/') = '\0';
    const char *step;
    int e = ona__save_write_atomic(dir, full, data, size, NULL, 0, &step);
    if (e) {
        snprintf(err, errsize, "%s (%s): cannot %s: %s", path, full, step, strerror(e));
        return ONA_EIO;
    }
    return 0;
}
