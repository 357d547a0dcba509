/*
 * test_budget.c: the turn budget (runtime/watchdog.c, bindings/lua_watchdog.c), through the
 * public API and the scripts in tests/lua/budget/: a Lua system that runs past its budget in
 * process, init, its chunk, exit or a reload hook is interrupted with "runaway <what>: N ms [in
 * <callback>] at <file>:<line>", its policy applies and the other systems keep running; a pcall
 * cannot swallow the interrupt; budget 0 (spawn option, spawn desc, runtime desc) is off; a native
 * system past its budget is named. With the bundled LuaJIT (built with LUAJIT_ENABLE_CHECKHOOK)
 * a loop the JIT compiled, `while true do end` included, is interrupted like any other; with the
 * system's (-DONA_LUAJIT=system) it is named, and interrupted as soon as it leaves compiled code.
 *
 * Design note. Reproducers: /work/shared/repro/games/infloop, infloop_nojit and infloop_pcall.
 * Most loops run with the JIT off, so they test the hook in the interpreter with either LuaJIT.
 * The JIT-compiled cases depend on the build (ONA_LUAJIT_CHECKHOOK, from cmake/luajit.cmake):
 * with CHECKHOOK, jit_forever.lua's compiled `while true do end` must be interrupted (without
 * CHECKHOOK that test could never end, so it is built only with it); without, jit_spin.lua's
 * compiled loop ends by itself after a wall-clock time and must have been named while it ran.
 * The budget is 100 ms so a runaway costs one slow frame; nothing
 * here asserts on how long anything took. Cases whose outcome could depend on the thread count run
 * with 1 and 2 threads.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/budget", NULL};

enum { BUDGET_MS = 100 };

static ona_runtime *make_runtime_with(ona_runtime_desc desc) {
    desc.script_roots = roots;
    desc.video = ONA_VIDEO_NONE;
    if (!desc.turn_budget_ms)
        desc.turn_budget_ms = BUDGET_MS;
    ona_runtime *rt = NULL;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "create: %s; log:\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

static ona_runtime *make_runtime(uint32_t threads) {
    return make_runtime_with((ona_runtime_desc){.threads = threads});
}

static void step(ona_runtime *rt, int frames) {
    for (int i = 0; i < frames; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

/* The number value of the `nth` (from 0) item following the string `tag`, or -1. */
static double tag_value(const char *tag, int nth) {
    for (int i = 0; i + 1 < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0 &&
            nth-- == 0)
            return coll->items[i + 1].type == ONA_VALUE_NUMBER ? coll->items[i + 1].number : -1;
    return -1;
}

static int tag_count(const char *tag) {
    int n = 0;
    for (int i = 0; i < coll->count; i++)
        n += coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0;
    return n;
}

/* The text of the item following the first string `tag`, or NULL. */
static const char *tag_text(const char *tag) {
    for (int i = 0; i + 1 < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return coll->items[i + 1].type == ONA_VALUE_STRING ? coll->items[i + 1].text : "";
    return NULL;
}

/* The collector takes a message in its own turn: what was sent after that turn arrives next
 * frame. So after N frames it holds the reports of frames 1..N-1 at least. */
static void alive_through(int frame) {
    ck_assert_msg(tag_count("alive") >= frame, "alive %d times; log:\n%s", tag_count("alive"),
                  captured_logs_text());
    for (int f = 1; f <= frame; f++)
        ck_assert_msg((int)tag_value("alive", f - 1) == f, "alive report %d is frame %d", f,
                      (int)tag_value("alive", f - 1));
}

static ona_system_status status_of(ona_runtime *rt, ona_system h) {
    ona_system_stats st;
    if (ona_runtime_system_stats(rt, h, &st) != 0)
        return ONA_SYSTEM_STOPPED; /* ended: its handle went stale */
    return st.status;
}

/* Steps until `h` has ended (its runaway turn interrupted under the stop policy), at most 600
 * frames, and returns the frames stepped: a runaway turn steps aside after each slice and is
 * continued in the next frame (lua_watchdog.h) until its budget runs out. */
static int step_until_stopped(ona_runtime *rt, ona_system h) {
    int frames = 0;
    for (; frames < 20000 && status_of(rt, h) != ONA_SYSTEM_STOPPED; frames++)
        step(rt, 1);
    ck_assert_msg(status_of(rt, h) == ONA_SYSTEM_STOPPED, "not stopped after %d frames; log:\n%s",
                  frames, captured_logs_text());
    return frames;
}

/* Steps until the log holds `text` `count` times, at most 600 frames. */
static void step_until_logged(ona_runtime *rt, const char *text, int count) {
    for (int i = 0; i < 600 && captured_logs_count(text) < count; i++)
        step(rt, 1);
    ck_assert_msg(captured_logs_count(text) >= count, "'%s' %d times; log:\n%s", text,
                  captured_logs_count(text), captured_logs_text());
}

/* A spinner (mode "loop" or "pcall", from turn 3, policy stop) beside a system that reports
 * every turn: the spinner fails with the budget's message naming process and the loop's line, it
 * stops, and the other system gets turns in every frame after. */
static void spin_case(uint32_t threads, const char *mode, const char *at) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "at=3 mode=%s", mode);
    ona_system spinner = spawn_lua(rt, "spin.lua", "spinner", report, pairs, 0, ONA_POLICY_STOP);
    int frames = step_until_stopped(rt, spinner) + 3;
    step(rt, 3);
    ck_assert_msg(tag_count("spinning") == 1, "log:\n%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("spinner: runaway turn: "), "log:\n%s",
                  captured_logs_text());
    char where[64];
    snprintf(where, sizeof where, " ms in process at %s", at);
    ck_assert_msg(captured_logs_contain(where), "wanted '%s'; log:\n%s", where,
                  captured_logs_text());
    ck_assert_msg(captured_logs_contain("stack traceback"), "log:\n%s", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("runaway turn"), 1);
    ck_assert_int_eq(status_of(rt, spinner), ONA_SYSTEM_STOPPED);
    /* alive ran in every frame, those the spinner spun through included. */
    alive_through(frames - 1);
    ona_runtime_destroy(rt);
}

START_TEST(test_budget_process_interrupted) {
    spin_case(1 + (uint32_t)_i, "loop", "spin.lua:16");
}
END_TEST

START_TEST(test_budget_pcall_cannot_swallow) {
    spin_case(1 + (uint32_t)_i, "pcall", "spin.lua:13");
}
END_TEST

/* With the restart policy the spinner comes back with a fresh state (its turns count from 1
 * again) and is interrupted again. */
START_TEST(test_budget_restart_policy) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    ona_system spinner =
        spawn_lua(rt, "spin.lua", "spinner", report, "at=2 mode=loop", 0, ONA_POLICY_RESTART);
    step_until_logged(rt, "spinner: runaway turn: ", 2);
    step(rt, 2);
    ck_assert_msg(tag_count("spinning") >= 2, "log:\n%s", captured_logs_text());
    ck_assert_int_eq((int)tag_value("turn", 0), 1);
    ck_assert_int_eq((int)tag_value("turn", 2), 1);
    ck_assert_msg(captured_logs_count("spinner: runaway turn: ") >= 2, "log:\n%s",
                  captured_logs_text());
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, spinner, &st), 0);
    ck_assert_uint_ge(st.restarts, 1);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_budget_init_interrupted) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    ona_system h = spawn_lua(rt, "init_spin.lua", "looper", report, "", 0, ONA_POLICY_STOP);
    int frames = step_until_stopped(rt, h);
    ck_assert_msg(captured_logs_contain("looper: runaway turn: "), "log:\n%s",
                  captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms in init at init_spin.lua:6"), "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_STOPPED);
    alive_through(frames - 1);
    ona_runtime_destroy(rt);
}
END_TEST

/* A script whose chunk never ends (a main.lua stuck before it spawned anything): the spawn
 * fails with the budget's message and the runtime goes on. */
START_TEST(test_budget_chunk_interrupted) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    ona_spawn_desc d = {.script = "chunk_spin.lua", .name = "main"};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), ONA_ESCRIPT);
    ck_assert_msg(captured_logs_contain("runaway chunk: "), "log:\n%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms at chunk_spin.lua:4"), "log:\n%s",
                  captured_logs_text());
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    step(rt, 3);
    alive_through(2);
    ona_runtime_destroy(rt);
}
END_TEST

/* ona.spawn of a script whose chunk never ends, inside a turn: the child's chunk is interrupted,
 * the spawn returns nil and the reason, and the spawning turn, paused meanwhile, goes on. */
START_TEST(test_budget_nested_chunk) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    ona_system h = spawn_lua(rt, "spawner.lua", "spawner", report, "script=chunk_spin.lua", 0,
                             ONA_POLICY_STOP);
    step(rt, 4);
    const char *why = tag_text("spawned");
    ck_assert_msg(why && strstr(why, "runaway chunk: ") && strstr(why, "chunk_spin.lua:4"),
                  "spawned: %s; log:\n%s", why ? why : "(nothing)", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("runaway turn"), 0);
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_RUNNING);
    ck_assert_int_ge(tag_count("spawner"), 2);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_budget_exit_interrupted) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    ona_system h = spawn_lua(rt, "exit_spin.lua", "quitter", report, "", 0, 0);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_kill(rt, h), 0);
    step(rt, 2);
    ck_assert_msg(captured_logs_contain("quitter: exit: runaway exit: "), "log:\n%s",
                  captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms at exit_spin.lua:7"), "log:\n%s",
                  captured_logs_text());
    alive_through(2);
    ona_runtime_destroy(rt);
}
END_TEST

/* A reload whose hook never returns: the reload fails, the old code keeps running. */
START_TEST(test_budget_reload_interrupted) {
    ona_runtime *rt =
        make_runtime_with((ona_runtime_desc){.threads = 1 + (uint32_t)_i, .hot_reload = true});
    ona_system report = spawn_collector(rt);
    ona_system h = spawn_lua(rt, "reload_spin.lua", "reloader", report, "", 0, 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_reload(rt, "reload_spin.lua"), 0);
    step(rt, 3);
    ck_assert_msg(captured_logs_contain("reloader: reload of "), "log:\n%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("runaway reload: "), "log:\n%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms at reload_spin.lua:8"), "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_RUNNING);
    alive_through(3);
    ona_runtime_destroy(rt);
}
END_TEST

/* slow.lua runs 3 budgets without yielding: interrupted under the budget (the control), done
 * with the budget off in each of the three ways to turn it off. */
START_TEST(test_budget_off) {
    char pairs[64];
    snprintf(pairs, sizeof pairs, "ms=%d", 3 * BUDGET_MS);
    for (int way = 0; way < 4; way++) {
        capture_logs_end();
        capture_logs_begin();
        ona_runtime_desc rd = {.threads = 1 + (uint32_t)_i};
        if (way == 1)
            rd.turn_budget_ms = ONA_BUDGET_OFF;
        ona_runtime *rt = make_runtime_with(rd);
        ona_system report = spawn_collector(rt);
        if (way == 2) { /* ona.spawn(..., {budget = 0}) */
            char spawner[128];
            snprintf(spawner, sizeof spawner, "script=slow.lua budget=0 %s", pairs);
            spawn_lua(rt, "spawner.lua", "spawner", report, spawner, 0, 0);
        } else {
            ona_message args = make_args(report, pairs);
            ona_spawn_desc d = {.script = "slow.lua", .args = &args, .policy = ONA_POLICY_STOP};
            if (way == 3)
                d.budget_ms = ONA_BUDGET_OFF;
            ona_system h;
            ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
        }
        if (way == 0)
            step_until_logged(rt, "slow: runaway turn: ", 1);
        step(rt, 3);
        if (way == 0) {
            ck_assert_msg(captured_logs_contain("slow: runaway turn: "), "log:\n%s",
                          captured_logs_text());
            ck_assert_int_eq(tag_count("done"), 0);
        } else {
            ck_assert_msg(!captured_logs_contain("runaway"), "way %d; log:\n%s", way,
                          captured_logs_text());
            ck_assert_msg(tag_count("done") == 1, "way %d; log:\n%s", way, captured_logs_text());
        }
        ona_runtime_destroy(rt);
        collector_free();
    }
}
END_TEST

/* A loop the JIT compiled. With CHECKHOOK the trace checks the hook: the loop is interrupted
 * inside compiled code, before it would end by itself (12 budgets), and nothing says it cannot
 * be (it may still be named as "not interrupted yet" on a slow machine: that is a time). Without
 * (Debian's LuaJIT) the watchdog names it while it runs, and once the loop leaves compiled code
 * (here it ends by itself) the armed hook fires and the turn fails. */
START_TEST(test_budget_jit_loop_named) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    char pairs[32];
    snprintf(pairs, sizeof pairs, "ms=%d", 12 * BUDGET_MS);
    ona_system h = spawn_lua(rt, "jit_spin.lua", "jitter", report, pairs, 0, ONA_POLICY_STOP);
    step_until_stopped(rt, h);
    ck_assert_msg(captured_logs_contain("jitter: runaway turn: "), "log:\n%s",
                  captured_logs_text());
#if ONA_LUAJIT_CHECKHOOK
    ck_assert_msg(!captured_logs_contain("cannot be interrupted"), "log:\n%s",
                  captured_logs_text());
#else
    ck_assert_msg(captured_logs_contain(
                      "ms in jit_spin.lua, cannot be interrupted (LuaJIT without CHECKHOOK"),
                  "log:\n%s", captured_logs_text());
#endif
    ck_assert_msg(captured_logs_contain(" ms in process at jit_spin.lua:"), "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(tag_count("done"), 0);
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_STOPPED);
    ona_runtime_destroy(rt);
}
END_TEST

#if ONA_LUAJIT_CHECKHOOK
/* `while true do end`, compiled (the JIT is on): interrupted by the budget, the policy (stop)
 * applies, and the system beside it keeps getting turns. */
START_TEST(test_budget_jit_forever_interrupted) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    ona_system h = spawn_lua(rt, "jit_forever.lua", "forever", report, "at=3", 0, ONA_POLICY_STOP);
    int frames = step_until_stopped(rt, h) + 2;
    step(rt, 2);
    ck_assert_msg(tag_count("spinning") == 1, "log:\n%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("forever: runaway turn: "), "log:\n%s",
                  captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms in process at jit_forever.lua:11"), "log:\n%s",
                  captured_logs_text());
    ck_assert_msg(!captured_logs_contain("cannot be interrupted"), "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_STOPPED);
    alive_through(frames - 1);
    ona_runtime_destroy(rt);
}
END_TEST
#endif

/* A pairs() loop the JIT compiled ends (with CHECKHOOK it needs
 * cmake/luajit-checkhook-itern.patch): the sum arrives and nothing ran past its budget. */
START_TEST(test_budget_jit_pairs_ends) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "jit_pairs.lua", "pairs", report, "", 0, ONA_POLICY_STOP);
    step(rt, 3);
    ck_assert_msg(!captured_logs_contain("runaway"), "log:\n%s", captured_logs_text());
    ck_assert_msg(tag_value("done", 0) == 1000.0 * 64 * 65 / 2, "log:\n%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* A native turn cannot be interrupted: the watchdog names it while it is past its budget. */
static int sleepy_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx, (void)dt;
    int *turns = state;
    if ((*turns)++ == 0)
        usleep(8 * BUDGET_MS * 1000);
    return 0;
}

START_TEST(test_budget_native_named) {
    ona_runtime *rt = make_runtime(1 + (uint32_t)_i);
    ona_system_desc d = {.name = "sleepy", .size = sizeof(int), .process = sleepy_process};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
    step(rt, 2);
    ck_assert_msg(captured_logs_contain("sleepy: runaway turn: "), "log:\n%s",
                  captured_logs_text());
    ck_assert_msg(captured_logs_contain("ms in native code, cannot be interrupted"), "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(status_of(rt, h), ONA_SYSTEM_RUNNING);
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *budget_suite(void) {
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_budget_process_interrupted, 0, 2);
    tcase_add_loop_test(tc, test_budget_pcall_cannot_swallow, 0, 2);
    tcase_add_loop_test(tc, test_budget_restart_policy, 0, 2);
    tcase_add_loop_test(tc, test_budget_init_interrupted, 0, 2);
    tcase_add_loop_test(tc, test_budget_chunk_interrupted, 0, 2);
    tcase_add_loop_test(tc, test_budget_nested_chunk, 0, 2);
    tcase_add_loop_test(tc, test_budget_exit_interrupted, 0, 2);
    tcase_add_loop_test(tc, test_budget_reload_interrupted, 0, 2);
    tcase_add_loop_test(tc, test_budget_off, 0, 2);
    tcase_add_loop_test(tc, test_budget_native_named, 0, 2);
    tcase_add_loop_test(tc, test_budget_jit_loop_named, 0, 2);
    tcase_add_loop_test(tc, test_budget_jit_pairs_ends, 0, 2);
#if ONA_LUAJIT_CHECKHOOK
    tcase_add_loop_test(tc, test_budget_jit_forever_interrupted, 0, 2);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(budget_suite());
}
