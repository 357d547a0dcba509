/*
 * fuzz_message.h: the message-codec fuzz entry (fuzz_message.c), shared by the libFuzzer target
 * (ONA_BUILD_FUZZ) and the corpus replay test (tests/test_fuzz_corpus.c).
 */
#ifndef ONA_FUZZ_MESSAGE_H
#define ONA_FUZZ_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

/* Runs `size` untrusted bytes through ona_message_validate and, when they are valid, the Lua
 * byte decoder and a re-encode of what it pushed. Aborts (a crash the fuzzer keeps) when the
 * decoders disagree or a decoded value does not encode back to a valid message of as many
 * values. Returns ona_message_validate's answer: 0 or ONA_EDECODE. */
int ona_fuzz_message(const uint8_t *data, size_t size);

/* libFuzzer's entry point: ona_fuzz_message, always returning 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
