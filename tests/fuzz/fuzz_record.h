/*
 * fuzz_record.h: the recording-reader fuzz entry (fuzz_record.c), shared by the libFuzzer target
 * (ONA_BUILD_FUZZ) and the corpus replay test (tests/test_fuzz_corpus.c).
 */
#ifndef ONA_FUZZ_RECORD_H
#define ONA_FUZZ_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* Parses `size` untrusted bytes as a recording and, when they parse, checks what was read and
 * that writing it again and reading that back gives the same recording. Aborts (a crash the
 * fuzzer keeps) when a property breaks. Returns the parser's answer: 0 or ONA_EFORMAT (or
 * ONA_ENOMEM). */
int ona_fuzz_record(const uint8_t *data, size_t size);

/* libFuzzer's entry point (defined with ONA_FUZZ_RECORD_MAIN, the fuzz target's build). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
