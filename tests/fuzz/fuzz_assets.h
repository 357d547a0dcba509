/*
 * fuzz_assets.h: the asset-decoder fuzz entries (fuzz_assets.c), shared by the libFuzzer targets
 * fuzz_font, fuzz_sound, fuzz_music and fuzz_image (ONA_BUILD_FUZZ) and the corpus replay test
 * (tests/test_fuzz_corpus.c). Single-threaded: one caller at a time.
 */
#ifndef ONA_FUZZ_ASSETS_H
#define ONA_FUZZ_ASSETS_H

#include <stddef.h>
#include <stdint.h>

/* Each writes `size` untrusted bytes to a scratch file (ona_fuzz_input_path) and runs them
 * through one decoder path, aborting (a crash the fuzzer keeps) when a property breaks. Each
 * returns the load's answer: 0 when the file was accepted, else its ONA_E* code. */

/* The font path: load at 24 and 7 px in a fresh font registry, the line height, measures
 * (plain and wrapped) and a print of ASCII, kerning pairs, Latin, Greek, Cyrillic and invalid
 * UTF-8; on success, a reload and the same again. Properties: a font is always handed out,
 * line heights are at least 1, sizes finite and not negative, sprites inside their atlas. */
int ona_fuzz_font(const uint8_t *data, size_t size);

/* Decodes a sound whole (WAV or OGG). Properties: a pcm only on success, at most 10 minutes,
 * every sample finite in -1..1. */
int ona_fuzz_sound(const uint8_t *data, size_t size);

/* Opens music (an OGG streams, a WAV decodes whole), looping, and reads 8 chunks of 4096
 * frames. Properties: no read returns more than asked, every sample finite. */
int ona_fuzz_music(const uint8_t *data, size_t size);

/* Loads a texture in a fresh texture registry. Properties: an accepted image is 1..16384 a
 * side. */
int ona_fuzz_image(const uint8_t *data, size_t size);

/* The scratch file the last entry wrote (the path its error messages name). */
const char *ona_fuzz_input_path(void);

/* libFuzzer's entry point, defined when fuzz_assets.c is built with ONA_FUZZ_TARGET naming one
 * of the entries above. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
