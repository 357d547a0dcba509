/*
 * seed_file.h: what the seed corpus writers (make_corpus.c, make_record_corpus.c) share: their
 * folder argument and writing one seed file. Both exit the program on failure, naming the tool.
 */
#ifndef ONA_FUZZ_SEED_FILE_H
#define ONA_FUZZ_SEED_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The corpus folder, argv[1]; prints `tool`'s usage and exits with 2 without exactly one. */
const char *seed_folder(const char *tool, int argc, char **argv);

/* Writes `size` bytes as `folder`/`name`; exits with 1, naming the path, when it cannot. */
void seed_save(const char *tool, const char *folder, const char *name, const uint8_t *bytes,
               size_t size);

#endif
