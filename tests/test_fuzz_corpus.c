/*
 * test_fuzz_corpus.c: replays the fuzzers' corpora (tests/fuzz/corpus/<name>/) through the fuzz
 * entries (tests/fuzz/fuzz_message.c and fuzz_assets.c, compiled here without fuzzer flags), so
 * every build and every sanitizer preset runs what the fuzzers found, with no clang needed.
 *
 * Design note. The entries abort on any broken property (see fuzz_message.c, fuzz_assets.c),
 * which fails this test. File names state the expected verdict. Messages: valid-* must
 * validate, bad-* must not. Assets (font, sound, music, image; the seeds are written by
 * tests/fuzz/make_asset_seeds.py): good-* must load without an error logged, bad-* must be
 * refused with an error that names the file; anything else (any-*, crash-* inputs the fuzzers
 * found, once fixed) only must not break a property. The recording reader's corpus
 * (tests/fuzz/corpus/record/, through tests/fuzz/fuzz_record.c): valid-* and trunc-* (cut by a
 * crash) must read, bad-* must be refused.
 */
#include "test_support.h"

#include "fuzz/fuzz_assets.h"
#include "fuzz/fuzz_message.h"
#include "fuzz/fuzz_fs.h"
#include "fuzz/fuzz_record.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/message"
#define ASSET_CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/"
#define RECORD_CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/record"
#define FS_CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/fs"

/* Reads a whole file into an exactly sized heap block (so ASan sees any read past its end). */
static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    uint8_t *bytes = malloc(n ? (size_t)n : 1);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

/* The bytes of the next file of `d` (in `folder`), skipping dot files; NULL at the end. Sets
 * `name` to the file's name. */
static uint8_t *next_file(DIR *d, const char *folder, const char **name, size_t *size) {
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1300];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        *name = e->d_name;
        return read_file(path, size);
    }
    return NULL;
}

START_TEST(test_corpus_replays) {
    DIR *d = opendir(CORPUS);
    ck_assert_msg(d != NULL, "no corpus at %s", CORPUS);
    int files = 0, valid = 0, bad = 0;
    const char *name;
    size_t size;
    for (uint8_t *bytes; (bytes = next_file(d, CORPUS, &name, &size)) != NULL;) {
        int rc = ona_fuzz_message(bytes, size);
        free(bytes);
        files++;
        if (strncmp(name, "valid-", 6) == 0) {
            ck_assert_msg(rc == 0, "%s: %s", name, ona_strerror(rc));
            valid++;
        } else if (strncmp(name, "bad-", 4) == 0) {
            ck_assert_msg(rc == ONA_EDECODE, "%s was accepted", name);
            bad++;
        }
    }
    closedir(d);
    /* The committed seeds: a deleted or unreadable corpus must not pass quietly. */
    ck_assert_int_ge(valid, 4);
    ck_assert_int_ge(bad, 5);
    ck_assert_int_ge(files, valid + bad);
}
END_TEST

/* Replays one asset corpus through `entry`, holding good-* and bad-* files to their verdicts.
 * Returns the numbers of good and bad files. */
static void replay_assets(const char *name, int (*entry)(const uint8_t *, size_t), int *good,
                          int *bad) {
    char folder[1024];
    snprintf(folder, sizeof folder, "%s%s", ASSET_CORPUS, name);
    DIR *d = opendir(folder);
    ck_assert_msg(d != NULL, "no corpus at %s", folder);
    *good = *bad = 0;
    const char *file;
    size_t size;
    for (uint8_t *bytes; (bytes = next_file(d, folder, &file, &size)) != NULL;) {
        capture_logs_begin();
        int rc = entry(bytes, size);
        free(bytes);
        char needle[400];
        snprintf(needle, sizeof needle, " %s:", ona_fuzz_input_path());
        if (strncmp(file, "good-", 5) == 0) {
            ck_assert_msg(rc == 0, "%s/%s was refused (%s):\n%s", name, file, ona_strerror(rc),
                          captured_logs_text());
            ck_assert_msg(!captured_logs_contain("error:"), "%s/%s logged an error:\n%s", name,
                          file, captured_logs_text());
            (*good)++;
        } else if (strncmp(file, "bad-", 4) == 0) {
            ck_assert_msg(rc != 0, "%s/%s was accepted", name, file);
            ck_assert_msg(captured_logs_contain("error:") && captured_logs_contain(needle),
                          "%s/%s: no error naming %s:\n%s", name, file, ona_fuzz_input_path(),
                          captured_logs_text());
            (*bad)++;
        }
        capture_logs_end();
    }
    closedir(d);
}

/* Forged fonts (cmap offsets, group counts, a format 2 cmap, loca offsets, zero height,
 * truncated, garbage, empty) are refused by name; the square fonts load, measure and print. */
START_TEST(test_corpus_fonts_replay) {
    int good, bad;
    replay_assets("font", ona_fuzz_font, &good, &bad);
    ck_assert_int_ge(good, 2);
    ck_assert_int_ge(bad, 9);
}
END_TEST

/* Mutated OGGs and truncated WAVs are refused by name; tone.ogg and the WAVs decode. */
START_TEST(test_corpus_sounds_replay) {
    int good, bad;
    replay_assets("sound", ona_fuzz_sound, &good, &bad);
    ck_assert_int_ge(good, 3);
    ck_assert_int_ge(bad, 5);
}
END_TEST

START_TEST(test_corpus_music_replays) {
    int good, bad;
    replay_assets("music", ona_fuzz_music, &good, &bad);
    ck_assert_int_ge(good, 3);
    ck_assert_int_ge(bad, 4);
}
END_TEST

START_TEST(test_corpus_record_replays) {
    DIR *d = opendir(RECORD_CORPUS);
    ck_assert_msg(d != NULL, "no corpus at %s", RECORD_CORPUS);
    int valid = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", RECORD_CORPUS, e->d_name);
        size_t size;
        uint8_t *bytes = read_file(path, &size);
        int rc = ona_fuzz_record(bytes, size);
        free(bytes);
        if (strncmp(e->d_name, "valid-", 6) == 0 || strncmp(e->d_name, "trunc-", 6) == 0) {
            ck_assert_msg(rc == 0, "%s: %s", e->d_name, ona_strerror(rc));
            valid++;
        } else if (strncmp(e->d_name, "bad-", 4) == 0) {
            ck_assert_msg(rc == ONA_EFORMAT, "%s was accepted", e->d_name);
            bad++;
        }
    }
    closedir(d);
    ck_assert_int_ge(valid, 3);
    ck_assert_int_ge(bad, 4);
}
END_TEST

/* PNGs of three colour types decode; a bad CRC, a cut file, no pixels, PNM and JPEG do not. */
START_TEST(test_corpus_images_replay) {
    int good, bad;
    replay_assets("image", ona_fuzz_image, &good, &bad);
    ck_assert_int_ge(good, 4);
    ck_assert_int_ge(bad, 5);
}
END_TEST

/* Game archives (tests/fuzz/corpus/fs/): valid-* mount and read whole, bad-* are refused; any-*
 * (what the fuzzer kept) only must not break a property. */
START_TEST(test_corpus_archives_replay) {
    DIR *d = opendir(FS_CORPUS);
    ck_assert_msg(d != NULL, "no corpus at %s", FS_CORPUS);
    int valid = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FS_CORPUS, e->d_name);
        size_t size;
        uint8_t *bytes = read_file(path, &size);
        int rc = ona_fuzz_fs(bytes, size);
        free(bytes);
        if (strncmp(e->d_name, "valid-", 6) == 0) {
            ck_assert_msg(rc == 0, "%s: %s", e->d_name, ona_strerror(rc));
            valid++;
        } else if (strncmp(e->d_name, "bad-", 4) == 0) {
            ck_assert_msg(rc == ONA_EFORMAT, "%s was accepted", e->d_name);
            bad++;
        }
    }
    closedir(d);
    ck_assert_int_ge(valid, 1);
    ck_assert_int_ge(bad, 2);
}
END_TEST

int main(void) {
    Suite *s = suite_create("fuzz_corpus");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, test_corpus_replays);
    tcase_add_test(tc, test_corpus_fonts_replay);
    tcase_add_test(tc, test_corpus_sounds_replay);
    tcase_add_test(tc, test_corpus_music_replays);
    tcase_add_test(tc, test_corpus_images_replay);
    tcase_add_test(tc, test_corpus_record_replays);
    tcase_add_test(tc, test_corpus_archives_replay);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
