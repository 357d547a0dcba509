/*
 * paths.c: finding a game's files under its script roots, and reading one whole (paths.h).
 *
 * Design note. Every path handed to the rest of the runtime is canonical (realpath) so that a
 * file watched for hot reload (directory + name from inotify) compares equal to the path it was
 * loaded from. A candidate that does not fit the caller's buffer is an error, never silently cut.
 * Textures, sounds and fonts are all read whole by ona__read_file, each with its own size limit,
 * so a missing or oversized file reports the same error codes whichever loader met it.
 */
#include "paths.h"

#include "common.h"

#include <errno.h>
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

int ona__read_file(const char *path, size_t limit, uint8_t **out, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT || errno == ENOTDIR ? ONA_ENOENT : ONA_EIO;
    int rc = 0;
    uint8_t *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0)
        rc = ONA_EIO;
    else if ((unsigned long)n > limit)
        rc = ONA_ELIMIT;
    else if (!(data = ona__malloc((size_t)n + 1)))
        rc = ONA_ENOMEM;
    else if (fread(data, 1, (size_t)n, f) != (size_t)n)
        rc = ONA_EIO;
    fclose(f);
    if (rc) {
        ona__free(data);
        return rc;
    }
    data[n] = 0;
    *out = data;
    *size = (size_t)n;
    return 0;
}
