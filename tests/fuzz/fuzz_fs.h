/*
 * fuzz_fs.h: the game-archive fuzz entry (fuzz_fs.c), shared by the libFuzzer target
 * (ONA_BUILD_FUZZ) and the corpus replay test (tests/test_fuzz_corpus.c).
 */
#ifndef ONA_FUZZ_FS_H
#define ONA_FUZZ_FS_H

#include <stddef.h>
#include <stdint.h>

/* Mounts `size` untrusted bytes as a game archive (a script root that is a file) and, when it
 * mounts, lists every folder and reads every file through ona.fs's functions and through the
 * loaders' path (ona__read_file). Aborts (a crash the fuzzer keeps) when a property breaks.
 * Returns 0 when the archive mounted, ONA_EFORMAT when it was refused. */
int ona_fuzz_fs(const uint8_t *data, size_t size);

/* libFuzzer's entry point (defined with ONA_FUZZ_FS_MAIN, the fuzz target's build). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
