/*
 * test_inbox.c: the ona.inbox module the runtime ships (scripts/inbox.lua, embedded; README,
 * Messages). Two senders stamp a message a frame with inbox.send; the receiver handles them with
 * inbox.dispatch and reports each (tests/lua/inbox/). Every stamped message is handled exactly
 * one frame after it was sent, a frame's batch is in sender spawn order, an unstamped message is
 * handled at once, and the handled sequence is the same on 1 and 4 threads, and under immediate
 * delivery (which the module is kept for; ordered delivery, the default, makes it unnecessary).
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/inbox", NULL};

enum { FRAMES = 10, TICKS = 2 * 6 };

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

typedef struct handled {
    char what[8];
    int index, sent, at;
} handled;

/* Runs the receiver and two senders for FRAMES frames on `threads` threads with `delivery`; fills
 * `out` (in the order handled) and returns the count. */
static int run_with(uint32_t threads, ona_delivery delivery, handled *out, int max) {
    ona_runtime_desc desc = {.threads = threads, .delivery = delivery, .script_roots = roots};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    /* The receiver last: on one thread its turn follows the senders' in the same frame, where
     * a plain receive loop would see their messages a frame early. */
    spawn_lua(rt, "sender.lua", "sender1", none, "index=1", 0, 0);
    spawn_lua(rt, "sender.lua", "sender2", none, "index=2", 0, 0);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 0, 0);
    for (int f = 0; f < FRAMES; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(!captured_logs_contain("error") && !captured_logs_contain("unexpected"), "%s",
                  captured_logs_text());
    int n = 0;
    for (int i = 0; i + 3 < coll->count && n < max; i += 4, n++) {
        ck_assert_int_eq(coll->items[i].type, ONA_VALUE_STRING);
        snprintf(out[n].what, sizeof out[n].what, "%.7s", coll->items[i].text);
        out[n].index = (int)coll->items[i + 1].number;
        out[n].sent = (int)coll->items[i + 2].number;
        out[n].at = (int)coll->items[i + 3].number;
    }
    ck_assert_int_eq(coll->count, n * 4);
    collector_free();
    return n;
}

/* Copies the stamped messages of `all` into `ticks`; checks the unstamped ones. */
static int check(const handled *all, int n, handled *ticks) {
    int count = 0, now = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(all[i].what, "now") == 0) {
            now++;
            ck_assert_int_eq(all[i].sent, 3);
            ck_assert_msg(all[i].at == 3 || all[i].at == 4, "unstamped message handled at %d",
                          all[i].at);
            continue;
        }
        ck_assert_str_eq(all[i].what, "tick");
        ck_assert_msg(all[i].at == all[i].sent + 1, "sent in frame %d, handled in frame %d",
                      all[i].sent, all[i].at);
        ticks[count++] = all[i];
    }
    ck_assert_int_eq(now, 2);
    ck_assert_int_eq(count, TICKS);
    /* Frame by frame, sender 1's message before sender 2's (their spawn order). */
    for (int i = 0; i < count; i++) {
        ck_assert_int_eq(ticks[i].sent, 1 + i / 2);
        ck_assert_int_eq(ticks[i].index, 1 + i % 2);
    }
    return count;
}

static int run(uint32_t threads, handled *out, int max) {
    return run_with(threads, ONA_DELIVERY_ORDERED, out, max);
}

START_TEST(test_inbox_handles_a_frame_later_in_spawn_order) {
    handled all[64] = {0}, ticks[64] = {0};
    check(all, run(1, all, 64), ticks);
}
END_TEST

START_TEST(test_inbox_same_on_1_and_4_threads) {
    handled all[64] = {0}, one[64] = {0}, four[64] = {0};
    int n1 = check(all, run(1, all, 64), one);
    int n4 = check(all, run(4, all, 64), four);
    ck_assert_int_eq(n1, n4);
    ck_assert_mem_eq(one, four, sizeof one[0] * (size_t)n1);
}
END_TEST

/* The module is kept for games run with immediate delivery: there it handles the same messages
 * in the same frames and order as under ordered delivery, on 1 and 4 threads. */
START_TEST(test_inbox_same_under_immediate_delivery) {
    handled all[64] = {0}, ordered[64] = {0}, one[64] = {0}, four[64] = {0};
    int n = check(all, run(1, all, 64), ordered);
    ck_assert_int_eq(check(all, run_with(1, ONA_DELIVERY_IMMEDIATE, all, 64), one), n);
    ck_assert_int_eq(check(all, run_with(4, ONA_DELIVERY_IMMEDIATE, all, 64), four), n);
    ck_assert_mem_eq(ordered, one, sizeof one[0] * (size_t)n);
    ck_assert_mem_eq(ordered, four, sizeof four[0] * (size_t)n);
}
END_TEST

static Suite *inbox_suite(void) {
    Suite *s = suite_create("inbox");
    TCase *tc = tcase_create("inbox");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_inbox_handles_a_frame_later_in_spawn_order);
    tcase_add_test(tc, test_inbox_same_on_1_and_4_threads);
    tcase_add_test(tc, test_inbox_same_under_immediate_delivery);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(inbox_suite());
}
