/*
 * test_asleep.c: sleeping systems, on the real runtime. A system without `process` (Lua: a
 * script with `receive` and no `process`; native: no process callback) gets a turn only in a
 * frame where a message waits for it, and reads it with `receive`: its turns are counted
 * exactly, on any thread count and under either delivery; a member of the order still gets its
 * predecessors' messages in the same frame; the runtime's notices wake it; a system with both
 * callbacks runs every frame; a reload that gives a sleeper a process wakes it.
 */
#include "test_support.h"

#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/asleep", NULL};

enum { FRAMES = 30, EVERY = 5 };

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads, ona_delivery delivery) {
    return create_runtime(
        &(ona_runtime_desc){.threads = threads, .script_roots = roots, .delivery = delivery});
}

/* Spawns `script` named `name` with make_args(report, pairs), after `after` (NULL: unordered). */
static ona_system spawn_named(ona_runtime *rt, const char *script, const char *name,
                              ona_system report, const char *pairs, const char *after) {
    ona_message args = make_args(report, pairs);
    const char *names[] = {after};
    ona_spawn_desc d = {.script = script,
                        .name = name,
                        .args = &args,
                        .after_names = after ? names : NULL,
                        .after_name_count = after ? 1 : 0};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &d, &h);
    ck_assert_msg(rc == 0, "spawn %s: %s; log:\n%s", name, ona_strerror(rc), captured_logs_text());
    return h;
}

/* The collected "got" reports: for each, the frame it was handled in and the ping's frame. */
static int gots(uint64_t *handled, uint64_t *sent, int max) {
    int n = 0;
    for (int i = 0; i + 4 < coll->count && n < max; i++) {
        const item *it = &coll->items[i];
        if (it->type != ONA_VALUE_STRING || strcmp(it->text, "got") != 0)
            continue;
        ck_assert_int_eq(it[3].type, ONA_VALUE_STRING);
        ck_assert_str_eq(it[3].text, "ping");
        handled[n] = (uint64_t)it[1].number;
        sent[n] = (uint64_t)it[4].number;
        n++;
    }
    return n;
}

/* --- Turns only with mail --------------------------------------------------------------------- */

/* _i: threads 1, 2, 4 x ordered, immediate. */
START_TEST(test_asleep_turns_only_in_frames_with_mail) {
    uint32_t threads = (uint32_t)(1u << (_i % 3));
    ona_delivery delivery = _i < 3 ? ONA_DELIVERY_ORDERED : ONA_DELIVERY_IMMEDIATE;
    ona_runtime *rt = make_runtime(threads, delivery);
    ona_system report = spawn_collector(rt);
    spawn_named(rt, "sleeper.lua", "sleeper", report, "", NULL);
    spawn_named(rt, "pinger.lua", "pinger", (ona_system){0}, "to=sleeper every=5", NULL);
    step_frames(rt, FRAMES);
    uint64_t handled[16], sent[16];
    int n = gots(handled, sent, 16);
    /* Pings of frames 5..25 are handled the frame after (unordered); frame 30's is waiting. */
    ck_assert_msg(n == FRAMES / EVERY - 1, "%d handled; got:\n%s", n, collected_text());
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(sent[i], (uint64_t)(EVERY * (i + 1)));
        ck_assert_uint_eq(handled[i], sent[i] + 1);
    }
    /* Its init, then one turn a ping: none in the frames between. */
    ona_system_stats st = named_stats(rt, "sleeper");
    ck_assert_uint_eq(st.turns, 1 + (uint64_t)n);
    ck_assert_uint_eq(st.messages_in, (uint64_t)n);
    ck_assert_uint_eq(st.mailbox_size, 1); /* frame 30's ping */
    ck_assert_uint_eq(named_stats(rt, "pinger").turns, FRAMES);
    ona_runtime_destroy(rt);
}
END_TEST

/* A sleeper after its sender gets each message in the frame it was sent, on any thread count. */
START_TEST(test_asleep_after_its_sender_same_frame) {
    uint32_t threads = (uint32_t)(1u << _i);
    ona_runtime *rt = make_runtime(threads, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    spawn_named(rt, "pinger.lua", "pinger", (ona_system){0}, "to=sleeper every=5", NULL);
    spawn_named(rt, "sleeper.lua", "sleeper", report, "", "pinger");
    step_frames(rt, FRAMES + 1); /* the collector, unordered, has frame 30's report the frame after */
    uint64_t handled[16], sent[16];
    int n = gots(handled, sent, 16);
    ck_assert_msg(n == FRAMES / EVERY, "%d handled; got:\n%s", n, collected_text());
    for (int i = 0; i < n; i++)
        ck_assert_uint_eq(handled[i], sent[i]);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Notices, both callbacks ------------------------------------------------------------------ */

START_TEST(test_asleep_woken_by_a_notice) {
    ona_runtime *rt = make_runtime(2, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    ona_system pinger =
        spawn_named(rt, "pinger.lua", "pinger", (ona_system){0}, "to=collector every=1000", NULL);
    step_frames(rt, 1);
    spawn_named(rt, "watcher.lua", "watcher", report, "watch=pinger", NULL);
    step_frames(rt, 10);
    ck_assert_uint_eq(named_stats(rt, "watcher").turns, 1); /* init alone */
    ck_assert_int_eq(ona_runtime_kill(rt, pinger), 0);
    step_frames(rt, 5);
    ASSERT_COLLECTED("ended");
    ck_assert_uint_eq(named_stats(rt, "watcher").turns, 2);
    bool from_runtime = false;
    for (int i = 0; i + 1 < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "notice") == 0)
            from_runtime = coll->items[i + 1].boolean;
    ck_assert(from_runtime);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_asleep_receive_and_process_runs_every_frame) {
    ona_runtime *rt = make_runtime(2, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    spawn_named(rt, "pinger.lua", "pinger", (ona_system){0}, "to=both every=5", NULL);
    spawn_named(rt, "both.lua", "both", report, "", "pinger");
    step_frames(rt, FRAMES + 1); /* the collector has frame 30's report in frame 31 */
    ck_assert_uint_eq(named_stats(rt, "both").turns, FRAMES + 1);
    /* Its last report: frame 30, having seen the six pings (receive runs before process). */
    double frame = 0, seen = -1;
    for (int i = 0; i + 2 < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "seen") == 0) {
            frame = coll->items[i + 1].number;
            seen = coll->items[i + 2].number;
        }
    ck_assert_double_eq(frame, FRAMES);
    ck_assert_double_eq(seen, FRAMES / EVERY);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Native ----------------------------------------------------------------------------------- */

typedef struct native_sleeper {
    int received;
    double last;
    int processed;
} native_sleeper;

static int native_receive(ona_ctx *ctx, void *state, ona_message *msg) {
    (void)ctx;
    native_sleeper *s = state;
    ona_message_reader r;
    ona_value v;
    ona_message_reader_begin(&r, msg);
    if (ona_message_read(&r, &v) == 0 && v.type == ONA_VALUE_NUMBER)
        s->last = v.as.number;
    s->received++;
    return 0;
}

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx;
    (void)dt;
    ((native_sleeper *)state)->processed++;
    return 0;
}

/* The state block of the native system `h`, read through its exit. */
static native_sleeper seen_at_exit[2];
static int exits;
static void native_exit(ona_ctx *ctx, void *state) {
    (void)ctx;
    if (exits < 2)
        seen_at_exit[exits] = *(native_sleeper *)state;
    exits++;
}

START_TEST(test_asleep_native_without_process) {
    ona_runtime *rt = make_runtime(2, _i ? ONA_DELIVERY_IMMEDIATE : ONA_DELIVERY_ORDERED);
    ona_system asleep, awake;
    ona_system_desc d = {.name = "asleep",
                         .size = sizeof(native_sleeper),
                         .receive = native_receive,
                         .exit = native_exit};
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &asleep), 0);
    d.name = "awake";
    d.process = native_process;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &awake), 0);
    exits = 0;
    for (int f = 1; f <= FRAMES; f++) {
        if (f % EVERY == 0) {
            send_number(rt, asleep, f);
            send_number(rt, awake, f);
        }
        step_frames(rt, 1);
    }
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, asleep, &st), 0);
    ck_assert_uint_eq(st.turns, 1 + FRAMES / EVERY); /* its first turn, then one a message */
    ck_assert_int_eq(ona_runtime_system_stats(rt, awake, &st), 0);
    ck_assert_uint_eq(st.turns, FRAMES);
    ona_runtime_destroy(rt);
    ck_assert_int_eq(exits, 2);
    ck_assert_int_eq(seen_at_exit[0].received, FRAMES / EVERY);
    ck_assert_double_eq(seen_at_exit[0].last, FRAMES);
    ck_assert_int_eq(seen_at_exit[0].processed, 0);
    ck_assert_int_eq(seen_at_exit[1].received, FRAMES / EVERY);
    ck_assert_int_eq(seen_at_exit[1].processed, FRAMES);
}
END_TEST

/* --- Reload ----------------------------------------------------------------------------------- */

static const char *SLEEPER_V1 = "return {\n"
                                "  init = function(state, args) state.report = args.report end,\n"
                                "  receive = function(state, from, ...) end,\n"
                                "}\n";

static const char *SLEEPER_V2 = "return {\n"
                                "  init = function(state, args) state.report = args.report end,\n"
                                "  receive = function(state, from, ...) end,\n"
                                "  process = function(state) ona.send(state.report, 'tick') end,\n"
                                "}\n";

START_TEST(test_asleep_reload_with_a_process_wakes_it) {
    game_dir_begin("asleep");
    game_write("napper.lua", SLEEPER_V1);
    const char *dirs[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = dirs};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    ona_message args = make_args(report, "");
    ona_spawn_desc d = {.script = "napper.lua", .name = "napper", .args = &args};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
    step_frames(rt, 10);
    ck_assert_uint_eq(named_stats(rt, "napper").turns, 1);
    game_write_in_place("napper.lua", SLEEPER_V2);
    ck_assert_int_eq(ona_runtime_reload(rt, "napper.lua"), 0);
    for (int i = 0; i < 100 && !collected_contains("tick"); i++) {
        step_frames(rt, 1);
        usleep(1000);
    }
    ASSERT_COLLECTED("tick");
    uint64_t turns = named_stats(rt, "napper").turns;
    step_frames(rt, 5);
    ck_assert_uint_eq(named_stats(rt, "napper").turns, turns + 5); /* awake now, every frame */
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

static Suite *asleep_suite(void) {
    Suite *s = suite_create("asleep");
    TCase *tc = tcase_create("asleep");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_asleep_turns_only_in_frames_with_mail, 0, 6);
    tcase_add_loop_test(tc, test_asleep_after_its_sender_same_frame, 0, 3);
    tcase_add_test(tc, test_asleep_woken_by_a_notice);
    tcase_add_test(tc, test_asleep_receive_and_process_runs_every_frame);
    tcase_add_loop_test(tc, test_asleep_native_without_process, 0, 2);
    tcase_add_test(tc, test_asleep_reload_with_a_process_wakes_it);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(asleep_suite());
}
