/*
 * test_lua_lazy.c: the `ona` groups opened on first use (bindings/l_ona.c). ona.gfx,
 * ona.input and ona.audio are in `ona` from the start but empty, and open when a script first
 * reads or writes one of their fields. tests/lua/lazy.lua checks, on 1 and 2 threads, in a fresh
 * system: pairs(ona) lists the groups; they are closed until used; ona.gfx works at its first use
 * in a turn (the prelude's sprites kept, sheets, tile maps, text, shapes there); a write opens a
 * group and is kept; misuse at first use raises at the author's line under the public name; an
 * unknown ona.xyz is nil and calling it is Lua's own error at the author's line; the standard
 * libraries opened on first use (io, os, math, debug, bit: bindings/lua_host.c) are in _G and
 * package.loaded, closed until used, then whole, with the prelude's os.exit kept; ona.random
 * makes its generators' metatable at its first call (l_time.c); and, after a
 * hot reload re-runs the script in the same state, a group nobody touched opens in the reload
 * hook, which is called by the reload's steps compiled at that first reload (lua_host.c,
 * reload_chunk) under the prelude's chunk name and at prelude.lua's own line numbers.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

/* Asserts that the collector holds exactly the checks named in `expected`, all passed. */
static void assert_checks(uint32_t threads, const char *const *expected, int count) {
    ck_assert_msg(coll->count == 3 * count, "%d values reported, %d expected; log:\n%s",
                  coll->count, 3 * count, captured_logs_text());
    for (int i = 0; i < count; i++) {
        item *name = &coll->items[3 * i], *passed = &coll->items[3 * i + 1];
        item *detail = &coll->items[3 * i + 2];
        ck_assert_int_eq(name->type, ONA_VALUE_STRING);
        ck_assert_str_eq(name->text, expected[i]);
        ck_assert_int_eq(passed->type, ONA_VALUE_BOOLEAN);
        ck_assert_msg(passed->boolean, "%s failed (threads = %u): %s", name->text, threads,
                      detail->text);
    }
}

/* The line of scripts/prelude.lua where the hot reload calls a script's reload hook. */
static int prelude_hook_line(void) {
    FILE *f = fopen(ONA_SOURCE_DIR "/scripts/prelude.lua", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, "pcall(new.reload, state)"))
            found = n;
    }
    fclose(f);
    ck_assert_int_gt(found, 0);
    return found;
}

static void run_checks(uint32_t threads) {
    static const char *const expected[] = {
        "pairs lists the groups",
        "closed until used",
        "std libs closed until used",
        "gfx at first use",
        "input opened by a write",
        "error at first use",
        "unknown names",
        "std libs at first use",
        "random at first use",
        "audio still closed",
        "reload steps at the prelude's lines",
        "audio after a reload",
    };
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_system report = spawn_collector(rt);
    char args[64];
    snprintf(args, sizeof args, "reload_line=%d", prelude_hook_line());
    spawn_lua(rt, "lazy.lua", "lazy", report, args, 0, 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    assert_checks(threads, expected, 10);
    ck_assert_int_eq(ona_runtime_reload(rt, "lazy.lua"), 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    assert_checks(threads, expected, 12);
    ck_assert_msg(!captured_logs_contain("error"), "log:\n%s", captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lazy_groups_open_at_first_use) {
    run_checks(1);
    run_checks(2);
}
END_TEST

int main(void) {
    Suite *s = suite_create("lua_lazy");
    TCase *tc = tcase_create("lua_lazy");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_lazy_groups_open_at_first_use);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
