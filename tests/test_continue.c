/*
 * test_continue.c: edit and continue, and saves caught mid-write, with
 * real files in a temporary folder and a headless runtime.
 *
 * Edit and continue: while files are watched, a system whose turn raises is paused, not reset
 * (the log names the error's file:line), gets no turns, keeps what is sent to it (a sender that
 * fills its mailbox waits, with no deadlock reported), and saving a fix resumes it with its state
 * (a counter goes on; an init that raised runs again with its args; a turn that raised while
 * handling a message runs again with every message it had, in order, then what came since).
 * Without watching the restart policy applies as before.
 *
 * Saves caught mid-write: a module truncated and then written (one frame apart) is never loaded
 * empty; an empty module, or one that returns another type than before, is refused and the old
 * one kept with no system failing; creating a module that a require missed reloads the system
 * that wanted it.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("continue");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(bool watch) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .hot_reload = watch};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "%s\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

/* The last item tagged `tag` the collector got (the values sent with it follow it). */
static const item *last_tagged(const char *tag) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return &coll->items[i];
    return NULL;
}

static int count_tagged(const char *tag) {
    int n = 0;
    for (int i = 0; i < coll->count; i++)
        n += coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0;
    return n;
}

/* Steps frames until the collector has seen `tag` (file events arrive asynchronously). */
static void step_until(ona_runtime *rt, const char *tag) {
    for (int i = 0; i < 300 && !last_tagged(tag); i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(last_tagged(tag) != NULL, "never saw %s; log:\n%s", tag, captured_logs_text());
}

/* Steps frames until the log contains `text`. */
static void step_until_log(ona_runtime *rt, const char *text) {
    for (int i = 0; i < 300 && !captured_logs_contain(text); i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(captured_logs_contain(text), "never logged %s; log:\n%s", text,
                  captured_logs_text());
}

/* The F3 overlay's text (runtime/stats.c). */
size_t ona__runtime_overlay_text(void *user, double fps, uint32_t sprites, char *text, size_t size);

/* --- Edit and continue ----------------------------------------------------------------------- */

static const char *COUNTER_V1 =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    ona.send(state.report, 'v1', state.n)\n"
    "  end,\n"
    "}\n";

/* Line 5 indexes nil. */
static const char *COUNTER_BROKEN =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    local ball = nil\n"
    "    state.n = state.n + ball.speed\n"
    "  end,\n"
    "}\n";

static const char *COUNTER_V2 =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    ona.send(state.report, 'v2', state.n)\n"
    "  end,\n"
    "}\n";

START_TEST(test_error_pauses_and_fix_resumes_with_state) {
    game_write("counter.lua", COUNTER_V1);
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    for (int i = 0; i < 5; i++)
        ona_runtime_step(rt, 1.0 / 60);
    step_until(rt, "v1");
    game_write("counter.lua", COUNTER_BROKEN);
    step_until_log(rt, "counter paused: ");
    ck_assert_msg(captured_logs_contain("counter.lua:5: attempt to") &&
                      captured_logs_contain("; save a fix to resume"),
                  "%s", captured_logs_text());
    /* The pause is applied at the boundary after the failing frame. */
    ona_runtime_step(rt, 1.0 / 60);
    double before = last_tagged("v1")[1].number;
    int seen = coll->count;
    for (int i = 0; i < 10; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ona_system_stats st = named_stats(rt, "counter");
    ck_assert_int_eq(st.status, ONA_SYSTEM_PAUSED);
    ck_assert_uint_eq(st.errors, 1); /* no turns while paused: it failed once */
    ck_assert_uint_eq(st.restarts, 0);
    ck_assert_int_eq(coll->count, seen);
    ck_assert(!captured_logs_contain("restarting"));
    game_write("counter.lua", COUNTER_V2);
    step_until(rt, "v2");
    ck_assert(captured_logs_contain("counter resumed with its state kept"));
    /* The count goes on from the state the broken code left: it was not reset by init. */
    ck_assert_msg(last_tagged("v2")[1].number == before + 1, "%g after %g",
                  last_tagged("v2")[1].number, before);
    st = named_stats(rt, "counter");
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_eq(st.restarts, 0);
    ona_runtime_destroy(rt);
}
END_TEST

/* init raises until fixed; the fix's init runs with the spawn args. */
static const char *INIT_BROKEN =
    "return {\n"
    "  init = function(state, args) state.report = args.report; error('no init yet') end,\n"
    "  process = function(state) ona.send(state.report, 'process', state.inits or 0) end,\n"
    "}\n";
static const char *INIT_FIXED =
    "return {\n"
    "  init = function(state, args)\n"
    "    state.inits = (state.inits or 0) + 1\n"
    "    ona.send(args.report, 'init', args.x)\n"
    "  end,\n"
    "  process = function(state) ona.send(state.report, 'process', state.inits) end,\n"
    "}\n";

START_TEST(test_failed_init_runs_again_after_the_fix) {
    game_write("starter.lua", INIT_BROKEN);
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "starter.lua", "starter", report, "x=7", 0, 0);
    step_until_log(rt, "starter paused: ");
    ck_assert(captured_logs_contain("starter.lua:2: no init yet; save a fix to resume"));
    for (int i = 0; i < 3; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ck_assert(last_tagged("process") == NULL);
    game_write("starter.lua", INIT_FIXED);
    step_until(rt, "process");
    ck_assert_int_eq(count_tagged("init"), 1);
    ck_assert(last_tagged("init")[1].number == 7); /* the spawn args again */
    ck_assert(last_tagged("process")[1].number == 1);
    ona_runtime_destroy(rt);
}
END_TEST

/* The receiver fails at its first turn (before taking anything); the flood sends it ten times
 * its mailbox of 4 and never waits: a paused receiver is held (messages queue past its
 * capacity). Nothing may be lost, reordered or reported as a deadlock. */
static const char *RECEIVER_BROKEN =
    "return {\n"
    "  init = function(state, args) state.report = args.report end,\n"
    "  process = function(state)\n"
    "    error('not written yet')\n"
    "  end,\n"
    "}\n";
static const char *RECEIVER_FIXED =
    "return {\n"
    "  init = function(state, args) state.report = args.report end,\n"
    "  process = function(state)\n"
    "    for from, v in ona.messages() do ona.send(state.report, 'got', v) end\n"
    "  end,\n"
    "}\n";
static const char *FLOOD = "return {\n"
                           "  init = function(state, args) state.report = args.report end,\n"
                           "  process = function(state)\n"
                           "    if state.done then return end\n"
                           "    local to = ona.lookup('receiver')\n"
                           "    for i = 1, 40 do ona.send(to, i) end\n"
                           "    state.done = true\n"
                           "    ona.send(state.report, 'flood done')\n"
                           "  end,\n"
                           "}\n";

START_TEST(test_paused_system_keeps_its_mailbox_and_senders_go_on) {
    game_write("receiver.lua", RECEIVER_BROKEN);
    game_write("flood.lua", FLOOD);
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 4, 0);
    spawn_lua(rt, "flood.lua", "flood", report, "", 0, 0);
    step_until_log(rt, "receiver paused: ");
    for (int i = 0; i < 20; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ona_system_stats st = named_stats(rt, "receiver");
    ck_assert_int_eq(st.status, ONA_SYSTEM_PAUSED);
    ck_assert_uint_eq(st.mailbox_size, 40);
    ck_assert(last_tagged("flood done") != NULL); /* it never waited */
    ona_system_stats fl = named_stats(rt, "flood");
    ck_assert_int_eq(fl.status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_eq(fl.errors, 0);
    ck_assert_uint_le(fl.parks, 1); /* at most in frame 1, before the receiver failed */
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.deadlocks, 0);
    ck_assert(!captured_logs_contain("deadlock"));
    /* The overlay names it, with what is queued for it. */
    char overlay[2048];
    ona__runtime_overlay_text(rt, 60, 0, overlay, sizeof overlay);
    ck_assert_msg(strstr(overlay, "PAUSED receiver (save a fix): 40 queued"), "%s", overlay);
    game_write("receiver.lua", RECEIVER_FIXED);
    for (int i = 0; i < 300 && count_tagged("got") < 40; i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    /* 1..40, once each, in order. */
    int next = 1;
    for (int i = 0; i < coll->count; i++) {
        if (coll->items[i].type != ONA_VALUE_STRING || strcmp(coll->items[i].text, "got") != 0)
            continue;
        ck_assert_int_eq((int)coll->items[i + 1].number, next);
        next++;
    }
    ck_assert_msg(next == 41, "got %d messages\n%s", next - 1, captured_logs_text());
    ck_assert(last_tagged("flood done") != NULL);
    ck_assert_uint_eq(named_stats(rt, "flood").errors, 0);
    ck_assert(!captured_logs_contain("deadlock"));
    ona_runtime_destroy(rt);
}
END_TEST

/* The handler raises while handling the third of five messages (line 7); two more arrive while
 * it is paused. After the fix the turn runs again and sees all seven, in order, the one in hand
 * included, with the buffer the second carried; under either delivery mode. */
/* The handler, with `raise` as its line 7. */
#define HANDLER(raise)                                                                             \
    "return {\n"                                                                                   \
    "  init = function(state, args) state.report = args.report end,\n"                             \
    "  process = function(state)\n"                                                                \
    "    local seen = {}\n"                                                                        \
    "    for from, v, s, b in ona.messages() do\n"                                                 \
    "      seen[#seen + 1] = v .. s .. (b and ('b' .. b:ptr()[0]) or '')\n" raise "    end\n"      \
    "    if #seen > 0 then ona.send(state.report, 'seen', table.concat(seen, ',')) end\n"          \
    "  end,\n"                                                                                     \
    "}\n"
static const char *HANDLER_BROKEN =
    HANDLER("      if v == 3 then error('cannot handle three') end\n");
static const char *HANDLER_FIXED = HANDLER("");

static void send_numbered(ona_runtime *rt, ona_system to, int i) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, i);
    char text[8];
    snprintf(text, sizeof text, "x%d", i);
    ona_message_write_string(&w, text, strlen(text));
    if (i == 2) {
        ona_buffer *b;
        ck_assert_int_eq(ona_buffer_create("int32_t", 4, 1, &b), 0);
        *(int32_t *)ona_buffer_data(b) = 42;
        ona_message_write_buffer(&w, &b);
    }
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_send(rt, to, &m), 0);
}

START_TEST(test_failed_turn_runs_again_with_its_messages) {
    game_write("handler.lua", HANDLER_BROKEN);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .hot_reload = true};
    desc.delivery = _i == 0 ? ONA_DELIVERY_ORDERED : ONA_DELIVERY_IMMEDIATE;
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    ona_system handler = spawn_lua(rt, "handler.lua", "handler", report, "", 0, 0);
    ona_runtime_step(rt, 1.0 / 60);
    for (int i = 1; i <= 5; i++)
        send_numbered(rt, handler, i);
    step_until_log(rt, "handler paused: ");
    ck_assert_msg(captured_logs_contain("handler.lua:7: cannot handle three"), "%s",
                  captured_logs_text());
    ona_runtime_step(rt, 1.0 / 60);
    ck_assert_int_eq(named_stats(rt, "handler").status, ONA_SYSTEM_PAUSED);
    for (int i = 6; i <= 7; i++)
        send_numbered(rt, handler, i);
    for (int i = 0; i < 5; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ck_assert(last_tagged("seen") == NULL);
    game_write("handler.lua", HANDLER_FIXED);
    step_until(rt, "seen");
    ck_assert_int_eq(count_tagged("seen"), 1);
    const item *seen = last_tagged("seen");
    ck_assert_str_eq(seen[1].text, "1x1,2x2b42,3x3,4x4,5x5,6x6,7x7");
    for (int i = 0; i < 5; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ck_assert_int_eq(count_tagged("seen"), 1); /* once: nothing is taken twice after the re-run */
    ck_assert_uint_eq(named_stats(rt, "handler").errors, 1);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_without_watching_the_policy_applies) {
    game_write("counter.lua", COUNTER_BROKEN);
    ona_runtime *rt = make_runtime(false);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    for (int i = 0; i < 4; i++)
        ona_runtime_step(rt, 1.0 / 60);
    ck_assert_msg(captured_logs_contain("counter: restarting in"), "%s", captured_logs_text());
    ck_assert(!captured_logs_contain("paused"));
    ona_system_stats st = named_stats(rt, "counter");
    ck_assert_uint_ge(st.restarts, 1);
    ck_assert_int_ne(st.status, ONA_SYSTEM_PAUSED);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Saves caught mid-write ------------------------------------------------------------------ */

static const char *USES_HELPER =
    "local helper = require('helper')\n"
    "return {\n"
    "  init = function(state, args) state.report = args.report end,\n"
    "  process = function(state) ona.send(state.report, 'value', helper.value()) end,\n"
    "}\n";

static const char *HELPER_1 = "return { value = function() return 1 end }\n";
static const char *HELPER_2 = "return { value = function() return 2 end }\n";

enum { USERS = 4 };

static ona_runtime *start_users(void) {
    game_write("helper.lua", HELPER_1);
    game_write("user.lua", USES_HELPER);
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    for (int i = 0; i < USERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "user%d", i);
        spawn_lua(rt, "user.lua", name, report, "", 0, 0);
    }
    step_until(rt, "value");
    return rt;
}

/* Every user ran with the module's value `v`, and none ever failed. The collector takes what is
 * in its mailbox when its turn runs, which on 2 threads may be before or after the users' turns
 * of the same frame; over two frames it has read at least one whole frame of theirs. */
static void assert_users_see(ona_runtime *rt, double v) {
    int seen = coll->count;
    ona_runtime_step(rt, 1.0 / 60);
    ona_runtime_step(rt, 1.0 / 60);
    int n = 0;
    for (int i = seen; i + 1 < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "value") == 0) {
            ck_assert_msg(coll->items[i + 1].number == v, "saw %g, not %g\n%s",
                          coll->items[i + 1].number, v, captured_logs_text());
            n++;
        }
    ck_assert_int_ge(n, USERS);
    for (int i = 0; i < USERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "user%d", i);
        ona_system_stats st = named_stats(rt, name);
        ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
        ck_assert_uint_eq(st.errors, 0);
    }
}

/* Steps until every user reports `v`. */
static void step_until_value(ona_runtime *rt, double v) {
    for (int i = 0; i < 300 && last_tagged("value")[1].number != v; i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    ona_runtime_step(rt, 1.0 / 60);
    assert_users_see(rt, v);
}

START_TEST(test_truncate_then_write_is_not_loaded_empty) {
    ona_runtime *rt = start_users();
    /* An editor that truncates, then writes a frame later. */
    game_write_in_place("helper.lua", "");
    ona_runtime_step(rt, 1.0 / 60);
    usleep(2000);
    game_write_in_place("helper.lua", HELPER_2);
    step_until_value(rt, 2);
    /* The empty file was never applied: no reload failed. */
    ck_assert_msg(!captured_logs_contain("failed"), "%s", captured_logs_text());
    ck_assert(captured_logs_contain("helper.lua: 4 reloaded"));
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_empty_module_keeps_the_old_one) {
    ona_runtime *rt = start_users();
    game_write("helper.lua", "\n");
    step_until_log(rt, "helper.lua is empty");
    ck_assert(captured_logs_contain("not reloaded"));
    ck_assert(!captured_logs_contain("failed")); /* refused before any system re-ran it */
    assert_users_see(rt, 1);
    game_write("helper.lua", HELPER_2);
    step_until_value(rt, 2);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_module_type_change_is_refused) {
    ona_runtime *rt = start_users();
    game_write("helper.lua", "return 42\n");
    step_until_log(rt, "helper.lua returned number; it returned a table before: keeping the old "
                       "module");
    assert_users_see(rt, 1);
    game_write("helper.lua", "local x = 1\n"); /* returns nothing */
    step_until_log(rt, "helper.lua returned nil; it returned a table before");
    assert_users_see(rt, 1);
    /* A system script that returns no table is refused the same way. */
    game_write("user.lua", "return nil\n");
    step_until_log(rt, "user.lua returned nil; it returned a table before: keeping the old code");
    assert_users_see(rt, 1);
    ona_runtime_destroy(rt);
}
END_TEST

static const char *WANTS_CONFIG =
    "local config = require('config')\n"
    "return {\n"
    "  init = function(state, args) state.report = args.report end,\n"
    "  process = function(state) ona.send(state.report, 'v2', config.speed) end,\n"
    "}\n";

START_TEST(test_creating_a_missed_module_reloads_the_system) {
    game_write("counter.lua", COUNTER_V1);
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    step_until(rt, "v1");
    /* Saved before the module it needs exists: the reload fails, v1 keeps running. */
    game_write("counter.lua", WANTS_CONFIG);
    step_until_log(rt, "module 'config' not found");
    ck_assert(last_tagged("v2") == NULL);
    /* Creating the module reloads the system that wanted it. */
    game_write("config.lua", "return { speed = 9 }\n");
    step_until(rt, "v2");
    ck_assert(last_tagged("v2")[1].number == 9);
    ck_assert_uint_eq(named_stats(rt, "counter").errors, 0);
    ona_runtime_destroy(rt);
}
END_TEST

/* A system paused by a require that missed resumes once the module is created. */
START_TEST(test_creating_a_missed_module_resumes_a_paused_system) {
    game_write("lazy.lua", "return {\n"
                           "  init = function(state, args) state.report = args.report end,\n"
                           "  process = function(state)\n"
                           "    local tune = require('tune')\n"
                           "    ona.send(state.report, 'tuned', tune.x)\n"
                           "  end,\n"
                           "}\n");
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "lazy.lua", "lazy", report, "", 0, 0);
    step_until_log(rt, "lazy paused: ");
    ck_assert(captured_logs_contain("module 'tune' not found"));
    game_write("tune.lua", "return { x = 3 }\n");
    step_until(rt, "tuned");
    ck_assert(last_tagged("tuned")[1].number == 3);
    ck_assert_int_eq(named_stats(rt, "lazy").status, ONA_SYSTEM_RUNNING);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("continue");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_error_pauses_and_fix_resumes_with_state);
    tcase_add_test(tc, test_failed_init_runs_again_after_the_fix);
    tcase_add_test(tc, test_paused_system_keeps_its_mailbox_and_senders_go_on);
    tcase_add_loop_test(tc, test_failed_turn_runs_again_with_its_messages, 0, 2);
    tcase_add_test(tc, test_without_watching_the_policy_applies);
    tcase_add_test(tc, test_truncate_then_write_is_not_loaded_empty);
    tcase_add_test(tc, test_empty_module_keeps_the_old_one);
    tcase_add_test(tc, test_module_type_change_is_refused);
    tcase_add_test(tc, test_creating_a_missed_module_reloads_the_system);
    tcase_add_test(tc, test_creating_a_missed_module_resumes_a_paused_system);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
