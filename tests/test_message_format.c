/*
 * test_message_format.c: the byte format's short strings: byte strings under
 * 256 bytes are written with a u8 length (STRING8), so that a small table message such as
 * {x = 1, y = 2, name = "abc"} fits ONA_MESSAGE_INLINE; the token reader and the checker refuse
 * every malformed STRING8; and save files, which hold the codec's bytes, are format 2, and
 * version 1 files (written here byte by byte, as a version 1 build wrote them) still load.
 */
#include "test_support.h"

#include "l_message.h"
#include "l_types.h"
#include "save.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes one string value and returns the message (the caller releases it). */
static ona_message one_string(const char *bytes, size_t size) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, bytes, size);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

START_TEST(test_short_strings_take_a_u8_length) {
    static char text[300];
    memset(text, 'q', sizeof text);
    const size_t sizes[] = {0, 1, 3, 255, 256, 299};
    for (size_t i = 0; i < ONA_ARRAY_COUNT(sizes); i++) {
        size_t n = sizes[i];
        ona_message m = one_string(text, n);
        const uint8_t *bytes = ona__message_bytes(&m);
        if (n <= 255) {
            ck_assert_uint_eq(m.size, 1 + 1 + n + 1);
            ck_assert_uint_eq(bytes[0], ONA__TAG_STRING8);
            ck_assert_uint_eq(bytes[1], n);
        } else {
            ck_assert_uint_eq(m.size, 1 + 4 + n + 1);
            ck_assert_uint_eq(bytes[0], ONA__TAG_STRING);
        }
        ck_assert_int_eq(ona_message_validate(bytes, m.size, NULL), 0);
        ona_message_reader r;
        ona_message_reader_begin(&r, &m);
        ona_value v;
        ck_assert_int_eq(ona_message_read(&r, &v), 0);
        ck_assert_int_eq(v.type, ONA_VALUE_STRING);
        ck_assert_uint_eq(v.as.string.size, n);
        ck_assert_int_eq(v.as.string.bytes[n], '\0');
        ck_assert_int_eq(memcmp(v.as.string.bytes, text, n), 0);
        ona_message_release(&m);
    }
}
END_TEST

START_TEST(test_malformed_string8_is_refused) {
    /* Each is one top-level value; only the first is well formed. */
    const uint8_t good[] = {ONA__TAG_STRING8, 2, 'h', 'i', 0};
    const uint8_t no_nul[] = {ONA__TAG_STRING8, 2, 'h', 'i', 'x'};
    const uint8_t truncated[] = {ONA__TAG_STRING8, 3, 'h', 'i'};
    const uint8_t no_length[] = {ONA__TAG_STRING8};
    const uint8_t no_terminator[] = {ONA__TAG_STRING8, 2, 'h', 'i'};
    uint32_t count = 0;
    ck_assert_int_eq(ona_message_validate(good, sizeof good, &count), 0);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(ona_message_validate(no_nul, sizeof no_nul, NULL), ONA_EDECODE);
    ck_assert_int_eq(ona_message_validate(truncated, sizeof truncated, NULL), ONA_EDECODE);
    ck_assert_int_eq(ona_message_validate(no_length, sizeof no_length, NULL), ONA_EDECODE);
    ck_assert_int_eq(ona_message_validate(no_terminator, sizeof no_terminator, NULL), ONA_EDECODE);
    /* As a table key too: {k = true}. */
    const uint8_t table[] = {
        ONA__TAG_TABLE, 0,           0, 0, 0, 1, 0, 0, 0, ONA__TAG_STRING8, 1, 'k', 0,
        ONA__TAG_TRUE,  ONA__TAG_END};
    ck_assert_int_eq(ona_message_validate(table, sizeof table, &count), 0);
    ck_assert_uint_eq(count, 1);
}
END_TEST

/* Encodes `code`'s one result from Lua, then decodes it into a second state and checks it there
 * with `check` (a Lua expression over `v`). */
static ona_message lua_roundtrip(const char *code, const char *check) {
    lua_State *a = luaL_newstate(), *b = luaL_newstate();
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    luaL_openlibs(a);
    luaL_openlibs(b);
    ona__lua_register_types(a);
    ona__lua_register_types(b);
    ck_assert_int_eq(luaL_dostring(a, code), 0);
    ona_message m;
    ona_message_init(&m);
    ona__moves moves;
    char err[256];
    ck_assert_int_eq(ona__message_encode_lua(&m, a, 1, 1, &moves, err, sizeof err), 0);
    ck_assert_int_eq(ona__message_decode_lua(&m, b, err, sizeof err), 1);
    lua_setglobal(b, "v");
    char chunk[512];
    snprintf(chunk, sizeof chunk, "return %s", check);
    ck_assert_int_eq(luaL_dostring(b, chunk), 0);
    ck_assert_msg(lua_toboolean(b, -1), "decoded value fails: %s", check);
    lua_close(a);
    lua_close(b);
    return m;
}

START_TEST(test_small_table_message_is_inline) {
    ona_message m = lua_roundtrip("return {x = 1, y = 2, name = 'abc'}",
                                  "v.x == 1 and v.y == 2 and v.name == 'abc' and next(v, next(v, "
                                  "next(v))) ~= nil and next(v, next(v, next(v, next(v)))) == nil");
    ck_assert_ptr_null(m.heap);
    ck_assert_uint_le(m.size, ONA_MESSAGE_INLINE);
    ona_message_release(&m);
    /* A key and a value at the STRING8/STRING boundary. */
    m = lua_roundtrip("return {[string.rep('k', 255)] = string.rep('v', 256)}",
                      "v[string.rep('k', 255)] == string.rep('v', 256)");
    ona_message_release(&m);
}
END_TEST

/* --- Saves ----------------------------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes `dir`/`name`.save: a header of format `version` around `payload`, as save.c lays it out
 * (magic, version, flags, u64 length, payload CRC32, header CRC32; little-endian). */
static void write_save(const char *dir, const char *name, uint32_t version, const uint8_t *payload,
                       size_t size) {
    uint8_t header[ONA__SAVE_HEADER_SIZE] = {0};
    memcpy(header, "ONASAVE", 8);
    put_u32(header + 8, version);
    put_u32(header + 12, 0);
    put_u32(header + 16, (uint32_t)size);
    put_u32(header + 20, 0);
    put_u32(header + 24, ona__crc32(0, payload, size));
    put_u32(header + 28, ona__crc32(0, header, 28));
    char path[600];
    snprintf(path, sizeof path, "%s/%s.save", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(header, 1, sizeof header, f), sizeof header);
    ck_assert_uint_eq(fwrite(payload, 1, size, f), size);
    ck_assert_int_eq(fclose(f), 0);
}

/* {name = "abc", [1] = "x", score = 10}, in version 1's bytes: every string is a STRING tag with
 * a u32 length (the only string tag a version 1 build wrote). */
/* clang-format off */
static const uint8_t V1_PAYLOAD[] = {
    ONA__TAG_TABLE, 1, 0, 0, 0, 2, 0, 0, 0,                          /* array 1, hash 2 */
    ONA__TAG_NUMBER, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,                   /* 1.0 */
    ONA__TAG_STRING, 1, 0, 0, 0, 'x', 0,                             /* "x" */
    ONA__TAG_STRING, 4, 0, 0, 0, 'n', 'a', 'm', 'e', 0,              /* "name" */
    ONA__TAG_STRING, 3, 0, 0, 0, 'a', 'b', 'c', 0,                   /* "abc" */
    ONA__TAG_STRING, 5, 0, 0, 0, 's', 'c', 'o', 'r', 'e', 0,         /* "score" */
    ONA__TAG_NUMBER, 0, 0, 0, 0, 0, 0, 0x24, 0x40,                   /* 10.0 */
    ONA__TAG_END,
};
/* clang-format on */

/* Checks that `m` holds V1_PAYLOAD's value. */
static void expect_v1_value(ona_message *m) {
    ck_assert_uint_eq(ona_message_count(m), 1);
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_TABLE_BEGIN);
    ck_assert_uint_eq(v.as.table.array_size, 1);
    ck_assert_uint_eq(v.as.table.hash_size, 2);
    const char *strings[] = {NULL, "x", "name", "abc", "score", NULL};
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(ona_message_read(&r, &v), 0);
        if (strings[i]) {
            ck_assert_int_eq(v.type, ONA_VALUE_STRING);
            ck_assert_str_eq(v.as.string.bytes, strings[i]);
        } else {
            ck_assert_int_eq(v.type, ONA_VALUE_NUMBER);
            ck_assert(v.as.number == (i == 0 ? 1.0 : 10.0));
        }
    }
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_TABLE_END);
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_END);
}

START_TEST(test_version_1_save_still_loads) {
    game_dir_begin("message_format_saves");
    const char *dir = game_dir();
    char err[512];
    ck_assert_int_eq(ona_message_validate(V1_PAYLOAD, sizeof V1_PAYLOAD, NULL), 0);
    write_save(dir, "old", 1, V1_PAYLOAD, sizeof V1_PAYLOAD);
    ona_message m;
    ck_assert_msg(ona__save_read_message(dir, "old", &m, err, sizeof err) == 0, "%s", err);
    expect_v1_value(&m);
    /* Loaded means converted: the strings are in today's form (STRING8), and saving the value
     * again writes a format 2 file that loads to the same value. */
    const uint8_t *bytes = ona__message_bytes(&m);
    ck_assert_uint_eq(bytes[18], ONA__TAG_STRING8);
    ck_assert_int_eq(ona__save_write_message(dir, "again", &m, err, sizeof err), 0);
    ona_message_release(&m);
    uint8_t *raw;
    size_t size;
    ck_assert_int_eq(ona__save_read(dir, "again", &raw, &size, err, sizeof err), 0);
    ck_assert_uint_lt(size, sizeof V1_PAYLOAD);
    ona__free(raw);
    char path[600];
    snprintf(path, sizeof path, "%s/again.save", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    uint8_t header[12];
    ck_assert_uint_eq(fread(header, 1, sizeof header, f), sizeof header);
    fclose(f);
    ck_assert_uint_eq(header[8], 2);
    ck_assert_int_eq(ona__save_read_message(dir, "again", &m, err, sizeof err), 0);
    expect_v1_value(&m);
    ona_message_release(&m);
    /* A format from a newer build, or 0, is still refused with the range this one reads. */
    write_save(dir, "newer", 3, V1_PAYLOAD, sizeof V1_PAYLOAD);
    ck_assert_int_eq(ona__save_read_message(dir, "newer", &m, err, sizeof err), ONA_EFORMAT);
    ck_assert_msg(strstr(err, "format 3, this one reads 1 to 2") != NULL, "%s", err);
    write_save(dir, "zero", 0, V1_PAYLOAD, sizeof V1_PAYLOAD);
    ck_assert_int_eq(ona__save_read_message(dir, "zero", &m, err, sizeof err), ONA_EFORMAT);
    game_dir_end();
}
END_TEST

int main(void) {
    Suite *s = suite_create("message_format");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_short_strings_take_a_u8_length);
    tcase_add_test(tc, test_malformed_string8_is_refused);
    tcase_add_test(tc, test_small_table_message_is_inline);
    tcase_add_test(tc, test_version_1_save_still_loads);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
