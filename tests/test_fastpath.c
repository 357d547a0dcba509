/*
 * test_fastpath.c: the FFI fast path of ona.send / ona.receive (bindings/l_ona.c,
 * scripts/prelude.lua). A send of one number and a receive of a one-number message go through
 * plain C functions called through LuaJIT's FFI; everything else takes the C functions. The Lua
 * side (tests/lua/fastpath.lua) checks, on 1 and 2 threads: numbers from C (from is false),
 * compiled loops of sends and receives in order with none lost, other messages mixed with numbers
 * in order, strings (empty, with NULs, longer than a message's inline bytes) sent in a loop, a bad
 * handle raising at the author's line under ona.send's name, and a full mailbox where the code
 * cannot wait raising instead of dropping. Each check reports (name, passed, detail) to the
 * collector.
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

/* Runs the script's checks and asserts that the ones named in `expected` all passed. */
static void run_checks(uint32_t threads, bool small, const char *const *expected, int count) {
    ona_runtime_desc desc = {
        .threads = threads, .script_roots = roots, .delivery = ONA_DELIVERY_IMMEDIATE};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_system report = spawn_collector(rt);
    ona_system sys = spawn_lua(rt, "fastpath.lua", "fastpath", report,
                               small ? "small=true" : "from_c=7", small ? 2 : 0, 0);
    if (!small) {
        ona_message m;
        ona_message_init(&m);
        ona_message_writer w;
        ona_message_writer_begin(&w, &m);
        ona_message_write_number(&w, 7);
        ck_assert_int_eq(ona_message_writer_end(&w), 0);
        ck_assert_int_eq(ona_runtime_send(rt, sys, &m), 0);
    }
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
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
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_fastpath_messages_keep_order_and_errors) {
    static const char *const expected[] = {"from C",  "numbers in order", "mixed messages",
                                           "strings", "stale handle",     "not a handle"};
    run_checks(1, false, expected, 6);
    run_checks(2, false, expected, 6);
}
END_TEST

START_TEST(test_fastpath_full_mailbox_raises_where_it_cannot_wait) {
    static const char *const expected[] = {"full mailbox"};
    run_checks(1, true, expected, 1);
    run_checks(2, true, expected, 1);
}
END_TEST

int main(void) {
    Suite *s = suite_create("fastpath");
    TCase *tc = tcase_create("fastpath");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fastpath_messages_keep_order_and_errors);
    tcase_add_test(tc, test_fastpath_full_mailbox_raises_where_it_cannot_wait);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
