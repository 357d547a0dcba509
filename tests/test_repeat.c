/*
 * test_repeat.c: what makes a run repeat inside one process. math.random is seeded per system
 * from the session seed (ona_runtime_desc.seed), the system's name and its spawn order: the same
 * on any thread count, different between systems and between session seeds, replayed by a
 * restart, and the script's own math.randomseed still rules; the session seed moves ona.random()'s
 * default seeds too; a seed of 2^53 or more is refused. With the bundled LuaJIT (fixed seed,
 * cmake/luajit-determinism.patch) systems running one script list a table of string keys in one
 * pairs() order, however many of them compiled traces before and on however many threads. The
 * same across processes is tests/test_launcher.c's test_launcher_runs_repeat.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ona_runtime *make_runtime(uint32_t threads, uint64_t seed) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt = NULL;
    ona_runtime_desc d = {.threads = threads, .script_roots = roots, .seed = seed};
    ck_assert_int_eq(ona_runtime_create(&d, &rt), 0);
    return rt;
}

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
}

/* The collected strings in arrival order, each followed by '\n' (malloc'd). */
static char *collected_copy(void) {
    size_t size = 1;
    for (int i = 0; i < coll->count; i++)
        size += strlen(coll->items[i].text) + 1;
    char *all = calloc(1, size);
    ck_assert_ptr_nonnull(all);
    for (int i = 0; i < coll->count; i++) {
        ck_assert_int_eq(coll->items[i].type, ONA_VALUE_STRING);
        strcat(all, coll->items[i].text);
        strcat(all, "\n");
    }
    return all;
}

/* --- math.random ----------------------------------------------------------------------------- */

/* Each system reports its first math.random() draws, its first default ona.random() seed, and
 * math.random() after math.randomseed(42). */
static const char DRAWS_LUA[] =
    "return { init = function(state, args)\n"
    "  local a, b = math.random(), math.random(1000000)\n"
    "  local s = ona.random():seed()\n"
    "  math.randomseed(42)\n"
    "  ona.send(args.report, ('%s|%.17g,%d|%.17g|%.17g'):format(ona.name(), a, b, s,\n"
    "                                                         math.random()))\n"
    "end, process = function() end }\n";

/* Runs three systems of DRAWS_LUA and returns their reports sorted by name. */
static char *draws_run(uint32_t threads, uint64_t seed) {
    ona_runtime *rt = make_runtime(threads, seed);
    ona_system report = spawn_collector(rt);
    static const char *const names[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++)
        spawn_lua(rt, "draws.lua", names[i], report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    ck_assert_int_eq(coll->count, 3);
    /* Sorted by name: which report arrives first is the threads' business. */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (strcmp(coll->items[j].text, coll->items[i].text) < 0) {
                item t = coll->items[i];
                coll->items[i] = coll->items[j];
                coll->items[j] = t;
            }
    char *all = collected_copy();
    ona_runtime_destroy(rt);
    collector_free();
    return all;
}

/* The field `n` (0-based, '|'-separated) of line `line` of `text`, into buf. */
static const char *field(const char *text, int line, int n, char *buf, size_t size) {
    const char *p = text;
    for (int i = 0; i < line; i++) {
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    for (int i = 0; i < n; i++) {
        p = strchr(p, '|');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    size_t len = strcspn(p, "|\n");
    ck_assert_uint_lt(len, size);
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

START_TEST(test_repeat_math_random_per_system) {
    game_dir_begin("repeat-draws");
    game_write("draws.lua", DRAWS_LUA);
    char *one = draws_run(1, 0), *two = draws_run(2, 0), *seeded = draws_run(2, 777);
    ck_assert_str_eq(one, two);
    char a[64], b[64];
    for (int i = 0; i < 3; i++) {
        /* Each system its own numbers and its own default ona.random() seed. */
        for (int j = i + 1; j < 3; j++) {
            ck_assert_str_ne(field(one, i, 1, a, sizeof a), field(one, j, 1, b, sizeof b));
            ck_assert_str_ne(field(one, i, 2, a, sizeof a), field(one, j, 2, b, sizeof b));
        }
        /* Another session seed, other numbers for every system, ona.random() included. */
        ck_assert_str_ne(field(one, i, 1, a, sizeof a), field(seeded, i, 1, b, sizeof b));
        ck_assert_str_ne(field(one, i, 2, a, sizeof a), field(seeded, i, 2, b, sizeof b));
        /* math.randomseed(42) is the script's choice: one sequence everywhere. */
        ck_assert_str_eq(field(one, 0, 3, a, sizeof a), field(one, i, 3, b, sizeof b));
        ck_assert_str_eq(field(one, 0, 3, a, sizeof a), field(seeded, i, 3, b, sizeof b));
    }
    free(one);
    free(two);
    free(seeded);
    game_dir_end();
}
END_TEST

/* A system that fails in init is restarted with a fresh state: it draws the same numbers. */
START_TEST(test_repeat_restart_replays_math_random) {
    game_dir_begin("repeat-restart");
    game_write("again.lua", "return { init = function(state, args)\n"
                            "  ona.send(args.report, ('%.17g %.17g'):format(math.random(),\n"
                            "                                              math.random()))\n"
                            "  error('once more')\n"
                            "end, process = function() end }\n");
    ona_runtime *rt = make_runtime(2, 5);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "again.lua", "again", report, "", 0, ONA_POLICY_RESTART);
    ck_assert_int_eq(ona_runtime_run(rt, 12, 0), 0);
    ck_assert_int_ge(coll->count, 3);
    for (int i = 1; i < coll->count; i++)
        ck_assert_str_eq(coll->items[i].text, coll->items[0].text);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

START_TEST(test_repeat_seed_out_of_range_refused) {
    game_dir_begin("repeat-seed");
    ona_runtime *rt = (ona_runtime *)1;
    ona_runtime_desc d = {.seed = 1ull << 53};
    ck_assert_int_eq(ona_runtime_create(&d, &rt), ONA_EINVAL);
    ck_assert_ptr_null(rt);
    ck_assert(captured_logs_contain("seed < 2^53"));
    d.seed = (1ull << 53) - 1;
    ck_assert_int_eq(ona_runtime_create(&d, &rt), 0);
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

/* --- pairs() over string keys ---------------------------------------------------------------- */

#ifndef ONA_LUAJIT_FIXED_SEED
#error "ONA_LUAJIT_FIXED_SEED is a compile definition of the build (cmake/luajit.cmake)"
#endif
#if ONA_LUAJIT_FIXED_SEED /* the system's LuaJIT seeds its string IDs from the OS */
/* Warms the JIT (a trace, hence a machine-code area near the VM: the later a state places its
 * area, the more probes it takes), drops garbage strings, then reports the order pairs() visits
 * 1,000 string keys in, as a hash and its first keys. */
static const char LISTER_LUA[] =
    "return { init = function(state, args)\n"
    "  local x = 0\n"
    "  for i = 1, 100000 do x = x + i % 7 end\n"
    "  local junk = {}\n"
    "  for i = 1, 2000 do junk[i] = 'junk' .. i end\n"
    "  junk = nil\n"
    "  local t = {}\n"
    "  for i = 1, 1000 do t['key' .. i] = i end\n"
    "  local order, h = {}, 0\n"
    "  for _, v in pairs(t) do\n"
    "    order[#order + 1] = v\n"
    "    h = (h * 31 + v) % 4294967296\n"
    "  end\n"
    "  assert(#order == 1000)\n"
    "  ona.send(args.report, ('%08x %s'):format(h, table.concat(order, ',', 1, 10)))\n"
    "end, process = function() end }\n";

static char *order_run(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, 0);
    ona_system report = spawn_collector(rt);
    for (int i = 0; i < 6; i++) {
        char name[16];
        snprintf(name, sizeof name, "lister%d", i);
        spawn_lua(rt, "lister.lua", name, report, "", 0, 0);
    }
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    ck_assert_int_eq(coll->count, 6);
    /* Every system, whichever placed its machine code first, the same order. */
    for (int i = 1; i < 6; i++)
        ck_assert_msg(strcmp(coll->items[i].text, coll->items[0].text) == 0,
                      "system %d listed '%s', system 0 '%s'", i, coll->items[i].text,
                      coll->items[0].text);
    char *first = strdup(coll->items[0].text);
    ona_runtime_destroy(rt);
    collector_free();
    return first;
}

START_TEST(test_repeat_pairs_order_same_in_every_system) {
    game_dir_begin("repeat-order");
    game_write("lister.lua", LISTER_LUA);
    char *one = order_run(1), *three = order_run(3);
    ck_assert_str_eq(one, three);
    free(one);
    free(three);
    game_dir_end();
}
END_TEST
#endif

int main(void) {
    Suite *s = suite_create("repeat");
    TCase *tc = tcase_create("repeat");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_repeat_math_random_per_system);
    tcase_add_test(tc, test_repeat_restart_replays_math_random);
    tcase_add_test(tc, test_repeat_seed_out_of_range_refused);
#if ONA_LUAJIT_FIXED_SEED
    tcase_add_test(tc, test_repeat_pairs_order_same_in_every_system);
#endif
    suite_add_tcase(s, tc);
    return run_suite(s);
}
