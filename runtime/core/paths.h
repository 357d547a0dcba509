/*
 * paths.h: finding a game's files (scripts, modules, textures) under its script roots. Internal.
 * Pure functions of the file system; any thread.
 */
#ifndef ONA_PATHS_H
#define ONA_PATHS_H

#include "ona/base.h"

/* Finds `name`: an absolute path as it is; else under each root in turn; else relative to the
 * working directory. The result is canonical (realpath), so file events match it. 0, or
 * ONA_ENOENT with `path` holding the last candidate; ONA_ERANGE when a candidate does not fit. */
int ona__paths_resolve(char *const *roots, uint32_t root_count, const char *name, char *path,
                       size_t size);

#endif
