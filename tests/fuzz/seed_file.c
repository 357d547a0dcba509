/*
 * seed_file.c: the seed corpus writers' folder argument and file writes (seed_file.h).
 */
#include "seed_file.h"

#include <stdio.h>
#include <stdlib.h>

const char *seed_folder(const char *tool, int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <folder>\n", tool);
        exit(2);
    }
    return argv[1];
}

void seed_save(const char *tool, const char *folder, const char *name, const uint8_t *bytes,
               size_t size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", tool, path);
        exit(1);
    }
}
