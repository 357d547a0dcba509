/*
 * test_string.c: the shared-nothing string: inline/heap boundary, embedded NULs, copies across
 * threads (run it under the tsan preset), hash/compare agreement, the hash pinned to published
 * FNV-1a 64 test vectors (in C and through :hash() in Lua), formatting, the builder, and
 * allocation failure through the fault-injecting allocator.
 */
#include "test_support.h"

#include "l_types.h"

#include <lauxlib.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char LONG62[] = "Neque porro quisquam est qui dolorem ipsum quia dolor sit amet";

START_TEST(test_string_empty_value_and_zeroed_value) {
    ona_string zero;
    memset(&zero, 0, sizeof zero);
    /* A memset-zero value reads as 23 NUL bytes (see ona/string.h) and is safe to release. */
    ck_assert_uint_eq(ona_string_length(&zero), 23);
    ck_assert(ona_string_is_inline(&zero));
    ona_string_release(&zero);
    ck_assert_uint_eq(ona_string_length(&zero), 0);
    ona_string empty = ONA_STRING_EMPTY;
    ck_assert_uint_eq(ona_string_length(&empty), 0);
    ck_assert(ona_string_is_inline(&empty));
    ck_assert_str_eq(ona_string_data(&empty), "");
    ona_string_release(&empty);
    ona_string_release(&empty);
    ck_assert_uint_eq(ona_string_length(&empty), 0);
}
END_TEST

START_TEST(test_string_inline_heap_boundary) {
    char bytes[25];
    memset(bytes, 'x', sizeof bytes);
    ona_string s23, s24;
    ck_assert_int_eq(ona_string_create(&s23, bytes, 23), 0);
    ck_assert_int_eq(ona_string_create(&s24, bytes, 24), 0);
    ck_assert(ona_string_is_inline(&s23));
    ck_assert(!ona_string_is_inline(&s24));
    ck_assert_uint_eq(ona_string_length(&s23), 23);
    ck_assert_uint_eq(ona_string_length(&s24), 24);
    /* Both are NUL-terminated for C callers. */
    ck_assert_uint_eq(strlen(ona_string_data(&s23)), 23);
    ck_assert_uint_eq(strlen(ona_string_data(&s24)), 24);
    ck_assert_int_eq(ona_string_compare(&s23, &s24), -1);
    ona_string_release(&s23);
    ona_string_release(&s24);
}
END_TEST

START_TEST(test_string_inline_allocates_nothing) {
    fault_alloc_begin(0, false);
    ona_string s;
    ck_assert_int_eq(ona_string_from_cstr(&s, "Hello, world"), 0);
    ona_string c = ona_string_copy(&s);
    ck_assert_int_eq(ona_string_format(&s, "%s %d", "frame", 12), 0);
    ck_assert_int_eq(fault_alloc_count(), 0);
    ona_string_release(&s);
    ona_string_release(&c);
    fault_alloc_end();
}
END_TEST

START_TEST(test_string_embedded_nuls_are_kept) {
    const char bytes[] = {'a', '\0', 'b', '\0', 'c'};
    char longbytes[40];
    memset(longbytes, 0, sizeof longbytes);
    longbytes[39] = 'z';
    ona_string s, l;
    ck_assert_int_eq(ona_string_create(&s, bytes, sizeof bytes), 0);
    ck_assert_int_eq(ona_string_create(&l, longbytes, sizeof longbytes), 0);
    ck_assert_uint_eq(ona_string_length(&s), 5);
    ck_assert_uint_eq(ona_string_length(&l), 40);
    ck_assert_mem_eq(ona_string_data(&s), bytes, 5);
    ck_assert_mem_eq(ona_string_data(&l), longbytes, 40);
    ona_string prefix;
    ck_assert_int_eq(ona_string_create(&prefix, "a", 1), 0);
    ck_assert(!ona_string_equal(&s, &prefix));
    ck_assert_int_gt(ona_string_compare(&s, &prefix), 0);
    ona_string_release(&s);
    ona_string_release(&l);
    ona_string_release(&prefix);
}
END_TEST

START_TEST(test_string_copy_shares_heap_block) {
    ona_string s;
    ck_assert_int_eq(ona_string_from_cstr(&s, LONG62), 0);
    ona_string c = ona_string_copy(&s);
    ck_assert_ptr_eq(ona_string_data(&s), ona_string_data(&c));
    ona_string_release(&s);
    /* The copy still owns the bytes after the original is released. */
    ck_assert_str_eq(ona_string_data(&c), LONG62);
    ona_string_release(&c);
}
END_TEST

START_TEST(test_string_hash_and_compare_agree) {
    const char *words[] = {"", "a", "b", "ab", "Hello, world", LONG62, "Neque porro", LONG62};
    size_t n = sizeof words / sizeof words[0];
    ona_string s[8];
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(ona_string_from_cstr(&s[i], words[i]), 0);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            bool eq = strcmp(words[i], words[j]) == 0;
            ck_assert_int_eq(ona_string_equal(&s[i], &s[j]), eq);
            ck_assert_int_eq(ona_string_compare(&s[i], &s[j]) == 0, eq);
            if (eq)
                ck_assert_uint_eq(ona_string_hash(&s[i]), ona_string_hash(&s[j]));
            int c = strcmp(words[i], words[j]);
            ck_assert_int_eq(ona_string_compare(&s[i], &s[j]), c < 0 ? -1 : (c > 0 ? 1 : 0));
        }
    }
    /* A heap string and an inline one with the same bytes cannot exist, but a built string and
     * a created one must hash alike. */
    ona_string built;
    ck_assert_int_eq(ona_string_format(&built, "%s", LONG62), 0);
    ck_assert_uint_eq(ona_string_hash(&built), ona_string_hash(&s[5]));
    ck_assert(ona_string_equal(&built, &s[5]));
    ona_string_release(&built);
    for (size_t i = 0; i < n; i++)
        ona_string_release(&s[i]);
}
END_TEST

/* Published FNV-1a 64 test vectors (Fowler, Noll and Vo's reference test suite), so a changed
 * hash function, or one that returns a constant, fails here. */
static const struct {
    const char *text;
    uint64_t hash;
} fnv1a64_vectors[] = {
    {"", UINT64_C(0xcbf29ce484222325)},
    {"a", UINT64_C(0xaf63dc4c8601ec8c)},
    {"foobar", UINT64_C(0x85944171f73967e8)},
};

START_TEST(test_string_hash_is_fnv1a_64) {
    for (size_t i = 0; i < sizeof fnv1a64_vectors / sizeof fnv1a64_vectors[0]; i++) {
        ona_string s;
        ck_assert_int_eq(ona_string_from_cstr(&s, fnv1a64_vectors[i].text), 0);
        ck_assert_msg(ona_string_hash(&s) == fnv1a64_vectors[i].hash,
                      "hash(\"%s\") = 0x%016llx, want 0x%016llx", fnv1a64_vectors[i].text,
                      (unsigned long long)ona_string_hash(&s),
                      (unsigned long long)fnv1a64_vectors[i].hash);
        ona_string_release(&s);
    }
    /* A heap string (over 23 bytes) hashes its bytes the same way: FNV-1a 64 written out. */
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *p = LONG62; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
    ona_string l;
    ck_assert_int_eq(ona_string_from_cstr(&l, LONG62), 0);
    ck_assert(!ona_string_is_inline(&l));
    ck_assert(ona_string_hash(&l) == h);
    ona_string_release(&l);
}
END_TEST

START_TEST(test_string_lua_hash_is_low_52_bits) {
    /* :hash() in Lua is the same FNV-1a 64 hash reduced to 52 bits, exact in a double. */
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    ona__lua_register_types(L);
    for (size_t i = 0; i < sizeof fnv1a64_vectors / sizeof fnv1a64_vectors[0]; i++) {
        ona_string s;
        ck_assert_int_eq(ona_string_from_cstr(&s, fnv1a64_vectors[i].text), 0);
        ona__lua_push_string(L, &s);
        lua_getfield(L, -1, "hash");
        lua_pushvalue(L, -2);
        ck_assert_int_eq(lua_pcall(L, 1, 1, 0), 0);
        ck_assert_int_eq(lua_type(L, -1), LUA_TNUMBER);
        uint64_t want = fnv1a64_vectors[i].hash & ((UINT64_C(1) << 52) - 1);
        ck_assert(lua_tonumber(L, -1) == (lua_Number)want);
        lua_pop(L, 2);
    }
    lua_close(L);
}
END_TEST

START_TEST(test_string_format_edge_cases) {
    ona_string s;
    ck_assert_int_eq(ona_string_format(&s, "%s", ""), 0);
    ck_assert_uint_eq(ona_string_length(&s), 0);
    ona_string_release(&s);

    /* Exactly 23 and 24 bytes out of a format. */
    ck_assert_int_eq(ona_string_format(&s, "%023d", 7), 0);
    ck_assert_uint_eq(ona_string_length(&s), 23);
    ck_assert(ona_string_is_inline(&s));
    ck_assert_str_eq(ona_string_data(&s), "00000000000000000000007");
    ona_string_release(&s);
    ck_assert_int_eq(ona_string_format(&s, "%024d", 7), 0);
    ck_assert_uint_eq(ona_string_length(&s), 24);
    ck_assert(!ona_string_is_inline(&s));
    ona_string_release(&s);

    /* A long format result, and %% and a NUL produced by %c. */
    ck_assert_int_eq(ona_string_format(&s, "%s|%s|%5.1f%%", LONG62, LONG62, 99.94), 0);
    ck_assert_uint_eq(ona_string_length(&s), 62 * 2 + 2 + 6);
    ck_assert(strstr(ona_string_data(&s), " 99.9%") != NULL);
    ona_string_release(&s);
    ck_assert_int_eq(ona_string_format(&s, "a%cb", 0), 0);
    ck_assert_uint_eq(ona_string_length(&s), 3);
    ck_assert_mem_eq(ona_string_data(&s), "a\0b", 3);
    ona_string_release(&s);

    ck_assert_int_eq(ona_string_format(NULL, "x"), ONA_EINVAL);
    const char *no_format = NULL;
    ck_assert_int_eq(ona_string_format(&s, no_format), ONA_EINVAL);
    ck_assert_uint_eq(ona_string_length(&s), 0);
}
END_TEST

START_TEST(test_string_builder_and_concat) {
    ona_string_builder b;
    ona_string_builder_init(&b);
    for (int i = 0; i < 100; i++)
        ona_string_builder_appendf(&b, "%d,", i);
    ona_string out;
    ck_assert_int_eq(ona_string_builder_finish(&b, &out), 0);
    ck_assert(strncmp(ona_string_data(&out), "0,1,2,3,", 8) == 0);
    ck_assert(strstr(ona_string_data(&out), ",98,99,") != NULL);
    ona_string_release(&out);

    ona_string a, c, joined;
    ona_string_from_cstr(&a, "Hello, ");
    ona_string_from_cstr(&c, "world");
    ck_assert_int_eq(ona_string_concat(&joined, &a, &c), 0);
    ck_assert_str_eq(ona_string_data(&joined), "Hello, world");
    ona_string_release(&joined);
    ona_string l;
    ona_string_from_cstr(&l, LONG62);
    ck_assert_int_eq(ona_string_concat(&joined, &l, &c), 0);
    ck_assert_uint_eq(ona_string_length(&joined), 67);
    ona_string_release(&joined);
    ona_string_release(&a);
    ona_string_release(&c);
    ona_string_release(&l);

    /* A NULL append poisons the builder; finish reports it and leaves out empty. */
    ona_string_builder_init(&b);
    ona_string_builder_append_cstr(&b, "ok");
    ck_assert_int_eq(ona_string_builder_append(&b, NULL, 3), ONA_EINVAL);
    ona_string_builder_append_cstr(&b, "more");
    ck_assert_int_eq(ona_string_builder_finish(&b, &out), ONA_EINVAL);
    ck_assert_uint_eq(ona_string_length(&out), 0);
}
END_TEST

START_TEST(test_string_invalid_arguments) {
    ona_string s;
    ck_assert_int_eq(ona_string_create(NULL, "x", 1), ONA_EINVAL);
    ck_assert_int_eq(ona_string_create(&s, NULL, 1), ONA_EINVAL);
    ck_assert_int_eq(ona_string_create(&s, NULL, 0), 0);
    ck_assert_uint_eq(ona_string_length(&s), 0);
    ck_assert_int_eq(ona_string_from_cstr(&s, NULL), ONA_EINVAL);
    ck_assert_uint_eq(ona_string_length(NULL), 0);
    ck_assert_str_eq(ona_string_data(NULL), "");
    ona_string_release(NULL);
}
END_TEST

START_TEST(test_string_allocation_failure_is_reported) {
    ona_string s = ONA_STRING_EMPTY;
    fault_alloc_begin(1, true);
    ck_assert_int_eq(ona_string_from_cstr(&s, LONG62), ONA_ENOMEM);
    ck_assert_uint_eq(ona_string_length(&s), 0);
    ck_assert_int_eq(ona_string_format(&s, "%s!", LONG62), ONA_ENOMEM);
    ck_assert_uint_eq(ona_string_length(&s), 0);
    /* Short strings do not allocate, so they still work while the allocator fails. */
    ck_assert_int_eq(ona_string_from_cstr(&s, "still fine"), 0);
    ona_string_release(&s);

    /* A builder that fails to grow midway reports ENOMEM from finish and leaks nothing. */
    fault_alloc_begin(2, true);
    ona_string_builder b;
    ona_string_builder_init(&b);
    for (int i = 0; i < 50; i++)
        ona_string_builder_append_cstr(&b, LONG62);
    ck_assert_int_eq(ona_string_builder_finish(&b, &s), ONA_ENOMEM);
    ck_assert_uint_eq(ona_string_length(&s), 0);
    fault_alloc_end();
}
END_TEST

/* Copies of heap strings are handed to threads, which make and release their own copies and
 * release the one they were given, in whatever order they happen to run. */
enum { THREADS = 4, ROUNDS = 2000 };
typedef struct share {
    ona_string given[ROUNDS];
    ona_string reference;
    int mismatches;
} share;

static void *share_worker(void *arg) {
    share *sh = arg;
    for (int i = 0; i < ROUNDS; i++) {
        ona_string mine = ona_string_copy(&sh->given[i]);
        if (!ona_string_equal(&mine, &sh->reference))
            sh->mismatches++;
        ona_string_release(&sh->given[i]);
        ona_string_release(&mine);
    }
    return NULL;
}

START_TEST(test_string_copies_released_across_threads) {
    ona_string original;
    ck_assert_int_eq(ona_string_from_cstr(&original, LONG62), 0);
    share shares[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        shares[t].mismatches = 0;
        shares[t].reference = ona_string_copy(&original);
        for (int i = 0; i < ROUNDS; i++)
            shares[t].given[i] = ona_string_copy(&original);
    }
    /* The creator lets go first: the threads' copies keep the bytes alive. */
    ona_string_release(&original);
    for (int t = 0; t < THREADS; t++)
        ck_assert_int_eq(pthread_create(&threads[t], NULL, share_worker, &shares[t]), 0);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        ck_assert_int_eq(shares[t].mismatches, 0);
        ona_string_release(&shares[t].reference);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("string");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_string_empty_value_and_zeroed_value);
    tcase_add_test(tc, test_string_inline_heap_boundary);
    tcase_add_test(tc, test_string_inline_allocates_nothing);
    tcase_add_test(tc, test_string_embedded_nuls_are_kept);
    tcase_add_test(tc, test_string_copy_shares_heap_block);
    tcase_add_test(tc, test_string_hash_and_compare_agree);
    tcase_add_test(tc, test_string_hash_is_fnv1a_64);
    tcase_add_test(tc, test_string_lua_hash_is_low_52_bits);
    tcase_add_test(tc, test_string_format_edge_cases);
    tcase_add_test(tc, test_string_builder_and_concat);
    tcase_add_test(tc, test_string_invalid_arguments);
    tcase_add_test(tc, test_string_allocation_failure_is_reported);
    tcase_add_test(tc, test_string_copies_released_across_threads);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
