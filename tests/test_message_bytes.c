/*
 * test_message_bytes.c: the message decoders under untrusted bytes: ona_message_validate and
 * ona__message_decode_bytes_lua on random bytes, on every truncation and one-byte mutation of
 * valid bodies, and on hand-built malformed bodies; the C reader on the same bytes. They must
 * answer only a count or ONA_EDECODE, agree with each other, never read past the end and never
 * accept a reference. Run it under the asan preset (ASan + UBSan), where it is meant to be clean.
 */
#include "test_support.h"

#include "l_types.h"
#include "l_message.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    ona__lua_register_types(L);
    return L;
}

static void run(lua_State *L, const char *code) {
    if (luaL_dostring(L, code) != 0)
        ck_abort_msg("Lua error: %s\nin: %s", lua_tostring(L, -1), code);
    lua_settop(L, 0);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Runs bytes through every decoder: they must agree, and answer only a count or ONA_EDECODE. */
static int check_untrusted(lua_State *L, const uint8_t *bytes, size_t size) {
    uint32_t count = 12345;
    int rc = ona_message_validate(bytes, size, &count);
    ck_assert(rc == 0 || rc == ONA_EDECODE);
    char err[128];
    int pushed = ona__message_decode_bytes_lua(bytes, size, L, err, sizeof err);
    ck_assert(pushed >= 0 || pushed == ONA_EDECODE);
    ck_assert_int_eq(lua_gettop(L), pushed > 0 ? pushed : 0);
    ck_assert_int_eq(rc == 0, pushed >= 0);
    if (rc == 0)
        ck_assert_int_eq((int)count, pushed);
    else
        ck_assert_ptr_nonnull(strstr(err, "malformed message"));
    lua_settop(L, 0);
    return rc;
}

START_TEST(test_message_validate_random_bytes) {
    lua_State *L = new_state();
    uint8_t bytes[256];
    int valid = 0; /* non-empty inputs that are well-formed messages */
    for (int i = 0; i < 200000; i++) {
        size_t size = rng() % 257;
        /* Half of them from the tag alphabet, so that more of them get past the first bytes. */
        bool tags = i & 1;
        for (size_t j = 0; j < size; j++)
            bytes[j] = tags ? (uint8_t)(rng() % 12) : (uint8_t)rng();
        /* Exactly `size` bytes on the heap, so ASan sees any read past the end. */
        uint8_t *copy = malloc(size ? size : 1);
        memcpy(copy, bytes, size);
        valid += check_untrusted(L, copy, size) == 0 && size > 0;
        free(copy);
    }
    ck_assert_int_gt(valid, 50); /* short runs of tags are valid messages */
    ck_assert_int_eq(ona_message_validate(NULL, 0, NULL), 0);
    ck_assert_int_eq(ona_message_validate(NULL, 4, NULL), ONA_EDECODE);
    lua_close(L);
}
END_TEST

/* Builds a message without references from C. */
static void sample(ona_message *m, int which) {
    ona_message_writer w;
    ona_message_init(m);
    ona_message_writer_begin(&w, m);
    ona_string small;
    ona_string_from_cstr(&small, "small");
    switch (which) {
    case 0:
        ona_message_write_number(&w, 1.0);
        ona_message_write_string(&w, "hi\0there", 8);
        ona_message_write_boolean(&w, false);
        ona_message_write_ona_string(&w, &small);
        break;
    case 1:
        ona_message_write_table_begin(&w);
        for (int i = 1; i <= 3; i++) {
            ona_message_write_number(&w, i);
            ona_message_write_table_begin(&w);
            ona_message_write_string(&w, "x", 1);
            ona_message_write_number(&w, i * 0.5);
            ona_message_write_boolean(&w, true);
            ona_message_write_string(&w, "", 0);
            ona_message_write_table_end(&w);
        }
        ona_message_write_string(&w, "name", 4);
        ona_message_write_ona_string(&w, &small);
        ona_message_write_table_end(&w);
        ona_message_write_nil(&w);
        break;
    default:
        ona_message_write_table_begin(&w);
        for (int i = 0; i < 5; i++) {
            ona_message_write_number(&w, 1);
            ona_message_write_table_begin(&w);
        }
        ona_message_write_number(&w, -3);
        ona_message_write_string(&w, "deep", 4);
        for (int i = 0; i < 6; i++)
            ona_message_write_table_end(&w);
        break;
    }
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ona_string_release(&small);
}

/* Reads every token of arbitrary bytes with the C reader (they carry no references flag, so
 * nothing is released): it must stop with 0 or ONA_EDECODE, never crash. */
static void read_all(const uint8_t *bytes, size_t size) {
    ona_message m;
    ona_message_init(&m);
    m.heap = malloc(size ? size : 1);
    memcpy(m.heap, bytes, size);
    m.size = m.capacity = (uint32_t)size;
    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, &m);
    int rc, steps = 0;
    while ((rc = ona_message_read(&r, &v)) == 0 && v.type != ONA_VALUE_END)
        ck_assert_int_lt(++steps, 1000);
    ck_assert(rc == 0 || rc == ONA_EDECODE);
    free(m.heap);
}

START_TEST(test_message_validate_truncations_and_mutations) {
    lua_State *L = new_state();
    for (int which = 0; which < 3; which++) {
        ona_message m;
        sample(&m, which);
        uint32_t size = m.size;
        const uint8_t *orig = ona__message_bytes(&m);
        ck_assert_int_eq(check_untrusted(L, orig, size), 0);
        uint8_t *bytes = malloc(size);
        for (uint32_t cut = 0; cut < size; cut++) {
            memcpy(bytes, orig, cut);
            check_untrusted(L, bytes, cut);
            read_all(bytes, cut);
        }
        for (uint32_t at = 0; at < size; at++) {
            for (int value = 0; value < 256; value++) {
                memcpy(bytes, orig, size);
                bytes[at] = (uint8_t)value;
                check_untrusted(L, bytes, size);
                read_all(bytes, size);
            }
        }
        free(bytes);
        ona_message_release(&m);
    }
    lua_close(L);
}
END_TEST

START_TEST(test_message_validate_refuses_references) {
    lua_State *L = new_state();
    ona_string heap;
    ona_string_from_cstr(&heap, "a heap string of forty bytes, shared....");
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, 1);
    ona_message_write_ona_string(&w, &heap);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    uint32_t count = 99;
    ck_assert_int_eq(ona_message_validate(ona__message_bytes(&m), m.size, &count), ONA_EDECODE);
    ck_assert_uint_eq(count, 0);
    char err[128];
    ck_assert_int_eq(
        ona__message_decode_bytes_lua(ona__message_bytes(&m), m.size, L, err, sizeof err),
        ONA_EDECODE);
    ck_assert_ptr_nonnull(strstr(err, "reference"));
    ck_assert_int_eq(lua_gettop(L), 0);
    /* The same bytes without the reference are fine. */
    ck_assert_int_eq(ona_message_validate(ona__message_bytes(&m), 9, &count), 0);
    ck_assert_uint_eq(count, 1);
    ona_message_release(&m);
    ona_string_release(&heap);
    lua_close(L);
}
END_TEST

/* Hand-built bodies, for what random bytes and one-byte mutations cannot reach. */
typedef struct body {
    uint8_t b[512];
    size_t n;
} body;

static void put(body *x, const void *p, size_t n) {
    ck_assert_uint_le(x->n + n, sizeof x->b);
    memcpy(x->b + x->n, p, n);
    x->n += n;
}
static void put_tag(body *x, uint8_t tag) {
    put(x, &tag, 1);
}
static void put_number(body *x, double d) {
    put_tag(x, ONA__TAG_NUMBER);
    put(x, &d, sizeof d);
}
static void put_table(body *x, uint32_t array, uint32_t hash) {
    put_tag(x, ONA__TAG_TABLE);
    put(x, &array, 4);
    put(x, &hash, 4);
}
static void put_string_header(body *x, uint32_t len) {
    put_tag(x, ONA__TAG_STRING);
    put(x, &len, 4);
}

START_TEST(test_message_validate_rejects_malformed) {
    lua_State *L = new_state();
    body bad[20];
    memset(bad, 0, sizeof bad);
    int n = 0;
    put_tag(&bad[n++], 0);            /* tag 0 */
    put_tag(&bad[n++], 11);           /* unknown tag */
    put_tag(&bad[n++], ONA__TAG_END); /* end outside a table */
    put_table(&bad[n++], 0, 0);       /* never closed */
    put_table(&bad[n], 0, 1);         /* hints announce a pair that is not there */
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 0); /* a pair the hints do not announce */
    put_number(&bad[n], 1);
    put_number(&bad[n], 2);
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 1); /* NaN key */
    put_number(&bad[n], NAN);
    put_tag(&bad[n], ONA__TAG_TRUE);
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 1); /* nil key */
    put_tag(&bad[n], ONA__TAG_NIL);
    put_tag(&bad[n], ONA__TAG_TRUE);
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 1); /* table key */
    put_table(&bad[n], 0, 0);
    put_tag(&bad[n], ONA__TAG_END);
    put_tag(&bad[n], ONA__TAG_TRUE);
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 1); /* ona_string key */
    put(&bad[n],
        "\x06\x01"
        "a",
        3);
    put_tag(&bad[n], ONA__TAG_TRUE);
    put_tag(&bad[n++], ONA__TAG_END);
    put_table(&bad[n], 0, 1); /* key without a value */
    put_number(&bad[n], 1);
    put_tag(&bad[n++], ONA__TAG_END);
    put_string_header(&bad[n], 3); /* no NUL after the bytes */
    put(&bad[n++], "abcx", 4);
    put_string_header(&bad[n], 0xFFFFFFFFu); /* absurd length */
    put(&bad[n++], "abc", 4);
    put(&bad[n++],
        "\x06\x18"
        "aaaaaaaaaaaaaaaaaaaaaaaa",
        26);                                      /* short string of 24 */
    put_table(&bad[n], 0xFFFFFFFFu, 0xFFFFFFFFu); /* absurd hints */
    put_tag(&bad[n++], ONA__TAG_END);
    put_tag(&bad[n], ONA__TAG_NUMBER); /* truncated number */
    put(&bad[n++], "\0\0\0\0", 4);
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH + 1; i++) { /* one table too deep */
        put_table(&bad[n], 0, i == ONA_MESSAGE_MAX_DEPTH ? 0 : 1);
        if (i < ONA_MESSAGE_MAX_DEPTH)
            put_tag(&bad[n], ONA__TAG_TRUE);
    }
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH + 1; i++)
        put_tag(&bad[n], ONA__TAG_END);
    n++;
    for (int i = 0; i < n; i++)
        ck_assert_msg(check_untrusted(L, bad[i].b, bad[i].n) == ONA_EDECODE, "case %d", i);

    /* The same nesting one level shallower is fine; so are NaN values and hand-built hints. */
    body good;
    memset(&good, 0, sizeof good);
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH; i++) {
        put_table(&good, 0, i == ONA_MESSAGE_MAX_DEPTH - 1 ? 0 : 1);
        if (i < ONA_MESSAGE_MAX_DEPTH - 1)
            put_tag(&good, ONA__TAG_TRUE);
    }
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH; i++)
        put_tag(&good, ONA__TAG_END);
    put_number(&good, NAN);
    put_table(&good, 2, 1);
    put_number(&good, 1);
    put_string_header(&good, 1);
    put(&good, "a", 2);
    put_number(&good, 2);
    put(&good,
        "\x06\x02"
        "bb",
        4);
    put_string_header(&good, 1);
    put(&good, "k", 2);
    put_tag(&good, ONA__TAG_TRUE);
    put_tag(&good, ONA__TAG_END);
    ck_assert_int_eq(check_untrusted(L, good.b, good.n), 0);
    ck_assert_int_eq(ona__message_decode_bytes_lua(good.b, good.n, L, NULL, 0), 3);
    lua_setglobal(L, "t");
    lua_setglobal(L, "nan");
    lua_setglobal(L, "deep");
    run(L, "assert(nan ~= nan and t[1] == 'a' and tostring(t[2]) == 'bb' and t.k == true)\n"
           "local c, d = deep, 1; while c[true] do c = c[true]; d = d + 1 end; assert(d == 32)");
    lua_close(L);
}
END_TEST

int main(void) {
    Suite *s = suite_create("message_bytes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_message_validate_random_bytes);
    tcase_add_test(tc, test_message_validate_truncations_and_mutations);
    tcase_add_test(tc, test_message_validate_refuses_references);
    tcase_add_test(tc, test_message_validate_rejects_malformed);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
