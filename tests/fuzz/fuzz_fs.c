/*
 * fuzz_fs.c: the game archive's fuzz target. Untrusted bytes are written to a scratch file that
 * is made a runtime's script root (runtime/services/fs.c mounts it on PhysicsFS, whose zip
 * reader parses it, and lends it to the core's path table); then every folder is listed and
 * every file read, as ona.fs and the loaders would.
 *
 * Design note. One file, two builds, like fuzz_record.c: linked with -fsanitize=fuzzer into
 * `fuzz_fs` under ONA_BUILD_FUZZ, and compiled plainly into test_fuzz_corpus, which replays
 * tests/fuzz/corpus/fs/ through the same function on every build. Properties, each an abort():
 * a listing is sorted without duplicates and every name in it is found by stat; a file reads
 * as many bytes as stat said, the same bytes through ona__fs_read and through ona__read_file
 * (the loaders' path); folders nest at most 16 deep and at most 4096 entries are visited, so a
 * forged archive cannot make a run long.
 */
#include "fuzz_fs.h"

#include "fs.h"
#include "paths.h"
#include "services.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_DEPTH = 16, MAX_VISITS = 4096, READ_LIMIT = 1 << 20 };

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_fs: %s\n", what);
        abort();
    }
}

static void visit(ona__services *s, const char *dir, int depth, int *visits) {
    char **names;
    uint32_t count;
    if (depth > MAX_DEPTH || ona__fs_list(s, dir, false, &names, &count) != 0)
        return;
    for (uint32_t i = 0; i < count && *visits < MAX_VISITS; i++, (*visits)++) {
        check(i == 0 || strcmp(names[i - 1], names[i]) < 0, "a listing is not sorted or repeats");
        char path[4096];
        int n = snprintf(path, sizeof path, "%s%s%s", dir, *dir ? "/" : "", names[i]);
        if (n < 0 || (size_t)n >= sizeof path)
            continue;
        bool is_dir = false, in_save = true;
        uint64_t size = 0;
        /* A listed entry PhysicsFS cannot stat (a name it refuses) is skipped, never read. */
        if (ona__fs_stat(s, path, false, &is_dir, &size, &in_save) != 0)
            continue;
        check(!in_save, "a file came from a save folder there is none of");
        if (is_dir) {
            visit(s, path, depth + 1, visits);
            continue;
        }
        uint8_t *a = NULL, *b = NULL;
        size_t an = 0, bn = 0;
        char real[4096];
        int ra = ona__fs_read(s, path, false, READ_LIMIT, &a, &an, &in_save, real, sizeof real);
        if (ra == 0) {
            check(an == size, "a file read another size than its stat");
            int rb = ona__read_file(real, READ_LIMIT, &b, &bn);
            check(rb == 0 && bn == an && memcmp(a, b, an) == 0,
                  "the loaders' path read other bytes than ona.fs");
        }
        ona__free(a);
        ona__free(b);
    }
    ona__fs_free_list(names);
}

int ona_fuzz_fs(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/ona-fuzz-fs-%d.ona", (int)getpid());
    FILE *f = fopen(path, "wb");
    check(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the scratch file");
    char *roots[1];
    roots[0] = ona__malloc(sizeof path); /* fs.c may replace it by its canonical path */
    check(roots[0] != NULL, "out of memory");
    strcpy(roots[0], path);
    ona__services s = {.roots = roots, .root_count = 1};
    int rc = ona__fs_init(&s); /* a refused archive is logged, as a runtime would */
    if (rc == 0) {
        int visits = 0;
        visit(&s, "", 0, &visits);
    }
    ona__fs_free(&s);
    ona__free(roots[0]);
    unlink(path);
    return rc;
}

#ifdef ONA_FUZZ_FS_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ona_fuzz_fs(data, size);
    return 0;
}
#endif
