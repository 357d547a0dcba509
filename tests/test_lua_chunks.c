/*
 * test_lua_chunks.c: Lua source compiled once and loaded as the same bytecode by every state
 * (bindings/lua_chunks.c). The same bytes load and run alike in any state, the first one
 * included (the same `pairs` order over a table constructor); changed bytes under the same name
 * are new code; a syntax error reads name:line as the compiler says it; "t" refuses bytecode;
 * past the kept chunks' bound old ones are dropped and still load; threads share the chunks.
 */
#include "test_support.h"

#include "lua_chunks.h"

#include <lauxlib.h>
#include <lualib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loads `src` as `name` in a fresh state, runs it, and returns its string result (malloc'd). */
static char *run_in_new_state(const char *src, const char *name) {
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    int rc = ona__lua_chunk_load(L, src, strlen(src), name, "t");
    ck_assert_msg(rc == 0, "%s", lua_tostring(L, -1));
    ck_assert_int_eq(lua_pcall(L, 0, 1, 0), 0);
    char *out = strdup(lua_tostring(L, -1));
    lua_close(L);
    return out;
}

/* A table constructor with 40 string keys, listed in pairs order. */
static const char PAIRS_SRC[] =
    "local t = {alpha=1, bravo=2, charlie=3, delta=4, echo=5, foxtrot=6, golf=7, hotel=8,\n"
    "  india=9, juliett=10, kilo=11, lima=12, mike=13, november=14, oscar=15, papa=16,\n"
    "  quebec=17, romeo=18, sierra=19, tango=20, uniform=21, victor=22, whiskey=23, xray=24,\n"
    "  yankee=25, zulu=26, one=27, two=28, three=29, four=30, five=31, six=32, seven=33,\n"
    "  eight=34, nine=35, ten=36, eleven=37, twelve=38, thirteen=39, fourteen=40}\n"
    "local keys = {}\n"
    "for k in pairs(t) do keys[#keys + 1] = k end\n"
    "return table.concat(keys, ',')\n";

START_TEST(test_lua_chunks_same_bytes_same_order_in_every_state) {
    char *first = run_in_new_state(PAIRS_SRC, "@pairs_order.lua");
    for (int i = 0; i < 3; i++) {
        char *again = run_in_new_state(PAIRS_SRC, "@pairs_order.lua");
        ck_assert_str_eq(again, first);
        free(again);
    }
    ck_assert_uint_eq(strlen(first) > 100, 1);
    free(first);
}
END_TEST

START_TEST(test_lua_chunks_changed_bytes_are_new_code) {
    char *one = run_in_new_state("return 'one'", "@edited.lua");
    char *two = run_in_new_state("return 'two'", "@edited.lua");
    char *one_again = run_in_new_state("return 'one'", "@edited.lua");
    ck_assert_str_eq(one, "one");
    ck_assert_str_eq(two, "two");
    ck_assert_str_eq(one_again, "one");
    free(one), free(two), free(one_again);
}
END_TEST

START_TEST(test_lua_chunks_errors_and_modes) {
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    const char *bad = "local x = 1\nlocal y = = 2\n";
    ck_assert_int_eq(ona__lua_chunk_load(L, bad, strlen(bad), "@broken.lua", "t"), LUA_ERRSYNTAX);
    ck_assert_msg(strstr(lua_tostring(L, -1), "broken.lua:2:"), "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    /* Errors at run time name the file and line from the kept bytecode's debug information. */
    const char *raises = "local a = 1\n\nerror('boom')\n";
    ck_assert_int_eq(ona__lua_chunk_load(L, raises, strlen(raises), "@raises.lua", "t"), 0);
    ck_assert_int_ne(lua_pcall(L, 0, 0, 0), 0);
    ck_assert_msg(strstr(lua_tostring(L, -1), "raises.lua:3: boom"), "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    /* Bytecode given as the source: refused under "t", taken (and kept as bytecode) under NULL. */
    ck_assert_int_eq(luaL_dostring(L, "return string.dump(function() return 42 end)"), 0);
    size_t n;
    const char *code = lua_tolstring(L, -1, &n);
    ck_assert_int_ne(ona__lua_chunk_load(L, code, n, "@bytecode.lua", "t"), 0);
    lua_pop(L, 1);
    ck_assert_int_eq(ona__lua_chunk_load(L, code, n, "@bytecode.lua", NULL), 0);
    ck_assert_int_eq(lua_pcall(L, 0, 1, 0), 0);
    ck_assert_int_eq((int)lua_tointeger(L, -1), 42);
    lua_close(L);
}
END_TEST

/* More distinct chunks than are kept: every one still loads and runs, the dropped ones again
 * from their source. */
START_TEST(test_lua_chunks_past_the_bound_still_load) {
    lua_State *L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    char src[64], name[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 1300; i++) {
            snprintf(src, sizeof src, "return %d", i);
            snprintf(name, sizeof name, "@n%d.lua", i);
            ck_assert_int_eq(ona__lua_chunk_load(L, src, strlen(src), name, "t"), 0);
            ck_assert_int_eq(lua_pcall(L, 0, 1, 0), 0);
            ck_assert_int_eq((int)lua_tointeger(L, -1), i);
            lua_pop(L, 1);
        }
    lua_close(L);
}
END_TEST

typedef struct loader {
    int index;
    int wrong;
} loader;

static void *load_many(void *arg) {
    loader *l = arg;
    lua_State *L = luaL_newstate();
    if (!L) {
        l->wrong = -1;
        return NULL;
    }
    char src[64], name[32];
    for (int i = 0; i < 400; i++) {
        int k = (i + l->index) % 8;
        snprintf(src, sizeof src, "return %d * 3", k);
        snprintf(name, sizeof name, "@shared%d.lua", k);
        if (ona__lua_chunk_load(L, src, strlen(src), name, "t") != 0 ||
            lua_pcall(L, 0, 1, 0) != 0 || lua_tointeger(L, -1) != k * 3)
            l->wrong++;
        lua_settop(L, 0);
    }
    lua_close(L);
    return NULL;
}

START_TEST(test_lua_chunks_shared_by_threads) {
    pthread_t t[4];
    loader l[4];
    for (int i = 0; i < 4; i++) {
        l[i] = (loader){.index = i};
        ck_assert_int_eq(pthread_create(&t[i], NULL, load_many, &l[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(l[i].wrong, 0);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("lua_chunks");
    TCase *tc = tcase_create("lua_chunks");
    tcase_add_test(tc, test_lua_chunks_same_bytes_same_order_in_every_state);
    tcase_add_test(tc, test_lua_chunks_changed_bytes_are_new_code);
    tcase_add_test(tc, test_lua_chunks_errors_and_modes);
    tcase_add_test(tc, test_lua_chunks_past_the_bound_still_load);
    tcase_add_test(tc, test_lua_chunks_shared_by_threads);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
