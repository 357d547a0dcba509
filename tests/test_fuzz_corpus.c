/*
 * test_fuzz_corpus.c: replays the message fuzzer's corpus (tests/fuzz/corpus/message/) through
 * the fuzz entry (tests/fuzz/fuzz_message.c, compiled here without fuzzer flags), and the
 * recording reader's corpus (tests/fuzz/corpus/record/) through tests/fuzz/fuzz_record.c, so
 * every build and every sanitizer preset runs what the fuzzers found, with no clang needed.
 *
 * Design note. The entry aborts on any broken property (see fuzz_message.c), which fails this
 * test. File names state the expected verdict: valid-* must validate, bad-* must not, anything
 * else (crash-* inputs the fuzzer found, once fixed) only must not break a property; in the
 * recording corpus trunc-* files (cut by a crash) are valid too.
 */
#include "test_support.h"

#include "fuzz/fuzz_message.h"
#include "fuzz/fuzz_record.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/message"
#define RECORD_CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/record"

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

START_TEST(test_corpus_replays) {
    DIR *d = opendir(CORPUS);
    ck_assert_msg(d != NULL, "no corpus at %s", CORPUS);
    int files = 0, valid = 0, bad = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", CORPUS, e->d_name);
        size_t size;
        uint8_t *bytes = read_file(path, &size);
        int rc = ona_fuzz_message(bytes, size);
        free(bytes);
        files++;
        if (strncmp(e->d_name, "valid-", 6) == 0) {
            ck_assert_msg(rc == 0, "%s: %s", e->d_name, ona_strerror(rc));
            valid++;
        } else if (strncmp(e->d_name, "bad-", 4) == 0) {
            ck_assert_msg(rc == ONA_EDECODE, "%s was accepted", e->d_name);
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

int main(void) {
    Suite *s = suite_create("fuzz_corpus");
    TCase *tc = tcase_create("replay");
    tcase_add_test(tc, test_corpus_replays);
    tcase_add_test(tc, test_corpus_record_replays);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
