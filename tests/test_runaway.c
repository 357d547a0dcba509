/*
 * test_runaway.c: a runaway turn leaves the frame (bindings/lua_watchdog.c's slice): with real
 * files, hot reload on and a headless runtime, a system stuck in a loop beside three that run
 * every turn at a fixed dt.
 *
 * The three get a turn in every frame while the stuck turn runs, on 1 thread as on 3, and the
 * stuck system gets no new turn meanwhile (it misses those frames); its budget running out
 * interrupts it, naming the loop's file:line, and pauses it; saving a fix resumes it, running
 * its failed turn again with its state kept. Counts of frames and turns, never a duration: under
 * a 3 s budget the turn steps aside after its share (750 ms and 10 ms of CPU) and then runs
 * 10 ms a frame, so a frame that waited for the stuck turn would see it fail in the frame where
 * it began.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("runaway");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static const char *TICKER = "return {\n"
                            "  init = function(state, args) state.report = args.report end,\n"
                            "  process = function(state) end,\n"
                            "}\n";

/* Turn 3 spins: in a plain loop (line 12), in one that catches every error (line 8), inside a
 * coroutine.wrap (line 9), or inside a coroutine.resume'd coroutine that yielded of its own
 * accord first (lines 10-11: its own yield and resume still carry their values). */
static const char *SPINNER =
    "return {\n"
    "  init = function(state, args) state.args = args; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    if state.n == 3 then\n"
    "      ona.send(state.args.report, 'spinning', state.n)\n"
    "      local x, r = 0, state.args.report\n"
    "      if state.args.mode == 'pcall' then while true do pcall(error, 'x') end end\n"
    "      if state.args.mode == 'wrap' then coroutine.wrap(function() while true do x = x + 1 end "
    "end)() end\n"
    "      local co = coroutine.create(function(a) ona.send(r, 'got', a, coroutine.yield('one')); "
    "while true do x = x + 1 end end)\n"
    "      if state.args.mode == 'resume' then ona.send(r, 'first', select(2, coroutine.resume(co, "
    "'a'))); coroutine.resume(co, 'b') end\n"
    "      while true do x = x + 1 end\n"
    "    end\n"
    "  end,\n"
    "}\n";

static const char *SPINNER_FIXED =
    "return {\n"
    "  init = function(state, args) state.args = args; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    ona.send(state.args.report, 'fixed', state.n)\n"
    "  end,\n"
    "}\n";

static ona_system_stats stats_of(ona_runtime *rt, ona_system h) {
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), 0);
    return st;
}

static int count_tagged(const char *tag) {
    int n = 0;
    for (int i = 0; i < coll->count; i++)
        n += coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0;
    return n;
}

static void runaway_case(uint32_t threads, const char *mode, const char *at) {
    game_write("ticker.lua", TICKER);
    game_write("spinner.lua", SPINNER);
    const char *roots[] = {game_dir(), NULL};
    /* A 3 s budget: the stuck turn steps aside after 750 ms (and 10 ms of its thread's CPU) and
     * is interrupted at 3 s, a margin a loaded machine's watchdog and scheduler keep. */
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .hot_reload = true,
                             .video = ONA_VIDEO_NONE,
                             .turn_budget_ms = 3000};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    ona_system tickers[3];
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "ticker%d", i);
        tickers[i] = spawn_lua(rt, "ticker.lua", name, report, "", 0, 0);
    }
    char pairs[32];
    snprintf(pairs, sizeof pairs, "mode=%s", mode);
    ona_system spinner = spawn_lua(rt, "spinner.lua", "spinner", report, pairs, 0, 0);
    /* Frame 3 is the spinner's third turn: it spins from there. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    uint64_t before[3];
    for (int i = 0; i < 3; i++)
        before[i] = stats_of(rt, tickers[i]).turns;
    ck_assert_uint_eq(stats_of(rt, spinner).turns, 2);
    /* Until its budget runs out, frame after frame: the tickers get their turn in each, the
     * spinner gets none. */
    /* How many frames pass before the budget (wall time) runs out depends on the machine: the
     * bound only stops a runaway that is never interrupted. */
    int frames = 0;
    while (frames < 20000 && !captured_logs_contain("spinner paused: ")) {
        /* No new turn: 2 while the third is stuck, 3 once its interrupt ended it (the pause's
         * line, logged by main after a frame's turns, may come a frame later). */
        ck_assert_int_le(stats_of(rt, spinner).turns, 3);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        frames++;
        for (int i = 0; i < 3; i++)
            ck_assert_uint_eq(stats_of(rt, tickers[i]).turns, before[i] + (uint64_t)frames);
    }
    ck_assert_msg(captured_logs_contain("spinner paused: "), "log:\n%s", captured_logs_text());
    ck_assert_msg(frames >= 2, "the stuck turn failed in the frame it began; log:\n%s",
                  captured_logs_text());
    char where[64];
    snprintf(where, sizeof where, " ms in process at %s", at);
    ck_assert_msg(captured_logs_contain("spinner: runaway turn: ") && captured_logs_contain(where),
                  "wanted '%s'; log:\n%s", where, captured_logs_text());
    /* Interrupted once (a busy machine may also have it named as not interrupted yet). */
    ck_assert_int_eq(captured_logs_count("spinner: runaway turn: ") -
                         captured_logs_count("not interrupted yet"),
                     1);
    ck_assert_int_eq(count_tagged("spinning"), 1);
    ona_runtime_step(rt, 1.0 / 60);
    ck_assert_int_eq(stats_of(rt, spinner).status, ONA_SYSTEM_PAUSED);
    /* The fix resumes it: its third turn runs again, in the new code. */
    game_write("spinner.lua", SPINNER_FIXED);
    for (int i = 0; i < 300 && count_tagged("fixed") == 0; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(count_tagged("fixed") >= 1, "log:\n%s", captured_logs_text());
    /* The state was kept: the failed turn had counted its third. */
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "fixed") == 0) {
            ck_assert_int_eq((int)coll->items[i + 1].number, 4);
            break;
        }
    ck_assert_int_eq(stats_of(rt, spinner).status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_eq(stats_of(rt, spinner).errors, 1);
    ona_runtime_destroy(rt);
}

START_TEST(test_runaway_leaves_the_frame) {
    runaway_case(_i == 0 ? 1 : 3, "loop", "spinner.lua:12");
}
END_TEST

START_TEST(test_runaway_in_a_wrapped_coroutine_leaves_the_frame) {
    runaway_case(_i == 0 ? 1 : 3, "wrap", "spinner.lua:9");
}
END_TEST

START_TEST(test_runaway_in_a_resumed_coroutine_leaves_the_frame) {
    runaway_case(_i == 0 ? 1 : 3, "resume", "spinner.lua:10");
    /* The coroutine's own yield and resume carried their values across the slices. */
    ck_assert_int_eq(count_tagged("first"), 1);
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "first") == 0)
            ck_assert_str_eq(coll->items[i + 1].text, "one");
    ck_assert_int_eq(count_tagged("got"), 1);
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "got") == 0) {
            ck_assert_str_eq(coll->items[i + 1].text, "a");
            ck_assert_str_eq(coll->items[i + 2].text, "b");
        }
}
END_TEST

START_TEST(test_runaway_under_pcall_leaves_the_frame) {
    runaway_case(_i == 0 ? 1 : 3, "pcall", "spinner.lua:8");
}
END_TEST

int main(void) {
    Suite *s = suite_create("runaway");
    TCase *tc = tcase_create("runaway");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_runaway_leaves_the_frame, 0, 2);
    tcase_add_loop_test(tc, test_runaway_under_pcall_leaves_the_frame, 0, 2);
    tcase_add_loop_test(tc, test_runaway_in_a_wrapped_coroutine_leaves_the_frame, 0, 2);
    tcase_add_loop_test(tc, test_runaway_in_a_resumed_coroutine_leaves_the_frame, 0, 2);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
