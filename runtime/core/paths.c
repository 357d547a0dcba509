/*
 * paths.c: finding a game's files under its script roots, and reading one whole (paths.h).
 *
 * Design note. A relative name is looked up under each root in turn, never in the working
 * directory, so what a game loads does not depend on where the launcher was started. A name
 * that comes from a game's scripts is confined (ona__paths_resolve_game): whatever it resolves
 * to (after `..` and symbolic links, by realpath) must lie inside one of the roots, so
 * "/etc/passwd", "../../x" or a link out of the game folder are refused with ONA_EPATH instead
 * of reading whatever the disk holds; an absolute name is taken only when it is already inside
 * a root (the bindings hand resolved paths on to the registry). The embedder's C calls
 * (ona__paths_resolve) may name any absolute path: the host program chooses its own files. The
 * first root holding an entry of that name decides: a folder or a FIFO there is
 * reported as what it is (ONA_ENOTFILE), not skipped for a file elsewhere. Every path handed to
 * the rest of the runtime is canonical so that a file watched for hot reload (directory + name
 * from inotify) compares equal to the path it was loaded from. A candidate that does not fit the
 * caller's buffer is an error, never silently cut.
 *
 * Reading never blocks on something that is not a file: ona__read_file opens with O_NONBLOCK
 * (a FIFO without a writer opens at once) and checks the open descriptor with fstat, so a FIFO,
 * a device or a folder put in place after the lookup is refused too. Textures, sounds, fonts and
 * shaders are all read whole by it, each with its own size limit, so a missing or oversized
 * file reports the same error codes whichever loader met it. A replay's recorded hot reloads
 * stand in for the disk's content there (paths_overlay.c).
 *
 * Archives. A packed game's root is its archive file, and its entries are named as if the file
 * were a folder ("/games/pong.ona/main.lua": no such path can exist on disk, since its parent
 * is a regular file). The table of mounted archives is process-wide (several runtimes may run
 * in one process, each mounting its own), read under a rwlock held across the mounter's call,
 * so an unmount waits for the reads through it. Such a path is made canonical by its text alone
 * (".", ".." and repeated slashes folded: an archive has no links), then confined like any
 * other; resolve, check, read and fopen all dispatch on it, so loaders need not know.
 */
#include "paths.h"

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

/* --- Mounted archives ------------------------------------------------------------------------ */

enum { MAX_MOUNTS = 64 };

typedef struct mount {
    char *prefix;
    size_t len;
    const ona__mount_ops *ops;
    void *ctx;
} mount;

static mount mounts[MAX_MOUNTS];
/* Written under the write lock; read without it only to skip the lock when nothing is mounted
 * (acquire: pairs with the release of a mount, which a runtime makes before its systems run). */
static _Atomic(uint32_t) mount_count;

static bool any_mounts(void) {
    return atomic_load_explicit(&mount_count, memory_order_acquire) != 0;
}
static uv_rwlock_t mounts_lock;
static uv_once_t mounts_once = UV_ONCE_INIT;

static void mounts_init(void) {
    if (uv_rwlock_init(&mounts_lock) != 0)
        abort(); /* only when the OS has no resources for one lock, before any game runs */
}

int ona__paths_mount(const char *prefix, const ona__mount_ops *ops, void *ctx) {
    uv_once(&mounts_once, mounts_init);
    size_t len = strlen(prefix);
    char *copy = ona__malloc(len + 1);
    if (!copy)
        return ONA_ENOMEM;
    memcpy(copy, prefix, len + 1);
    uv_rwlock_wrlock(&mounts_lock);
    /* Relaxed inside the lock, which orders the table; the release publishes the count. */
    uint32_t n = atomic_load_explicit(&mount_count, memory_order_relaxed);
    int rc = n < MAX_MOUNTS ? 0 : ONA_ELIMIT;
    if (rc == 0) {
        mounts[n] = (mount){copy, len, ops, ctx};
        atomic_store_explicit(&mount_count, n + 1, memory_order_release);
    }
    uv_rwlock_wrunlock(&mounts_lock);
    if (rc)
        ona__free(copy);
    return rc;
}

void ona__paths_unmount(void *ctx) {
    uv_once(&mounts_once, mounts_init);
    char *gone = NULL;
    uv_rwlock_wrlock(&mounts_lock);
    /* Relaxed inside the lock, which every reader of the table holds. */
    uint32_t n = atomic_load_explicit(&mount_count, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++)
        if (mounts[i].ctx == ctx) {
            gone = mounts[i].prefix;
            memmove(&mounts[i], &mounts[i + 1], (n - i - 1) * sizeof *mounts);
            atomic_store_explicit(&mount_count, n - 1, memory_order_relaxed);
            break;
        }
    uv_rwlock_wrunlock(&mounts_lock);
    ona__free(gone);
}

/* The mount `path` lies in, with the read lock held (release with unlock_mounts), or NULL (the
 * lock not held). *rel is the part below the archive ("" for its top). */
static const mount *mount_of(const char *path, const char **rel) {
    uv_once(&mounts_once, mounts_init);
    uv_rwlock_rdlock(&mounts_lock);
    /* Relaxed under the lock, which orders the table's writes. */
    uint32_t n = atomic_load_explicit(&mount_count, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        const mount *m = &mounts[i];
        if (strncmp(path, m->prefix, m->len) == 0 && (path[m->len] == '/' || !path[m->len])) {
            *rel = path + m->len + (path[m->len] == '/');
            return m;
        }
    }
    uv_rwlock_rdunlock(&mounts_lock);
    return NULL;
}

static void unlock_mounts(void) {
    uv_rwlock_rdunlock(&mounts_lock);
}

bool ona__paths_mounted(const char *path) {
    const char *rel;
    if (!any_mounts())
        return false;
    if (!mount_of(path, &rel))
        return false;
    unlock_mounts();
    return true;
}

/* Folds "//", "/./" and "x/.." in an absolute `path`, in place (".." at the top stays there). */
static void fold(char *path) {
    char *out = path;
    for (const char *c = path; *c;) {
        while (*c == '/')
            c++;
        const char *end = c;
        while (*end && *end != '/')
            end++;
        size_t n = (size_t)(end - c);
        if (n == 1 && c[0] == '.') {
        } else if (n == 2 && c[0] == '.' && c[1] == '.') {
            while (out > path && *--out != '/')
                ;
        } else if (n > 0) {
            *out++ = '/';
            memmove(out, c, n);
            out += n;
        }
        c = end;
    }
    if (out == path)
        *out++ = '/';
    *out = '\0';
}

/* ona__paths_check_file for an entry of mount `m`. */
static int mounted_kind(const mount *m, const char *rel) {
    bool dir = false;
    uint64_t size = 0;
    int rc = m->ops->stat(m->ctx, rel, &dir, &size);
    return rc ? rc : dir ? ONA_ENOTFILE : 0;
}

/* True when the canonical `real` is `root` (canonical) or inside it. */
static bool inside(const char *real, const char *root) {
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return true;
    return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* True when `real` (canonical) lies inside one of the roots. */
static bool inside_a_root(char *const *roots, uint32_t root_count, const char *real) {
    char root[PATH_MAX];
    for (uint32_t i = 0; i < root_count; i++)
        if (realpath(roots[i], root) && inside(real, root))
            return true;
    return false;
}

/* True when a relative name climbs out of the folder it is looked up in ("../x", "a/../../x"). */
static bool climbs_out(const char *name) {
    int depth = 0;
    for (const char *c = name; *c;) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            if (--depth < 0)
                return true;
        } else if (n > 0 && !(n == 1 && c[0] == '.'))
            depth++;
        c += n;
        while (*c == '/')
            c++;
    }
    return false;
}

int ona__paths_check_file(const char *path) {
    const char *rel;
    const mount *m = any_mounts() ? mount_of(path, &rel) : NULL;
    if (m) {
        int rc = mounted_kind(m, rel);
        unlock_mounts();
        return rc;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? ONA_ENOENT : ONA_EIO;
    return S_ISREG(st.st_mode) ? 0 : ONA_ENOTFILE;
}

/* Canonicalises `path` in place and checks that it is a regular file (and, confined, inside a
 * root). */
static int found(char *const *roots, uint32_t root_count, char *path, size_t size, bool confined) {
    char real[PATH_MAX];
    if (path[0] == '/' && ona__paths_mounted(path)) {
        fold(path);
        if (confined && !inside_a_root(roots, root_count, path))
            return ONA_EPATH;
        return ona__paths_check_file(path);
    }
    if (!realpath(path, real))
        return errno == ENOENT || errno == ENOTDIR ? ONA_ENOENT : ONA_EIO;
    if (confined && !inside_a_root(roots, root_count, real))
        return ONA_EPATH;
    if (strlen(real) >= size)
        return ONA_ERANGE;
    strcpy(path, real);
    return ona__paths_check_file(path);
}

static int resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                   size_t size, bool confined) {
    if (!name || !*name || size == 0)
        return ONA_EINVAL;
    if (name[0] == '/') {
        int n = snprintf(path, size, "%s", name);
        if (n < 0 || (size_t)n >= size)
            return ONA_ERANGE;
        int rc = found(roots, root_count, path, size, confined);
        /* A missing file outside every root is still outside: say so, not "no such file". */
        return rc == ONA_ENOENT && confined && !inside_a_root(roots, root_count, name) ? ONA_EPATH
                                                                                       : rc;
    }
    if (confined && climbs_out(name)) {
        snprintf(path, size, "%s", name);
        return ONA_EPATH;
    }
    int rc = ONA_ENOENT;
    for (uint32_t i = 0; i < root_count; i++) {
        int n = snprintf(path, size, "%s/%s", roots[i], name);
        if (n < 0 || (size_t)n >= size)
            return ONA_ERANGE;
        struct stat st;
        if (ona__paths_mounted(path) ? ona__paths_check_file(path) == ONA_ENOENT
                                     : lstat(path, &st) != 0)
            continue;
        return found(roots, root_count, path, size, confined);
    }
    return rc;
}

/* resolve, answered by the thread's snapshot when it has one (the roots are one runtime's). */
static int resolve_seen(char *const *roots, uint32_t root_count, const char *name, char *path,
                        size_t size, bool confined) {
    ona__paths_snapshot *snap = ona__paths_snapshot_current();
    char key[PATH_MAX + 8];
    if (!snap || !name || snprintf(key, sizeof key, "\x01%c:%s", confined ? 'g' : 'r', name) >=
                                         (int)sizeof key)
        return resolve(roots, root_count, name, path, size, confined);
    int rc;
    if (ona__paths_snapshot_lookup(snap, key, &rc, path, size))
        return rc;
    rc = resolve(roots, root_count, name, path, size, confined);
    if (rc != ONA_ERANGE && rc != ONA_EINVAL)
        ona__paths_snapshot_note(snap, key, rc, path);
    return rc;
}

int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size) {
    return resolve_seen(roots, root_count, name, path, size, false);
}

int ona__paths_resolve_game(char *const *roots, uint32_t root_count, const char *name, char *path,
                            size_t size) {
    return resolve_seen(roots, root_count, name, path, size, true);
}

const char *ona__paths_why(int rc, const char *path) {
    switch (rc) {
    case ONA_ENOENT:
        return "no such file";
    case ONA_EPATH:
        return "outside the game folder (a path is relative to the game folder, without an "
               "absolute start or a '..' that leaves it)";
    case ONA_ENOTFILE: {
        struct stat st;
        if (path && ona__paths_mounted(path))
            return "is a directory, not a file";
        if (path && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                return "is a directory, not a file";
            if (S_ISFIFO(st.st_mode))
                return "is a FIFO (named pipe), not a regular file";
            if (S_ISSOCK(st.st_mode))
                return "is a socket, not a regular file";
            if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
                return "is a device, not a regular file";
        }
        return "not a regular file";
    }
    case ONA_ELIMIT:
        return "the file is too large";
    case ONA_EIO:
        return "cannot be read (input/output error)";
    default:
        return ona_strerror(rc);
    }
}

static int read_now(const char *path, size_t limit, uint8_t **out, size_t *size);

int ona__read_file(const char *path, size_t limit, uint8_t **out, size_t *size) {
    int stand_in = ona__paths_overlay_read(path, limit, out, size);
    if (stand_in != 1)
        return stand_in;
    ona__paths_snapshot *snap = ona__paths_snapshot_current();
    if (snap)
        return ona__paths_snapshot_read(snap, path, limit, read_now, out, size);
    return read_now(path, limit, out, size);
}

/* ona__read_file from the disk or a mounted archive. */
static int read_now(const char *path, size_t limit, uint8_t **out, size_t *size) {
    const char *rel;
    const mount *m = any_mounts() ? mount_of(path, &rel) : NULL;
    if (m) {
        int rc = mounted_kind(m, rel);
        if (rc == 0)
            rc = m->ops->read(m->ctx, rel, limit, out, size);
        unlock_mounts();
        return rc;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? ONA_ENOENT
               : errno == EISDIR                   ? ONA_ENOTFILE
                                                   : ONA_EIO;
    struct stat st;
    int rc = 0;
    uint8_t *data = NULL;
    size_t n = 0;
    if (fstat(fd, &st) != 0)
        rc = ONA_EIO;
    else if (!S_ISREG(st.st_mode))
        rc = ONA_ENOTFILE;
    else if (st.st_size < 0 || (uint64_t)st.st_size > limit)
        rc = ONA_ELIMIT;
    else if (!(data = ona__malloc((size_t)st.st_size + 1)))
        rc = ONA_ENOMEM;
    else {
        n = (size_t)st.st_size;
        for (size_t got = 0; got < n && !rc;) {
            ssize_t r = read(fd, data + got, n - got);
            if (r > 0)
                got += (size_t)r;
            else if (r < 0 && errno == EINTR)
                continue;
            else
                rc = ONA_EIO; /* an error, or the file shrank while being read */
        }
    }
    close(fd);
    if (rc) {
        ona__free(data);
        return rc;
    }
    data[n] = 0;
    *out = data;
    *size = n;
    return 0;
}

FILE *ona__paths_fopen(const char *path) {
    if (!ona__paths_mounted(path))
        return fopen(path, "rb");
    uint8_t *data;
    size_t size;
    int rc = ona__read_file(path, SIZE_MAX - 1, &data, &size);
    if (rc) {
        errno = rc == ONA_ENOENT ? ENOENT : rc == ONA_ENOMEM ? ENOMEM : EIO;
        return NULL;
    }
    /* A stream that owns a copy of the bytes (freed by fclose). */
    FILE *f = fmemopen(NULL, size + 1, "w+");
    if (f && (fwrite(data, 1, size, f) != size || fseek(f, 0, SEEK_SET) != 0)) {
        fclose(f);
        f = NULL;
        errno = EIO;
    }
    ona__free(data);
    return f;
}
