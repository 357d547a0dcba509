/*
 * paths.c: finding a game's files under its script roots (paths.h).
 *
 * Design note. Every path handed to the rest of the runtime is canonical (realpath) so that a
 * file watched for hot reload (directory + name from inotify) compares equal to the path it was
 * loaded from. A candidate that does not fit the caller's buffer is an error, never silently cut.
 */
#include "paths.h"

#include "common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int found(char *path, size_t size) {
    char real[PATH_MAX];
    if (realpath(path, real) && strlen(real) < size)
        strcpy(path, real);
    return 0;
}

static int candidate(char *path, size_t size, const char *root, const char *name) {
    int n = root ? snprintf(path, size, "%s/%s", root, name) : snprintf(path, size, "%s", name);
    if (n < 0 || (size_t)n >= size)
        return ONA_ERANGE;
    return is_file(path) ? found(path, size) : ONA_ENOENT;
}

int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size) {
    if (!name || !*name || size == 0)
        return ONA_EINVAL;
    if (name[0] == '/')
        return candidate(path, size, NULL, name);
    for (uint32_t i = 0; i < root_count; i++) {
        int rc = candidate(path, size, roots[i], name);
        if (rc != ONA_ENOENT)
            return rc;
    }
    return candidate(path, size, NULL, name);
}
