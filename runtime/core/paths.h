/*
 * paths.h: finding a game's files (scripts, modules, textures) under its script roots, and reading
 * one whole. Internal. Pure functions of the file system; any thread.
 */
#ifndef ONA_PATHS_H
#define ONA_PATHS_H

#include "ona/base.h"

/* Finds `name`: an absolute path as it is; else under each root in turn; else relative to the
 * working directory. The result is canonical (realpath), so file events match it. 0, or
 * ONA_ENOENT with `path` holding the last candidate; ONA_ERANGE when a candidate does not fit. */
int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size);

/* Reads the whole file at `path` into a new buffer (ona__free it) with a NUL after the last byte,
 * so text can be read as a string; `*size` is the byte count without it. A file longer than
 * `limit` bytes is refused before anything is allocated. 0, ONA_ENOENT (no such file, or a path
 * through something that is not a directory), ONA_EIO (any other open, seek or read failure),
 * ONA_ELIMIT, ONA_ENOMEM; on an error `*out` and `*size` are untouched. */
int ona__read_file(const char *path, size_t limit, uint8_t **out, size_t *size);

#endif
