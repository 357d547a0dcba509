/*
 * test_errors_lua.c: errors point at the author's line. Each public function
 * of `ona`, `ona.gfx` and `ona.input` misused in a Lua system fails that system with
 * "<file>:<line>: <public name>: <message>", the line being the script's own (also through a
 * pcall, a coroutine of the script's, and a send resumed after it waited), and its log names
 * nothing of the prelude or of the raw functions it wraps; error values that are not strings
 * are described (their __tostring, run under the turn budget, or their type); systems that have
 * stopped or ended are named, not numbered; a send from a __gc finalizer is refused. The Lua side
 * is in tests/lua/errors/: each case is on a line marked "[case]", which this file looks up, so the
 * scripts can change freely.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

static ona_runtime *make_runtime(uint32_t budget_ms) {
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .turn_budget_ms = budget_ms};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    return rt;
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
}

static int occurrences(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The captured log has "<script's file name>:<marked line>: <expect>" (the error's first line)
 * and, when `traced`, that position once more in its traceback; nothing names the prelude or a
 * raw function. */
static void assert_reported(const char *script, const char *mark, const char *expect, bool traced) {
    const char *file = strrchr(script, '/') ? strrchr(script, '/') + 1 : script;
    char at[128], needle[512];
    snprintf(at, sizeof at, "%s:%d:", file, lua_marked_line(script, mark));
    snprintf(needle, sizeof needle, "%s %s", at, expect);
    const char *log = captured_logs_text();
    ck_assert_msg(captured_logs_contain(needle), "[%s] expected \"%s\" in the log:\n%s", mark,
                  needle, log);
    if (traced) {
        ck_assert_msg(captured_logs_contain("stack traceback:"), "[%s] no traceback:\n%s", mark,
                      log);
        ck_assert_msg(occurrences(log, at) >= 2, "[%s] the traceback does not show %s:\n%s", mark,
                      at, log);
    }
    ck_assert_msg(!captured_logs_contain("prelude"), "[%s] the log names the prelude:\n%s", mark,
                  log);
    ck_assert_msg(!captured_logs_contain("_raw"), "[%s] the log names a raw function:\n%s", mark,
                  log);
}

/* The system `name` (policy stop) failed: it stopped, once. */
static void assert_stopped(const char *name) {
    char needle[128];
    snprintf(needle, sizeof needle, "%s: stopped (its policy is stop)", name);
    ck_assert_msg(captured_logs_count(needle) == 1, "%s did not stop once:\n%s", name,
                  captured_logs_text());
}

/* Spawns misuse.lua (policy stop) running `mark` with `pairs` added to its args. */
static ona_system spawn_misuse(ona_runtime *rt, const char *mark, const char *pairs) {
    char args[256];
    snprintf(args, sizeof args, "case=%s%s%s", mark, pairs ? " " : "", pairs ? pairs : "");
    ona_system none = {0};
    return spawn_lua(rt, "errors/misuse.lua", "misuse", none, args, 0, ONA_POLICY_STOP);
}

/* --- Each public function misused ------------------------------------------------------------ */

typedef struct misuse_case {
    const char *mark;
    const char *expect; /* what follows "misuse.lua:<line>: " */
} misuse_case;

static const misuse_case cases[] = {
    {"send_handle", "ona.send: bad argument #1 (not a system handle: got string)"},
    {"send_nil", "ona.send: bad argument #1 (not a system handle: got nil)"},
    {"send_fraction", "ona.send: bad argument #1 (not a system handle: 1.5)"},
    {"send_value", "ona.send: msg.f is a function"},
    {"send_pcall", "ona.send: bad argument #1 (not a system handle: got table)"},
    {"send_coroutine", "ona.send: bad argument #1 (not a system handle: got nil)"},
    {"try_send_handle", "ona.try_send: bad argument #1 (not a system handle: got boolean)"},
    {"try_send_value", "ona.try_send: msg is a thread"},
    {"spawn_script", "ona.spawn: bad argument #1 (string expected, got table)"},
    {"spawn_opts", "ona.spawn: bad argument #3 (table expected, got number)"},
    {"spawn_policy", "ona.spawn: bad argument #3 (opts.policy must be \"restart\" or \"stop\")"},
    {"spawn_args", "ona.spawn: bad argument #2 (msg[1] is a function"},
    {"kill_handle", "ona.kill: bad argument #1 (not a system handle: -3)"},
    {"lookup_name", "ona.lookup: bad argument #1 (string expected, got no value)"},
    {"name_handle", "ona.name: bad argument #1 (not a system handle: 0)"},
    {"log_level", "ona.log: bad argument #1 (level must be \"debug\", \"info\", \"warn\" or "
                  "\"error\")"},
    {"texture", "ona.gfx.texture: bad argument #1 (string expected, got no value)"},
    {"texture_size", "ona.gfx.texture_size: bad argument #1 (not a texture handle: got string)"},
    {"draw", "ona.gfx.draw: bad argument #2 (number expected, got string)"},
    {"draw_opts", "ona.gfx.draw: bad argument #4 (opts.scale must be a number)"},
    {"draw_tint", "ona.gfx.draw: bad argument #4 (tint must be 0xRRGGBBAA or {r, g, b, a})"},
    {"draw_sprites", "ona.gfx.draw_sprites: bad argument #2 (an ona.buffer of ona_sprite "
                     "expected)"},
    {"sprites", "ona.gfx.sprites: bad argument #1 (a count of sprites expected, got -1)"},
    {"sprites_big", "ona.gfx.sprites: bad argument #1 (count is too large"},
    {"text", "ona.gfx.text: bad argument #3 (string expected, got no value)"},
    {"camera", "ona.gfx.camera: bad argument #3 (zoom must be > 0)"},
    {"clear", "ona.gfx.clear: bad argument #1 (number expected, got no value)"},
    {"screenshot", "ona.gfx.screenshot: bad argument #1 (string expected, got no value)"},
    {"window", "ona.gfx.window: bad argument #1 (table expected, got string)"},
    {"window_zero", "ona.gfx.window: bad argument #1 (width and height must both be whole numbers "
                    "from 16 to 16384)"},
    {"buffer_count", "ona.buffer: bad argument #2 (count is too large (a buffer holds at most"},
    {"buffer_type", "ona.buffer: bad argument #1 (unknown C type 'no_such_type_t')"},
    {"buffer_freed", "buffer:ptr: bad argument #1 (buffer was moved by ona.send or freed)"},
    {"buffer_self", "buffer:count: bad argument #1 (an ona.Buffer expected (call it as "
                    "buf:count()), got number)"},
    {"circle_radius", "ona.gfx.circle: bad argument #3 (radius must be a number from 0 to 1e7)"},
    {"line_width", "ona.gfx.line: bad argument #5 (opts.width must be a number > 0 and at most "
                   "1e6)"},
    {"key_down", "ona.input.key_down: bad argument #1 (unknown key name"},
    {"key_down_type", "ona.input.key_down: bad argument #1 (string expected, got table)"},
};

START_TEST(test_errors_misuse_names_line_and_function) {
    const misuse_case *c = &cases[_i];
    ona_runtime *rt = make_runtime(0);
    spawn_misuse(rt, c->mark, NULL);
    step(rt, 2);
    assert_reported("errors/misuse.lua", c->mark, c->expect, true);
    assert_stopped("misuse");
    ona_runtime_destroy(rt);
}
END_TEST

/* In the script's main chunk the spawn fails, and says where. */
START_TEST(test_errors_misuse_in_main_chunk) {
    ona_runtime *rt = make_runtime(0);
    ona_message args = make_args((ona_system){0}, "case=draw_chunk chunk=true");
    ona_spawn_desc d = {.script = "errors/misuse.lua", .name = "misuse", .args = &args};
    ona_system h;
    ck_assert_int_ne(ona_runtime_spawn(rt, &d, &h), 0);
    assert_reported("errors/misuse.lua", "draw_chunk",
                    "ona.gfx.draw: can only draw during a turn (init or process), not in the main "
                    "chunk",
                    false);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Receiving a message that cannot be decoded ---------------------------------------------- */

/* More top-level values than a Lua stack holds (LuaJIT: 8000): the receive fails. */
static void send_too_many_values(ona_runtime *rt, ona_system to) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    for (int i = 0; i < 10000; i++)
        ck_assert_int_eq(ona_message_write_number(&w, i), 0);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_send(rt, to, &m), 0);
}

START_TEST(test_errors_receive_names_line_and_function) {
    static const misuse_case receives[] = {
        {"receive_big", "ona.receive: misuse received a malformed message: message has too many "
                        "values (10000)"},
        {"messages_big", "ona.receive: misuse received a malformed message"},
        {"try_receive_big", "ona.try_receive: misuse received a malformed message"},
    };
    for (size_t i = 0; i < sizeof receives / sizeof receives[0]; i++) {
        capture_logs_begin();
        ona_runtime *rt = make_runtime(0);
        ona_system h = spawn_misuse(rt, receives[i].mark, NULL);
        send_too_many_values(rt, h);
        step(rt, 2);
        assert_reported("errors/misuse.lua", receives[i].mark, receives[i].expect, true);
        assert_stopped("misuse");
        ona_runtime_destroy(rt);
    }
}
END_TEST

/* --- Stopped and ended systems are named ----------------------------------------------------- */

static ona_system spawn_victim(ona_runtime *rt, uint32_t mailbox) {
    ona_system none = {0};
    return spawn_lua(rt, "lifecycle/idle.lua", "victim", none, "", mailbox, 0);
}

START_TEST(test_errors_send_to_ended_system_names_it) {
    ona_runtime *rt = make_runtime(0);
    ona_system victim = spawn_victim(rt, 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_kill(rt, victim), 0);
    step(rt, 1); /* it ends at this boundary: its handle is stale */
    char pairs[64];
    snprintf(pairs, sizeof pairs, "victim=%llu", (unsigned long long)victim.id);
    spawn_misuse(rt, "send_ended", pairs);
    step(rt, 2);
    assert_reported("errors/misuse.lua", "send_ended",
                    "ona.send: no such system: 'victim' has ended (its handle is stale)", true);
    assert_stopped("misuse");
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_errors_kill_of_ended_system_names_it) {
    ona_runtime *rt = make_runtime(0);
    ona_system victim = spawn_victim(rt, 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_kill(rt, victim), 0);
    step(rt, 1);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "victim=%llu", (unsigned long long)victim.id);
    spawn_misuse(rt, "kill_ended", pairs);
    step(rt, 2);
    assert_reported("errors/misuse.lua", "kill_ended",
                    "no such system: 'victim' has ended (its handle is stale)", true);
    ona_runtime_destroy(rt);
}
END_TEST

/* Killed in the same turn, before it ended: "being killed". */
START_TEST(test_errors_send_to_killed_system_names_it) {
    ona_runtime *rt = make_runtime(0);
    ona_system victim = spawn_victim(rt, 0);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "victim=%llu", (unsigned long long)victim.id);
    spawn_misuse(rt, "send_killed", pairs);
    step(rt, 2);
    assert_reported("errors/misuse.lua", "send_killed", "ona.send: system 'victim' is being killed",
                    true);
    assert_stopped("misuse");
    ona_runtime_destroy(rt);
}
END_TEST

/* A send that waited for room and failed when the receiver was killed: raised after the resume,
 * still at the author's line. */
START_TEST(test_errors_send_failed_after_waiting_names_line_and_receiver) {
    ona_runtime *rt = make_runtime(0);
    ona_system victim = spawn_victim(rt, 1);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "victim=%llu", (unsigned long long)victim.id);
    spawn_misuse(rt, "send_parked", pairs);
    step(rt, 2);
    ck_assert(!captured_logs_contain("misuse: stopped")); /* still waiting */
    ck_assert_int_eq(ona_runtime_kill(rt, victim), 0);
    step(rt, 2);
    assert_reported("errors/misuse.lua", "send_parked",
                    "ona.send: system 'victim' was killed while this one waited", true);
    assert_stopped("misuse");
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Error values that are not strings ------------------------------------------------------- */

typedef struct value_case {
    const char *mark;
    const char *expect; /* what follows "nonstring.lua:<line>: " */
} value_case;

static const value_case values[] = {
    {"table", "a table error value (no __tostring)"},
    {"nil", "a nil error value"},
    {"boolean", "a boolean error value (false)"},
    {"userdata", "a userdata error value (no __tostring)"},
    {"tostring", "custom error object"},
    {"tostring_raises", "a table error value (its __tostring raised: "},
    {"tostring_number", "a table error value (its __tostring returned a number)"},
    {"wrapped", "a table error value (no __tostring)"},
};

START_TEST(test_errors_non_string_values_are_described) {
    const value_case *c = &values[_i];
    ona_runtime *rt = make_runtime(0);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "kind=%s", c->mark);
    ona_system none = {0};
    spawn_lua(rt, "errors/nonstring.lua", "thrower", none, pairs, 0, ONA_POLICY_STOP);
    step(rt, 2);
    assert_reported("errors/nonstring.lua", c->mark, c->expect, true);
    ck_assert(!captured_logs_contain("error object is not a string"));
    assert_stopped("thrower");
    ona_runtime_destroy(rt);
}
END_TEST

/* Non-string values raised outside a turn: by a script's chunk (the spawn's reason) and by exit
 * (the log line). */
START_TEST(test_errors_non_string_values_in_chunk_and_exit) {
    ona_runtime *rt = make_runtime(0);
    ona_spawn_desc d = {.script = "errors/chunk_value.lua"};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), ONA_ESCRIPT);
    ck_assert_msg(captured_logs_contain("spawn: custom chunk error"), "%s", captured_logs_text());
    d.script = "errors/exit_value.lua";
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
    step(rt, 1);
    ck_assert_int_eq(ona_runtime_kill(rt, h), 0);
    step(rt, 1);
    ck_assert_msg(captured_logs_contain("exit_value: exit: custom exit error"), "%s",
                  captured_logs_text());
    ck_assert(!captured_logs_contain("error object is not a string"));
    ck_assert(!captured_logs_contain("(null)"));
    ona_runtime_destroy(rt);
}
END_TEST

/* The osexit reproducer: os.exit in one system ended the whole game. It now asks for an orderly
 * quit at the end of the frame, names the caller's line, and the turn goes on. */
START_TEST(test_errors_os_exit_quits_in_order) {
    ona_runtime *rt = make_runtime(0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "errors/os_exit.lua", "quitter", report, "", 0, 0);
    step(rt, 2);
    ck_assert(ona_runtime_quit_requested(rt));
    char want[160];
    snprintf(want, sizeof want, "os_exit.lua:%d: os.exit(3) ends no process here",
             lua_marked_line("errors/os_exit.lua", "os.exit"));
    ck_assert_msg(captured_logs_contain(want), "wanted '%s'; log:\n%s", want, captured_logs_text());
    ck_assert_msg(coll->count >= 1 && strcmp(coll->items[0].text, "after exit") == 0, "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();
}
END_TEST

/* A __tostring that reports its own position is not given a second one. */
START_TEST(test_errors_tostring_with_position_is_kept) {
    ona_runtime *rt = make_runtime(0);
    ona_system none = {0};
    spawn_lua(rt, "errors/nonstring.lua", "thrower", none, "kind=located", 0, ONA_POLICY_STOP);
    step(rt, 2);
    ck_assert_msg(captured_logs_contain("error: thrower: elsewhere.lua:7: located"), "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* A __tostring that never returns is the system's runaway: the turn budget interrupts it, and
 * the value is described with that. (The script turns the JIT off, so the hook can fire.) */
START_TEST(test_errors_runaway_tostring_is_interrupted) {
    ona_runtime *rt = make_runtime(100);
    ona_system none = {0};
    ona_system alive = spawn_lua(rt, "counter.lua", "alive", none, "", 0, 0);
    spawn_lua(rt, "errors/nonstring.lua", "thrower", none, "kind=runaway", 0, ONA_POLICY_STOP);
    step(rt, 3);
    assert_reported(
        "errors/nonstring.lua", "runaway",
        "a table error value (its __tostring raised: runaway __tostring of an error: ", true);
    assert_stopped("thrower");
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, alive, &st), 0);
    ck_assert_uint_eq(st.turns, 3);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Finalizers do not send ------------------------------------------------------------------ */

#ifndef ONA_LUAJIT_FIXED_SEED
#error "ONA_LUAJIT_FIXED_SEED is a compile definition of the build (cmake/luajit.cmake)"
#endif
#if ONA_LUAJIT_FIXED_SEED /* the bundled LuaJIT says when a finalizer runs; the system's cannot */
static const char FINALIZER_REFUSED[] =
    "refused in a __gc finalizer: finalizers run wherever the collector calls them (or when the "
    "system closes), not at a point of the game's order; send before the object is dropped";

/* Number of collected messages equal to `text` (as far as the collector keeps a text). */
static int collected_count(const char *text) {
    int n = 0;
    size_t keep = sizeof coll->items[0].text - 1;
    for (int i = 0; i < coll->count; i++)
        n += coll->items[i].type == ONA_VALUE_STRING &&
             strncmp(coll->items[i].text, text, keep) == 0;
    return n;
}

/* ona.try_send and ona.send (its FFI fast path too) raise in a finalizer, naming the line; at
 * the state's close, where LuaJIT swallows a finalizer's error, the refusal is logged; nothing
 * a finalizer tried to send arrives. */
START_TEST(test_errors_finalizer_send_is_refused) {
    ona_runtime *rt = make_runtime(0);
    ona_system report = spawn_collector(rt);
    ona_system sys =
        spawn_lua(rt, "errors/finalizer.lua", "finalizer", report, "", 0, ONA_POLICY_STOP);
    step(rt, 3);
    ck_assert_int_eq(coll->count, 2);
    static const struct {
        const char *mark, *fn;
    } sent[] = {{"try_send", "ona.try_send"}, {"fast", "ona.send"}};
    for (int i = 0; i < 2; i++) {
        char want[512];
        snprintf(want, sizeof want, "%s/tests/lua/errors/finalizer.lua:%d: %s: %s", ONA_SOURCE_DIR,
                 lua_marked_line("errors/finalizer.lua", sent[i].mark), sent[i].fn,
                 FINALIZER_REFUSED);
        ck_assert_msg(collected_count(want) == 1, "expected \"%s\" once; got \"%s\"", want,
                      coll->count > i ? coll->items[i].text : "");
    }
    ck_assert_int_eq(ona_runtime_kill(rt, sys), 0);
    step(rt, 2);
    char want[512];
    snprintf(want, sizeof want,
             "error: finalizer: %s/tests/lua/errors/finalizer.lua:%d: ona.send: %s", ONA_SOURCE_DIR,
             lua_marked_line("errors/finalizer.lua", "close"), FINALIZER_REFUSED);
    ck_assert_msg(captured_logs_contain(want), "expected \"%s\" in the log:\n%s", want,
                  captured_logs_text());
    ck_assert_int_eq(coll->count, 2);
    ona_runtime_destroy(rt);
    collector_free();
}
END_TEST

/* Unprotected, the refusal fails the system at the finalizer's line. */
START_TEST(test_errors_finalizer_send_fails_the_system) {
    ona_runtime *rt = make_runtime(0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "errors/finalizer.lua", "misuse", report, "raise=true", 0, ONA_POLICY_STOP);
    step(rt, 3);
    char expect[300];
    snprintf(expect, sizeof expect, "ona.send: %s", FINALIZER_REFUSED);
    assert_reported("errors/finalizer.lua", "raise", expect, false);
    assert_stopped("misuse");
    ck_assert_int_eq(collected_count("raised"), 0);
    ona_runtime_destroy(rt);
    collector_free();
}
END_TEST
#endif

int main(void) {
    Suite *s = suite_create("errors_lua");
    TCase *tc = tcase_create("misuse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_errors_misuse_names_line_and_function, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_errors_misuse_in_main_chunk);
    tcase_add_test(tc, test_errors_receive_names_line_and_function);
    suite_add_tcase(s, tc);
    TCase *named = tcase_create("named");
    tcase_add_checked_fixture(named, setup, teardown);
    tcase_add_test(named, test_errors_send_to_ended_system_names_it);
    tcase_add_test(named, test_errors_kill_of_ended_system_names_it);
    tcase_add_test(named, test_errors_send_to_killed_system_names_it);
    tcase_add_test(named, test_errors_send_failed_after_waiting_names_line_and_receiver);
#if ONA_LUAJIT_FIXED_SEED
    tcase_add_test(named, test_errors_finalizer_send_is_refused);
    tcase_add_test(named, test_errors_finalizer_send_fails_the_system);
#endif
    suite_add_tcase(s, named);
    TCase *values_tc = tcase_create("values");
    tcase_add_checked_fixture(values_tc, setup, teardown);
    tcase_add_loop_test(values_tc, test_errors_non_string_values_are_described, 0,
                        (int)(sizeof values / sizeof values[0]));
    tcase_add_test(values_tc, test_errors_tostring_with_position_is_kept);
    tcase_add_test(values_tc, test_errors_non_string_values_in_chunk_and_exit);
    tcase_add_test(values_tc, test_errors_os_exit_quits_in_order);
    tcase_add_test(values_tc, test_errors_runaway_tostring_is_interrupted);
    suite_add_tcase(s, values_tc);
    return run_suite(s);
}
