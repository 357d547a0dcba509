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
 */
#include "paths.h"

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? ONA_ENOENT : ONA_EIO;
    return S_ISREG(st.st_mode) ? 0 : ONA_ENOTFILE;
}

/* Canonicalises `path` in place and checks that it is a regular file (and, confined, inside a
 * root). */
static int found(char *const *roots, uint32_t root_count, char *path, size_t size, bool confined) {
    char real[PATH_MAX];
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
        if (lstat(path, &st) != 0)
            continue;
        return found(roots, root_count, path, size, confined);
    }
    return rc;
}

int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size) {
    return resolve(roots, root_count, name, path, size, false);
}

int ona__paths_resolve_game(char *const *roots, uint32_t root_count, const char *name, char *path,
                            size_t size) {
    return resolve(roots, root_count, name, path, size, true);
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

int ona__read_file(const char *path, size_t limit, uint8_t **out, size_t *size) {
    int stand_in = ona__paths_overlay_read(path, limit, out, size);
    if (stand_in != 1)
        return stand_in;
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
