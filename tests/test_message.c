/*
 * test_message.c: the message codec: the C writer and reader, buffers, Lua encode and decode
 * between two lua_States (strings shared by reference, buffers moved on commit), the refusals and
 * their paths, and out-of-memory in the C core (encode) and in Lua (decode). Untrusted bytes
 * (the validator and the Lua byte decoder) have their own suite, test_message_bytes.c. Run it
 * under the asan preset: most of what it checks about ownership is that ASan finds no leak,
 * double free or use after free.
 */
#include "test_support.h"

#include "l_types.h"
#include "l_message.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char LONG40[] = "a heap string of forty bytes, shared....";

/* --- Fixture helpers ------------------------------------------------------------------------- */

static lua_State *new_state(void) {
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    ona__lua_register_types(L);
    lua_newtable(L);
    lua_pushcfunction(L, l_string_new);
    lua_setfield(L, -2, "string");
    lua_pushcfunction(L, l_buffer_new);
    lua_setfield(L, -2, "buffer");
    lua_setglobal(L, "ona");
    return L;
}

/* Runs a chunk and leaves its results on the stack; returns how many. Fails the test on error. */
static int eval(lua_State *L, const char *code) {
    int base = lua_gettop(L);
    if (luaL_loadstring(L, code) != 0 || lua_pcall(L, 0, LUA_MULTRET, 0) != 0)
        ck_abort_msg("Lua error: %s\nin: %s", lua_tostring(L, -1), code);
    return lua_gettop(L) - base;
}

static void run(lua_State *L, const char *code) {
    eval(L, code);
    lua_settop(L, 0);
}

/* Runs `code` in L, encodes its results into m, and pops them (globals keep what must stay). */
static int encode(ona_message *m, lua_State *L, const char *code, ona__moves *moves, char *err) {
    lua_settop(L, 0);
    int n = eval(L, code);
    int rc = ona__message_encode_lua(m, L, 1, n, moves, err, 256);
    ck_assert_int_eq(lua_gettop(L), n); /* encoding leaves the stack as it was */
    lua_settop(L, 0);
    return rc;
}

/* Decodes m into L as the global table `v` (v.n holds the count). */
static void decode_to_v(ona_message *m, lua_State *L) {
    char err[256];
    lua_settop(L, 0);
    int n = ona__message_decode_lua(m, L, err, sizeof err);
    ck_assert_msg(n >= 0, "decode failed: %s", err);
    ck_assert_int_eq(lua_gettop(L), n);
    lua_createtable(L, n, 1);
    lua_insert(L, 1);
    for (int i = n; i >= 1; i--)
        lua_rawseti(L, 1, i);
    lua_pushinteger(L, n);
    lua_setfield(L, 1, "n");
    lua_setglobal(L, "v");
}

static ona_message encode_ok(lua_State *L, const char *code, ona__moves *moves) {
    ona_message m;
    ona_message_init(&m);
    char err[256];
    int rc = encode(&m, L, code, moves, err);
    ck_assert_msg(rc == 0, "encode failed (%s): %s", ona_error_name(rc), err);
    return m;
}

/* --- C writer and reader --------------------------------------------------------------------- */

static void expect(ona_message_reader *r, ona_value_type type, ona_value *v) {
    ck_assert_int_eq(ona_message_read(r, v), 0);
    ck_assert_int_eq(v->type, type);
}

START_TEST(test_message_writer_reader_round_trip) {
    char s23[24], s24[25];
    memset(s23, 'x', 23);
    memset(s24, 'y', 24);
    ona_string o23, o24, oempty = ONA_STRING_EMPTY;
    ck_assert_int_eq(ona_string_create(&o23, s23, 23), 0);
    ck_assert_int_eq(ona_string_create(&o24, s24, 24), 0);
    ona_buffer *buf;
    ck_assert_int_eq(ona_buffer_create("float", sizeof(float), 8, &buf), 0);
    ck_assert_uint_eq(((uintptr_t)ona_buffer_data(buf)) % 16, 0);
    ((float *)ona_buffer_data(buf))[7] = 7.5f;
    ona_buffer *kept = buf;

    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_nil(&w);
    ona_message_write_boolean(&w, true);
    ona_message_write_number(&w, -2.25);
    ona_message_writer_end(&w);
    ck_assert_ptr_null(m.heap); /* small messages stay inline */
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, "a\0b", 3);
    ona_message_write_ona_string(&w, &o23);
    ona_message_write_ona_string(&w, &o24);
    ona_message_write_ona_string(&w, &oempty);
    ck_assert_int_eq(ona_message_write_buffer(&w, &buf), 0);
    ck_assert_ptr_null(buf);
    ona_message_write_table_begin(&w); /* {1, 2, [3] = {k = false}, name = "n"} */
    for (int i = 1; i <= 2; i++) {
        ona_message_write_number(&w, i);
        ona_message_write_number(&w, i * 10);
    }
    ona_message_write_number(&w, 3);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "k", 1);
    ona_message_write_boolean(&w, false);
    ona_message_write_table_end(&w);
    ona_message_write_string(&w, "name", 4);
    ona_message_write_string(&w, "n", 1);
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_uint_eq(ona_message_count(&m), 9);
    ck_assert_ptr_nonnull(m.heap);
    ck_assert_uint_eq(ona_message_sender(&m), 0);

    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, &m);
    expect(&r, ONA_VALUE_NIL, &v);
    expect(&r, ONA_VALUE_BOOLEAN, &v);
    ck_assert(v.as.boolean);
    expect(&r, ONA_VALUE_NUMBER, &v);
    ck_assert(v.as.number == -2.25);
    ck_assert_ptr_null(ona_message_take_buffer(&r)); /* not a buffer */
    expect(&r, ONA_VALUE_STRING, &v);
    ck_assert_uint_eq(v.as.string.size, 3);
    ck_assert_mem_eq(v.as.string.bytes, "a\0b\0", 4);
    expect(&r, ONA_VALUE_ONA_STRING, &v);
    ck_assert(ona_string_equal(v.as.ona_string, &o23));
    ck_assert(ona_string_is_inline(v.as.ona_string));
    expect(&r, ONA_VALUE_ONA_STRING, &v);
    ck_assert(ona_string_equal(v.as.ona_string, &o24));
    ck_assert_ptr_eq(ona_string_data(v.as.ona_string), ona_string_data(&o24)); /* shared */
    ona_string held = ona_string_copy(v.as.ona_string);
    expect(&r, ONA_VALUE_ONA_STRING, &v);
    ck_assert_uint_eq(ona_string_length(v.as.ona_string), 0);
    expect(&r, ONA_VALUE_BUFFER, &v);
    ck_assert_ptr_eq(v.as.buffer, kept);
    ck_assert_ptr_eq(ona_message_take_buffer(&r), kept);
    ck_assert_ptr_null(ona_message_take_buffer(&r));
    expect(&r, ONA_VALUE_TABLE_BEGIN, &v);
    ck_assert_uint_eq(v.as.table.array_size, 3);
    ck_assert_uint_eq(v.as.table.hash_size, 1);
    for (int i = 1; i <= 2; i++) {
        expect(&r, ONA_VALUE_NUMBER, &v);
        ck_assert(v.as.number == i);
        expect(&r, ONA_VALUE_NUMBER, &v);
        ck_assert(v.as.number == i * 10);
    }
    expect(&r, ONA_VALUE_NUMBER, &v);
    expect(&r, ONA_VALUE_TABLE_BEGIN, &v);
    ck_assert_uint_eq(v.as.table.hash_size, 1);
    expect(&r, ONA_VALUE_STRING, &v);
    ck_assert_str_eq(v.as.string.bytes, "k");
    expect(&r, ONA_VALUE_BOOLEAN, &v);
    ck_assert(!v.as.boolean);
    expect(&r, ONA_VALUE_TABLE_END, &v);
    expect(&r, ONA_VALUE_STRING, &v);
    expect(&r, ONA_VALUE_STRING, &v);
    expect(&r, ONA_VALUE_TABLE_END, &v);
    expect(&r, ONA_VALUE_END, &v);
    expect(&r, ONA_VALUE_END, &v);

    /* The taken buffer reads as nil now; the message no longer frees it. */
    ona_message_reader_begin(&r, &m);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert_int_eq(v.type, ONA_VALUE_NIL);
    ona_message_release(&m);
    ck_assert_uint_eq(ona_message_count(&m), 0);
    ck_assert(((float *)ona_buffer_data(kept))[7] == 7.5f);
    ona_buffer_destroy(kept);
    ona_string_release(&o24); /* `held` keeps the bytes alive past the message and o24 */
    ck_assert_uint_eq(ona_string_length(&held), 24);
    ona_string_release(&held);
    ona_string_release(&o23);
    ona_message_release(NULL);
}
END_TEST

START_TEST(test_message_writer_errors_roll_back) {
    ona_string heap;
    ck_assert_int_eq(ona_string_from_cstr(&heap, LONG40), 0);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, "kept", 4);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    uint32_t size = m.size;

    /* A table left open: everything since begin goes, and the moved buffer is destroyed. */
    ona_buffer *buf;
    ck_assert_int_eq(ona_buffer_create("int", 4, 1000, &buf), 0);
    ona_message_writer_begin(&w, &m);
    ona_message_write_ona_string(&w, &heap);
    ona_message_write_buffer(&w, &buf);
    ona_message_write_table_begin(&w);
    for (int i = 0; i < 40; i++)
        ona_message_write_string(&w, LONG40, sizeof LONG40 - 1);
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_EINVAL);
    ck_assert_uint_eq(m.size, size);
    ck_assert_uint_eq(ona_message_count(&m), 1);
    ck_assert_ptr_null(m.heap); /* rolled back under the inline size: inline again */

    /* A key without a value. */
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "k", 1);
    ck_assert_int_eq(ona_message_write_table_end(&w), ONA_EINVAL);
    ck_assert_int_eq(ona_message_write_nil(&w), ONA_EINVAL); /* later calls do nothing */
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_EINVAL);
    ck_assert_uint_eq(m.size, size);

    /* End of a table that was never opened. */
    ona_message_writer_begin(&w, &m);
    ck_assert_int_eq(ona_message_write_table_end(&w), ONA_EINVAL);
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_EINVAL);

    /* ONA_MESSAGE_MAX_DEPTH tables nest; one more does not. */
    ona_message_writer_begin(&w, &m);
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH; i++) {
        ck_assert_int_eq(ona_message_write_table_begin(&w), 0);
        ona_message_write_number(&w, 1);
    }
    ck_assert_int_eq(ona_message_write_table_begin(&w), ONA_ELIMIT);
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_ELIMIT);
    ck_assert_uint_eq(m.size, size);

    /* Bad keys: nil, NaN, a table, an ona_string, a buffer (which stays with the caller). */
    ck_assert_int_eq(ona_buffer_create("int", 4, 1, &buf), 0);
    for (int kind = 0; kind < 5; kind++) {
        ona_message_writer_begin(&w, &m);
        ona_message_write_table_begin(&w);
        int rc = kind == 0   ? ona_message_write_nil(&w)
                 : kind == 1 ? ona_message_write_number(&w, NAN)
                 : kind == 2 ? ona_message_write_table_begin(&w)
                 : kind == 3 ? ona_message_write_ona_string(&w, &heap)
                             : ona_message_write_buffer(&w, &buf);
        ck_assert_int_eq(rc, ONA_EENCODE);
        ck_assert_int_eq(ona_message_writer_end(&w), ONA_EENCODE);
        ck_assert_uint_eq(m.size, size);
    }
    ck_assert_ptr_nonnull(buf);

    /* Too large, and bad arguments. */
    ona_message_writer_begin(&w, &m);
    ck_assert_int_eq(ona_message_write_string(&w, "x", (size_t)ONA_MESSAGE_MAX_SIZE + 1),
                     ONA_ERANGE);
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_ERANGE);
    ona_message_writer_begin(&w, &m);
    ck_assert_int_eq(ona_message_write_string(&w, NULL, 2), ONA_EINVAL);
    ona_message_writer_end(&w);
    ona_buffer *none = NULL;
    ona_message_writer_begin(&w, &m);
    ck_assert_int_eq(ona_message_write_buffer(&w, &none), ONA_EINVAL);
    ona_message_writer_end(&w);
    ck_assert_uint_eq(m.size, size);
    ck_assert_uint_eq(ona_message_count(&m), 1);

    /* Growing the heap fails: ONA_ENOMEM, rolled back, the references released. */
    ona_message_writer_begin(&w, &m);
    ona_message_write_ona_string(&w, &heap);
    ona_message_write_buffer(&w, &buf);
    fault_alloc_begin(1, true);
    for (int i = 0; i < 4; i++)
        ona_message_write_string(&w, LONG40, sizeof LONG40 - 1);
    fault_alloc_end();
    ck_assert_int_eq(ona_message_writer_end(&w), ONA_ENOMEM);
    ck_assert_uint_eq(m.size, size);
    ck_assert_ptr_null(buf); /* it was moved in, then destroyed by the rollback */

    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, &m);
    expect(&r, ONA_VALUE_STRING, &v);
    ck_assert_str_eq(v.as.string.bytes, "kept");
    expect(&r, ONA_VALUE_END, &v);
    ona_message_release(&m);
    ona_string_release(&heap);
}
END_TEST

START_TEST(test_message_buffer_create_errors) {
    ona_buffer *b = (ona_buffer *)&b;
    ck_assert_int_eq(ona_buffer_create("float", 4, 4, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_buffer_create("", 4, 4, &b), ONA_EINVAL);
    ck_assert_ptr_null(b);
    char long_name[80];
    memset(long_name, 't', sizeof long_name - 1);
    long_name[64] = '\0';
    ck_assert_int_eq(ona_buffer_create(long_name, 4, 4, &b), ONA_EINVAL);
    long_name[63] = '\0';
    ck_assert_int_eq(ona_buffer_create(long_name, 4, 4, &b), 0);
    ck_assert_str_eq(ona_buffer_type(b), long_name);
    ona_buffer_destroy(b);
    ck_assert_int_eq(ona_buffer_create("float", 0, 4, &b), ONA_EINVAL);
    ck_assert_int_eq(ona_buffer_create("float", 4, SIZE_MAX / 2, &b), ONA_ERANGE);
    ck_assert_int_eq(ona_buffer_create("char", 1, ONA_MESSAGE_MAX_SIZE + 1, &b), ONA_ERANGE);
    fault_alloc_begin(1, true);
    ck_assert_int_eq(ona_buffer_create("float", 4, 4, &b), ONA_ENOMEM);
    fault_alloc_end();
    ck_assert_int_eq(ona_buffer_create("double", 8, 0, &b), 0);
    ck_assert_uint_eq(ona_buffer_count(b), 0);
    ck_assert_uint_eq(ona_buffer_elem_size(b), 8);
    ona_buffer_destroy(b);
    ona_buffer_destroy(NULL);
}
END_TEST

/* --- Lua round trips ------------------------------------------------------------------------- */

START_TEST(test_message_lua_round_trip) {
    lua_State *a = new_state(), *b = new_state();
    ona__moves moves;
    run(a, "long = ona.string(string.rep('z', 40)); short = ona.string('short\\0x')");
    ona_message m = encode_ok(a,
                              "return nil, true, false, 42.5, 'a\\0b', '', {1, 2, 3, "
                              "x = {y = {z = 'deep'}}, [true] = 't', [2.5] = 'f', [-1] = -1}, "
                              "short, long, 1/0, ona.string(string.rep('q', 23)), "
                              "ona.string(string.rep('r', 24))",
                              &moves);
    ck_assert_uint_eq(ona_message_count(&m), 12);
    ck_assert_uint_eq(moves.count, 0);
    decode_to_v(&m, b);
    run(b, "assert(v.n == 12 and v[1] == nil and v[2] == true and v[3] == false)\n"
           "assert(v[4] == 42.5 and v[5] == 'a\\0b' and v[6] == '' and v[10] == 1/0)\n"
           "local t = v[7]\n"
           "assert(#t == 3 and t[1] == 1 and t[3] == 3 and t.x.y.z == 'deep')\n"
           "assert(t[true] == 't' and t[2.5] == 'f' and t[-1] == -1)\n"
           "assert(getmetatable(t) == nil)\n"
           "for _, i in ipairs({8, 9, 11, 12}) do\n"
           "  assert(getmetatable(v[i]) == 'ona.String', i) end\n"
           "assert(tostring(v[8]) == 'short\\0x' and #v[8] == 7 and v[8]:len() == 7)\n"
           "assert(v[9]:data() == string.rep('z', 40))\n"
           "assert(#v[11] == 23 and #v[12] == 24)\n"
           "assert(v[11] .. '!' == string.rep('q', 23) .. '!')\n"
           "assert('<' .. v[8] == '<short\\0x' and v[8] .. v[8] == 'short\\0xshort\\0x')\n"
           "assert(v[9] == ona.string(string.rep('z', 40)) and v[9] ~= v[8])\n"
           "assert(v[9]:hash() == ona.string(v[9]):hash() and v[9]:hash() ~= v[8]:hash())\n"
           "assert(v[9]:hash() < 2^52 and v[9]:hash() == math.floor(v[9]:hash()))");
    /* The heap string is the sender's block, not a copy. */
    lua_getglobal(a, "long");
    lua_getglobal(b, "v");
    lua_rawgeti(b, -1, 9);
    ck_assert_ptr_eq(ona_string_data(ona__lua_to_string(a, -1)),
                     ona_string_data(ona__lua_to_string(b, -1)));
    lua_settop(a, 0);
    lua_settop(b, 0);
    /* Decoding moved every reference out; decoding again gives nils for them. */
    decode_to_v(&m, b);
    run(b, "assert(v.n == 12 and v[9] == nil and v[12] == nil)\n"
           "assert(getmetatable(v[8]) == 'ona.String') -- short strings are bytes, not refs");
    ona_message_release(&m);
    lua_close(a);
    lua_close(b);
}
END_TEST

/* Every order of letting go of the sender's userdata, the message and the receiver's
 * userdata: ASan reports any leak, double free or use after free. */
START_TEST(test_message_lua_string_refcount_orders) {
    for (int order = 0; order < 4; order++) {
        lua_State *a = new_state(), *b = new_state();
        ona__moves moves;
        ona_message m =
            encode_ok(a, "s = ona.string(string.rep('w', 64)); return s, {s, s}", &moves);
        if (order == 0) { /* message released undecoded while the sender still holds it */
            ona_message_release(&m);
            run(a, "assert(s:data() == string.rep('w', 64))");
            lua_close(a);
            lua_close(b);
            continue;
        }
        if (order == 1) /* the sender goes before the receiver decodes */
            lua_close(a);
        decode_to_v(&m, b);
        if (order == 2) { /* the receiver lets go first, then the message, then the sender */
            run(b, "v = nil; collectgarbage()");
            lua_close(b);
            ona_message_release(&m);
            run(a, "assert(s:data() == string.rep('w', 64))");
            lua_close(a);
            continue;
        }
        ona_message_release(&m);
        if (order == 3)
            lua_close(a);
        run(b, "assert(v[1]:data() == string.rep('w', 64) and v[2][2] == v[1])");
        lua_close(b);
    }
}
END_TEST

START_TEST(test_message_lua_buffers_move_on_commit) {
    lua_State *a = new_state(), *b = new_state();
    ona__moves moves;
    run(a, "b = ona.buffer('float', 4); p = b:ptr(); p[0] = 1.5; p[3] = 4.5\n"
           "assert(b:count() == 4 and #b == 4 and b:size() == 16 and b:type() == 'float')");
    ona_message m = encode_ok(a, "return b", &moves);
    ck_assert_uint_eq(moves.count, 1);
    /* Not committed: the handle owns the buffer, and releasing the message leaves it alone. */
    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, &m);
    expect(&r, ONA_VALUE_BUFFER, &v);
    ck_assert_ptr_null(ona_message_take_buffer(&r));
    char err[256];
    ck_assert_int_eq(ona__message_decode_lua(&m, b, err, sizeof err), ONA_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "not committed"));
    ona_message_release(&m);
    run(a, "assert(b:alive()); p[1] = 2.5");

    m = encode_ok(a, "return 'first', {data = b, n = 4}", &moves);
    run(a, "assert(b:alive())");
    ona__message_commit_moves(&m, &moves);
    ck_assert_uint_eq(moves.count, 0);
    run(a, "assert(not b:alive() and tostring(b) == 'ona.Buffer(moved)')\n"
           "local ok, e = pcall(b.ptr, b)\n"
           "assert(not ok and e:find('buffer was moved by ona.send'), e)\n"
           "assert(not pcall(b.count, b)); b:free()");
    decode_to_v(&m, b);
    run(b, "local d = v[2].data\n"
           "assert(getmetatable(d) == 'ona.Buffer' and d:alive() and d:type() == 'float')\n"
           "local p = d:ptr()\n"
           "assert(#d == 4 and p[0] == 1.5 and p[1] == 2.5 and p[2] == 0 and p[3] == 4.5)");
    ona_message_release(&m); /* the decoded buffer belongs to b now */
    run(b, "v[2].data:ptr()[2] = 3; v[2].data:free(); assert(not v[2].data:alive())");

    /* A committed message that is never decoded frees its buffers. */
    m = encode_ok(a, "c = ona.buffer('double', 1000); return c", &moves);
    ona__message_commit_moves(&m, &moves);
    ona_message_release(&m);
    run(a, "assert(not c:alive())");

    /* A buffer written from C decodes into Lua; a Lua buffer cannot join C-owned ones. */
    ona_buffer *cb;
    ck_assert_int_eq(ona_buffer_create("int32_t", 4, 3, &cb), 0);
    ((int32_t *)ona_buffer_data(cb))[2] = -7;
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_buffer(&w, &cb);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    run(a, "d = ona.buffer('int', 1)");
    uint32_t size = m.size;
    ck_assert_int_eq(encode(&m, a, "return d", &moves, err), ONA_EINVAL);
    ck_assert_uint_eq(m.size, size);
    decode_to_v(&m, b);
    run(b, "assert(v[1]:ptr()[2] == -7 and v[1]:type() == 'int32_t')");
    ona_message_release(&m);

    lua_close(a);
    lua_close(b);
}
END_TEST

START_TEST(test_message_lua_buffer_misuse) {
    lua_State *L = new_state();
    run(L,
        "local function fails(f, text)\n"
        "  local ok, e = pcall(f); assert(not ok and e:find(text, 1, true), e) end\n"
        "fails(function() ona.buffer('no_such_type', 1) end, \"unknown C type 'no_such_type'\")\n"
        "fails(function() ona.buffer('float', -1) end, 'non-negative integer')\n"
        "fails(function() ona.buffer('float', 1.5) end, 'non-negative integer')\n"
        "fails(function() ona.buffer('float', 2^40) end, 'too large')\n"
        "fails(function() ona.buffer('', 1) end, '1 to 63 bytes')\n"
        "fails(function() ona.buffer(string.rep('t', 64), 1) end, '1 to 63 bytes')\n"
        "fails(function() ona.string({}) end, 'bad argument #1')\n"
        "fails(function() return ona.string('x') .. {} end, 'concatenate')\n"
        "require('ffi').cdef('struct sprite { float x, y; int frame; };')\n"
        "local s = ona.buffer('struct sprite', 3)\n"
        "assert(s:size() == 36 and s:ptr()[2].frame == 0)\n"
        "assert(ona.buffer('uint8_t', 0):size() == 0)\n"
        "assert(ona.string(12):data() == '12')");
    lua_close(L);
}
END_TEST

/* --- Refusals -------------------------------------------------------------------------------- */

typedef struct refusal {
    const char *code;
    int rc;
    const char *err;
} refusal;

static const refusal refusals[] = {
    {"return {enemies = {{}, {}, {cb = function() end}}}", ONA_EENCODE,
     "msg.enemies[3].cb is a function"},
    {"return 1, coroutine.create(function() end)", ONA_EENCODE, "msg#2 is a thread"},
    {"return io.stdout", ONA_EENCODE, "msg is a userdata"},
    {"return {x = require('ffi').new('int[1]')}", ONA_EENCODE, "msg.x is a cdata"},
    {"return 'ok', {a = setmetatable({}, {})}", ONA_EENCODE, "msg#2.a is a table with a metatable"},
    {"local t = {a = {b = {}}}; t.a.b = t.a; return t", ONA_EENCODE,
     "msg.a.b refers back to msg.a (cycle)"},
    {"local t = {}; t[1] = {t}; return t", ONA_EENCODE, "msg[1][1] refers back to msg (cycle)"},
    {"return {[{}] = 1}", ONA_EENCODE, "msg has a table key"},
    {"return {a = {[print] = 1}}", ONA_EENCODE, "msg.a has a function key"},
    {"return {['hello world'] = {['a\"b\\n'] = print}}", ONA_EENCODE,
     "msg[\"hello world\"][\"a\\\"b\\n\"] is a function"},
    {"return {['end'] = print, [true] = 1}", ONA_EENCODE, "msg[\"end\"] is a function"},
    {"return {[false] = print}", ONA_EENCODE, "msg[false] is a function"},
    {"return {[2.5] = print}", ONA_EENCODE, "msg[2.5] is a function"},
    {"return {[string.rep('-', 30)] = print}", ONA_EENCODE,
     "msg[\"------------------------...\"] is a function"},
    {"return {{1, 2, {x = {[10] = print}}}}", ONA_EENCODE, "msg[1][3].x[10] is a function"},
    {"local b = ona.buffer('int', 1); b:free(); return {x = b}", ONA_EENCODE,
     "msg.x is a buffer that was already moved"},
    {"local b = ona.buffer('int', 1); return b, {b}", ONA_EENCODE,
     "msg#2[1] is a buffer that is already in this message"},
    {"local t = {}; for i = 1, 65 do t[i] = ona.buffer('int', 1) end; return t", ONA_ELIMIT,
     "msg[65] is a buffer past the limit of 64 per message"},
    {"local t = {}; local c = t; for i = 1, 32 do c.x = {}; c = c.x end; return t", ONA_ELIMIT,
     "msg.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x is nested deeper "
     "than 32 tables"},
};

START_TEST(test_message_lua_refusals_name_the_path) {
    lua_State *L = new_state();
    ona__moves moves;
    run(L, "keep = ona.buffer('int', 1)");
    ona_message m = encode_ok(L, "return 'before', ona.string(string.rep('k', 30)), keep", &moves);
    ona_message before = m;
    uint8_t before_bytes[ONA_MESSAGE_INLINE];
    ck_assert_ptr_null(m.heap);
    memcpy(before_bytes, m.inline_data, m.size);
    char err[256];
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
        err[0] = '\0';
        int rc = encode(&m, L, refusals[i].code, &moves, err);
        ck_assert_msg(rc == refusals[i].rc, "%s: got %s (%s)", refusals[i].code, ona_error_name(rc),
                      err);
        ck_assert_str_eq(err, refusals[i].err);
        /* The message is as it was before the call. */
        ck_assert_uint_eq(m.size, before.size);
        ck_assert_uint_eq(m.count, before.count);
        ck_assert_uint_eq(m.flags, before.flags);
        ck_assert_int_eq(memcmp(ona__message_bytes(&m), before_bytes, m.size), 0);
        ck_assert_uint_eq(moves.count, 0);
    }
    /* Exactly ONA_MESSAGE_MAX_DEPTH tables nest. */
    ona_message deep = encode_ok(
        L, "local t = {}; local c = t; for i = 1, 31 do c.x = {}; c = c.x end; return t", &moves);
    ona_message_release(&deep);
    lua_settop(L, 0);
    lua_pushlightuserdata(L, &moves);
    ck_assert_int_eq(ona__message_encode_lua(&m, L, 1, 1, &moves, err, sizeof err), ONA_EENCODE);
    ck_assert_str_eq(err, "msg is a light userdata");
    ona_message_release(&m);
    run(L, "assert(keep:alive())");
    lua_close(L);
}
END_TEST

/* The Lua encoder writes the array part first and hints that match it. */
START_TEST(test_message_lua_table_hints) {
    lua_State *L = new_state();
    ona__moves moves;
    ona_message m = encode_ok(L, "return {10, 20, 30, x = 1, y = 2, [1.5] = 3}, {}", &moves);
    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, &m);
    expect(&r, ONA_VALUE_TABLE_BEGIN, &v);
    ck_assert_uint_eq(v.as.table.array_size, 3);
    ck_assert_uint_eq(v.as.table.hash_size, 3);
    for (int i = 1; i <= 3; i++) {
        expect(&r, ONA_VALUE_NUMBER, &v);
        ck_assert(v.as.number == i);
        expect(&r, ONA_VALUE_NUMBER, &v);
        ck_assert(v.as.number == i * 10);
    }
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(ona_message_read(&r, &v), 0);
    expect(&r, ONA_VALUE_TABLE_END, &v);
    expect(&r, ONA_VALUE_TABLE_BEGIN, &v);
    ck_assert_uint_eq(v.as.table.array_size + v.as.table.hash_size, 0);
    expect(&r, ONA_VALUE_TABLE_END, &v);
    expect(&r, ONA_VALUE_END, &v);
    /* Without references, what Lua encodes is valid untrusted input too. */
    uint32_t count;
    ck_assert_int_eq(ona_message_validate(ona__message_bytes(&m), m.size, &count), 0);
    ck_assert_uint_eq(count, 2);
    ona_message_release(&m);
    lua_close(L);
}
END_TEST

/* --- Out of memory --------------------------------------------------------------------------- */

START_TEST(test_message_encode_out_of_memory) {
    lua_State *a = new_state(), *b = new_state();
    ona__moves moves;
    run(a, "s = ona.string(string.rep('s', 100)); buf = ona.buffer('int', 16)\n"
           "big = {buf = buf}\n"
           "for i = 1, 300 do big[i] = {name = 'entity' .. i, s = s, pos = {i, i * 2}} end");
    char err[256];
    long n;
    int failures = 0;
    ona_message m;
    ona_message_init(&m);
    for (n = 1; n < 100; n++) {
        fault_alloc_begin(n, true);
        int rc = encode(&m, a, "return 'head', big", &moves, err);
        fault_alloc_end();
        if (rc == 0)
            break;
        failures++;
        ck_assert_int_eq(rc, ONA_ENOMEM);
        ck_assert_ptr_nonnull(strstr(err, "out of memory"));
        ck_assert_uint_eq(m.size, 0);
        ck_assert_uint_eq(m.count, 0);
        ck_assert_uint_eq(m.flags, 0);
        ck_assert_ptr_null(m.heap);
        ck_assert_uint_eq(moves.count, 0);
        run(a, "assert(buf:alive())");
    }
    ck_assert_int_gt(failures, 3); /* the message grew through several reallocations */
    ona__message_commit_moves(&m, &moves);
    decode_to_v(&m, b);
    run(b, "assert(v[1] == 'head' and #v[2] == 300 and v[2][300].pos[2] == 600)\n"
           "assert(v[2][7].s:data() == string.rep('s', 100) and v[2].buf:count() == 16)");
    ona_message_release(&m);
    lua_close(a);
    lua_close(b);
}
END_TEST

/* A Lua allocator that fails once `budget` allocations have been made. */
typedef struct lua_budget {
    long left;
    bool failing;
} lua_budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lua_budget *b = ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (b->failing && nsize > osize && b->left-- <= 0)
        return NULL;
    return realloc(ptr, nsize);
}

static int decode_protected(lua_State *L) {
    ona_message *m = lua_touserdata(L, 1);
    char err[128];
    lua_settop(L, 0);
    ona__message_decode_lua(m, L, err, sizeof err);
    return 0;
}

/* A Lua memory error part way through a decode: whatever Lua got is Lua's, the rest is freed by
 * releasing the message, and nothing is freed twice (ASan checks both). */
START_TEST(test_message_decode_memory_error_leaks_nothing) {
    lua_State *a = new_state();
    lua_budget budget = {0, false};
    lua_State *b = lua_newstate(budget_alloc, &budget);
    ck_assert_ptr_nonnull(b);
    luaL_openlibs(b);
    ona__lua_register_types(b);
    int raised = 0;
    for (long n = 0; n < 400; n++) {
        ona__moves moves;
        ona_message m = encode_ok(a,
                                  "local t = {}; for i = 1, 20 do t[i] = {ona.string("
                                  "string.rep('h', 30 + i)), ona.buffer('int', i), 'k' .. i} end;"
                                  "return ona.string(string.rep('x', 50)), t",
                                  &moves);
        ona__message_commit_moves(&m, &moves);
        lua_gc(b, LUA_GCCOLLECT, 0);
        budget.left = n;
        budget.failing = true;
        int rc = lua_cpcall(b, decode_protected, &m);
        budget.failing = false;
        ona_message_release(&m);
        lua_settop(b, 0);
        lua_gc(b, LUA_GCCOLLECT, 0);
        if (rc == 0)
            break;
        ck_assert_int_eq(rc, LUA_ERRMEM);
        raised++;
    }
    ck_assert_int_gt(raised, 10);
    lua_close(b);
    lua_close(a);
}
END_TEST

int main(void) {
    Suite *s = suite_create("message");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_message_writer_reader_round_trip);
    tcase_add_test(tc, test_message_writer_errors_roll_back);
    tcase_add_test(tc, test_message_buffer_create_errors);
    tcase_add_test(tc, test_message_lua_round_trip);
    tcase_add_test(tc, test_message_lua_string_refcount_orders);
    tcase_add_test(tc, test_message_lua_buffers_move_on_commit);
    tcase_add_test(tc, test_message_lua_buffer_misuse);
    tcase_add_test(tc, test_message_lua_refusals_name_the_path);
    tcase_add_test(tc, test_message_lua_table_hints);
    tcase_add_test(tc, test_message_encode_out_of_memory);
    tcase_add_test(tc, test_message_decode_memory_error_leaks_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
