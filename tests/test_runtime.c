/*
 * test_runtime.c: the actor core driven through the embedding API: turns per frame, parking in
 * receive and send, quiescence, deadlock reports, the same results on 1 and 2 threads, the
 * lifecycle and failure policies, memory caps, stale handles, and a native C system messaging
 * Lua systems. The Lua side of each test is a script in tests/lua/.
 *
 * A native "collector" system records every value it receives, in order, so a test can assert
 * on what the Lua systems sent. It runs on whatever thread the scheduler picks; the test reads
 * it only after ona_runtime_step returned (the frame's end orders it).
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

static ona_runtime *make_runtime_with(uint32_t threads, ona_delivery delivery) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots, .delivery = delivery};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    return rt;
}

static ona_runtime *make_runtime(uint32_t threads) {
    return make_runtime_with(threads, ONA_DELIVERY_ORDERED);
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

/* --- Scheduler ------------------------------------------------------------------------------- */

static void every_system_one_turn(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system none = {0};
    ona_system hs[40];
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "counter%d", i);
        hs[i] = spawn_lua(rt, "counter.lua", name, none, "", 0, 0);
    }
    step(rt, 10);
    for (int i = 0; i < 40; i++) {
        ona_system_stats st;
        ck_assert_int_eq(ona_runtime_system_stats(rt, hs[i], &st), 0);
        ck_assert_uint_eq(st.turns, 10);
        ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
        ck_assert_uint_gt(st.memory, 0);
    }
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.frames, 10);
    ck_assert_uint_eq(rs.turns, 400);
    ck_assert_uint_eq(rs.threads, threads);
    ona_runtime_destroy(rt);
}

START_TEST(test_runtime_every_system_gets_one_turn_per_frame) {
    every_system_one_turn(1);
    every_system_one_turn(2);
    every_system_one_turn(4);
}
END_TEST

/* Round trips within a frame: immediate delivery (ordered delivery answers in the next frame). */
static double pingpong(uint32_t threads, int rounds) {
    ona_runtime *rt = make_runtime_with(threads, ONA_DELIVERY_IMMEDIATE);
    ona_system report = spawn_collector(rt);
    char args[128];
    snprintf(args, sizeof args, "peer=pong serve=true rounds=%d", rounds);
    spawn_lua(rt, "ping.lua", "ping", report, args, 0, 0);
    snprintf(args, sizeof args, "peer=ping serve=false rounds=%d", rounds);
    spawn_lua(rt, "ping.lua", "pong", report, args, 0, 0);
    step(rt, 3);
    ck_assert_msg(coll->count == 1, "expected one report, got %d; log:\n%s", coll->count,
                  captured_logs_text());
    double result = coll->items[0].number;
    ona_runtime_destroy(rt);
    collector_free();
    return result;
}

START_TEST(test_runtime_pingpong_parks_and_resumes_within_a_frame) {
    /* 1000 round trips, each a park in receive and a wake by the other system's send. */
    ck_assert(pingpong(1, 1000) == 1000);
    ck_assert(pingpong(2, 1000) == 1000);
}
END_TEST

static void blocked_send(uint32_t threads, int *frames_needed) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "slow_reader.lua", "reader", report, "", 2, 0);
    spawn_lua(rt, "flood.lua", "flood", report, "target=reader count=10", 0, 0);
    step(rt, 15);
    /* The reader forwards one value a turn: 1..10 in order, and the flooder's turn spans frames
     * while it waits for room. */
    int next = 1, done_frame = 0;
    for (int i = 0; i < coll->count; i++) {
        item *it = &coll->items[i];
        if (it->type == ONA_VALUE_STRING) {
            ck_assert_str_eq(it->text, "flood done");
            done_frame = (int)coll->items[i + 1].number;
            i++;
            continue;
        }
        ck_assert_int_eq(it->type, ONA_VALUE_NUMBER);
        ck_assert_int_eq((int)it->number, next);
        next++;
    }
    ck_assert_int_eq(next, 11);
    ck_assert_int_gt(done_frame, 5);
    ona_system flood;
    ck_assert_int_eq(ona_runtime_lookup(rt, "flood", &flood), 0);
    ona_system_stats st;
    ona_runtime_system_stats(rt, flood, &st);
    ck_assert_uint_gt(st.parks, 0);
    ona_system reader;
    ona_runtime_lookup(rt, "reader", &reader);
    ona_runtime_system_stats(rt, reader, &st);
    ck_assert_uint_eq(st.mailbox_high_water, 2);
    ck_assert_uint_gt(st.mailbox_full, 0);
    *frames_needed = done_frame;
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_runtime_blocked_send_resumes_in_later_frames) {
    int one, two;
    blocked_send(1, &one);
    blocked_send(2, &two);
    ck_assert_int_eq(one, two);
}
END_TEST

START_TEST(test_runtime_receive_returns_nil_at_quiescence) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "nil_receive.lua", NULL, report, "", 0, 0);
    step(rt, 3);
    /* One "got", true per frame (the collector reads next frame: 2 of 3 frames seen). */
    ck_assert_int_ge(coll->count, 4);
    ck_assert_str_eq(coll->items[0].text, "got");
    ck_assert(coll->items[1].boolean);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_deadlock_is_reported_by_name) {
    ona_runtime *rt = make_runtime(2);
    ona_system none = {0};
    spawn_lua(rt, "deadlock.lua", "alice", none, "peer=bob", 2, ONA_POLICY_STOP);
    spawn_lua(rt, "deadlock.lua", "bob", none, "peer=alice", 2, ONA_POLICY_STOP);
    step(rt, 2);
    ck_assert_msg(captured_logs_contain("deadlock: alice -> bob -> alice") ||
                      captured_logs_contain("deadlock: bob -> alice -> bob"),
                  "%s", captured_logs_text());
    /* The sends failed as errors in each system, which stopped by policy. */
    ck_assert(captured_logs_contain("ona.send: deadlock"));
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.deadlocks, 1);
    ona_runtime_destroy(rt);
}
END_TEST

/* The same pipeline of systems must give the same results whatever the thread count. */
static void run_mesh(uint32_t threads, double *sums, int *count) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        spawn_lua(rt, "counter.lua", name, report, "limit=12", 0, 0);
    }
    /* Reports stop after 12 turns, so by frame 20 the collector has read every one of them,
     * whatever order the turns ran in. */
    step(rt, 20);
    /* Per sender, the counts must be 1..n in order; collect the total per sender. */
    double last[8] = {0};
    for (int i = 0; i + 1 < coll->count; i += 2) {
        item *name = &coll->items[i], *n = &coll->items[i + 1];
        ck_assert_int_eq(name->type, ONA_VALUE_STRING);
        int who = atoi(name->text + 1);
        ck_assert(n->number == last[who] + 1);
        last[who] = n->number;
    }
    for (int i = 0; i < 8; i++)
        sums[i] = last[i];
    *count = coll->count;
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_runtime_same_results_with_one_and_two_threads) {
    double a[8], b[8];
    int na, nb;
    run_mesh(1, a, &na);
    run_mesh(2, b, &nb);
    ck_assert_int_eq(na, nb);
    ck_assert_int_eq(na, 8 * 12 * 2);
    for (int i = 0; i < 8; i++)
        ck_assert(a[i] == b[i] && a[i] == 12);
    ck_assert(pingpong(1, 77) == pingpong(2, 77));
}
END_TEST

/* --- Lifecycle and failures ------------------------------------------------------------------ */

START_TEST(test_runtime_lifecycle_order) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    ona_system h = spawn_lua(rt, "lifecycle.lua", NULL, report, "", 0, 0);
    step(rt, 2);
    ck_assert_int_eq(ona_runtime_kill(rt, h), 0);
    step(rt, 2); /* the kill happens at the boundary; the collector reads "exit" after */
    const char *expected[] = {"init", "process", "process", "exit"};
    ck_assert_int_eq(coll->count, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_str_eq(coll->items[i].text, expected[i]);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), ONA_ESTALE);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_error_isolated_and_restarted) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system bystander = spawn_lua(rt, "counter.lua", "bystander", none, "", 0, 0);
    ona_system faulty = spawn_lua(rt, "faulty.lua", "faulty", report, "fail_at=3", 0, 0);
    step(rt, 8);
    /* Logged with the system's name, file:line and a traceback. */
    ck_assert_msg(captured_logs_contain("error: faulty: "), "%s", captured_logs_text());
    ck_assert(captured_logs_contain("faulty.lua:11: boom at turn 3"));
    ck_assert(captured_logs_contain("stack traceback"));
    ck_assert(captured_logs_contain("restarting in 1 frame"));
    /* Restarted with fresh state: init again, counting from 1 again. */
    int inits = 0;
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "init") == 0)
            inits++;
    ck_assert_int_ge(inits, 2);
    ona_system_stats st;
    ona_runtime_system_stats(rt, faulty, &st);
    ck_assert_uint_ge(st.restarts, 1);
    ck_assert_uint_ge(st.errors, 1);
    /* The bystander never missed a turn. */
    ona_runtime_system_stats(rt, bystander, &st);
    ck_assert_uint_eq(st.turns, 8);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_restart_limit_then_stopped) {
    ona_runtime *rt = make_runtime(1);
    ona_system report = spawn_collector(rt);
    ona_system faulty = spawn_lua(rt, "faulty.lua", "faulty", report, "fail_at=1", 0, 0);
    step(rt, 40);
    ona_system_stats st;
    ck_assert(captured_logs_contain("restarting in 4 frames (restart 3 of 3)"));
    ck_assert(captured_logs_contain("failed past its restart limit"));
    /* A stopped system ends at the boundary that stops it: its slot is free again and its handle
     * stale for good. */
    ck_assert_int_eq(ona_runtime_system_stats(rt, faulty, &st), ONA_ESTALE);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, 1);
    ona_message_writer_end(&w);
    ck_assert_int_eq(ona_runtime_send(rt, faulty, &m), ONA_ESTALE);
    ona_message_release(&m);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_stop_policy) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    ona_system faulty =
        spawn_lua(rt, "faulty.lua", "faulty", report, "fail_at=2", 0, ONA_POLICY_STOP);
    step(rt, 5);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, faulty, &st), ONA_ESTALE);
    ck_assert(!captured_logs_contain("restarting"));
    ck_assert(captured_logs_contain("its policy is stop"));
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_memory_cap_fails_only_that_system) {
    ona_runtime *rt = make_runtime(2);
    ona_system none = {0};
    ona_system bystander = spawn_lua(rt, "counter.lua", "bystander", none, "", 0, 0);
    ona_spawn_desc d = {.script = "hog.lua", .memory_cap = 2u << 20, .policy = ONA_POLICY_STOP};
    ona_system hog;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &hog), 0);
    /* Frame by frame, while the hog is readable: its peak stays at its cap (the runtime's own
     * error report may add a little past it). It ends at the boundary after it failed. */
    ona_system_stats st;
    size_t peak = 0;
    for (int i = 0; i < 3; i++) {
        step(rt, 1);
        if (ona_runtime_system_stats(rt, hog, &st) == 0)
            peak = st.memory_peak;
    }
    ck_assert_msg(captured_logs_contain("hog: exceeded its memory cap of 2097152 bytes"), "%s",
                  captured_logs_text());
    ck_assert(captured_logs_contain("hog: stopped (its policy is stop)"));
    ck_assert_uint_gt(peak, 1u << 20);
    ck_assert_uint_le(peak, (2u << 20) + (64u << 10));
    ck_assert_int_eq(ona_runtime_system_stats(rt, hog, &st), ONA_ESTALE);
    ona_runtime_system_stats(rt, bystander, &st);
    ck_assert_uint_eq(st.turns, 3);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_spawn_errors_are_reported) {
    ona_runtime *rt = make_runtime(1);
    ona_system h;
    ona_spawn_desc missing = {.script = "no_such_system.lua"};
    ck_assert_int_eq(ona_runtime_spawn(rt, &missing, &h), ONA_ENOENT);
    ck_assert_uint_eq(h.id, 0);
    ck_assert(captured_logs_contain("no such script 'no_such_system.lua'"));
    ona_spawn_desc broken = {.script = "broken.lua"};
    ck_assert_int_eq(ona_runtime_spawn(rt, &broken, &h), ONA_ESCRIPT);
    ck_assert_msg(captured_logs_contain("broken.lua:4:"), "%s", captured_logs_text());
    ona_spawn_desc none = {0};
    ck_assert_int_eq(ona_runtime_spawn(rt, &none, &h), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_unencodable_send_names_the_path) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "bad_send.lua", NULL, report, "", 0, 0);
    step(rt, 2);
    ck_assert_int_ge(coll->count, 2);
    ck_assert_int_eq(coll->items[0].type, ONA_VALUE_BOOLEAN);
    ck_assert(!coll->items[0].boolean);
    ck_assert_msg(strstr(coll->items[1].text, "msg.enemies[3].cb is a function") != NULL, "%s",
                  coll->items[1].text);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_stale_handles_are_errors) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system victim = spawn_lua(rt, "counter.lua", "victim", none, "", 0, 0);
    step(rt, 1);
    ona_runtime_kill(rt, victim);
    step(rt, 1);
    char args[64];
    snprintf(args, sizeof args, "victim=%llu", (unsigned long long)victim.id);
    spawn_lua(rt, "stale.lua", NULL, report, args, 0, 0);
    step(rt, 2);
    ck_assert_int_eq(coll->count, 4);
    ck_assert(!coll->items[0].boolean);
    ck_assert(strstr(coll->items[1].text, "no such system") != NULL);
    ck_assert(!coll->items[2].boolean);
    ck_assert(strstr(coll->items[3].text, "no such system") != NULL);
    ona_message m;
    ona_message_init(&m);
    ck_assert_int_eq(ona_runtime_send(rt, victim, &m), ONA_ESTALE);
    ck_assert_int_eq(ona_runtime_kill(rt, victim), ONA_ESTALE);
    ona_system junk = {0xFFFFFFFFu};
    ck_assert_int_eq(ona_runtime_send(rt, junk, &m), ONA_ESTALE);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_buffers_move_and_strings_share_between_systems) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "buffer_receiver.lua", NULL, report, "", 0, 0);
    spawn_lua(rt, "buffer_sender.lua", NULL, report, "", 0, 0);
    step(rt, 3);
    ck_assert_msg(coll->count == 12, "got %d items; log:\n%s", coll->count, captured_logs_text());
    /* Collector order depends on which report arrived first; find each by its tag. */
    int s = strcmp(coll->items[0].text, "sender") == 0 ? 0 : 8;
    int r = s == 0 ? 4 : 0;
    ck_assert_str_eq(coll->items[s].text, "sender");
    ck_assert(!coll->items[s + 1].boolean); /* buf:alive() after send */
    ck_assert(!coll->items[s + 2].boolean); /* buf:ptr() raised */
    ck_assert_msg(strstr(coll->items[s + 3].text, "moved") != NULL, "%s", coll->items[s + 3].text);
    ck_assert_str_eq(coll->items[r].text, "receiver");
    ck_assert(coll->items[r + 1].number == 9900); /* 2 * (0 + ... + 99) */
    ck_assert(coll->items[r + 2].number == 100);
    ck_assert_str_eq(coll->items[r + 3].text, "float");
    ck_assert_str_eq(coll->items[r + 4].text, "a heap string that is long enough to be shared");
    ck_assert(coll->items[r + 5].number == 46);
    ck_assert(coll->items[r + 6].boolean);
    ck_assert(coll->items[r + 7].boolean);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_runtime_spawn_and_require_from_lua) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "spawner.lua", NULL, report, "", 0, 0);
    step(rt, 3);
    ck_assert_msg(coll->count >= 7, "%d; log:\n%s", coll->count, captured_logs_text());
    ck_assert_str_eq(coll->items[0].text, "spawned");
    ck_assert(coll->items[1].boolean);
    ck_assert_str_eq(coll->items[2].text, "child");
    ck_assert(coll->items[3].boolean);
    ck_assert(strstr(coll->items[4].text, "no such script 'nope.lua'") != NULL);
    ck_assert(coll->items[5].number == 42);
    ck_assert(!coll->items[6].boolean); /* C modules cannot be required */
    /* The child got its first turn in the frame after the spawn and reports its count. */
    ck_assert_int_ge(coll->count, 9);
    ck_assert_str_eq(coll->items[7].text, "child");
    ck_assert(coll->items[8].number == 1);
    ona_system child;
    ck_assert_int_eq(ona_runtime_lookup(rt, "child", &child), 0);
    ona_system_stats st;
    ona_runtime_system_stats(rt, child, &st);
    ck_assert_uint_eq(st.mailbox_capacity, 8);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Embedding: a native C system and a Lua system message each other ------------------------ */

typedef struct asker {
    ona_system echo;
    double replies[16];
    int count;
    int sent;
} asker;

static int asker_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    asker *a = state;
    ona_message *in;
    while (ona_ctx_try_receive(ctx, &in) == 0) {
        ona_message_reader r;
        ona_message_reader_begin(&r, in);
        ona_value v;
        if (ona_message_read(&r, &v) == 0 && v.type == ONA_VALUE_NUMBER && a->count < 16)
            a->replies[a->count++] = v.as.number;
    }
    if (a->sent < 5) {
        if (!a->echo.id && ona_ctx_lookup(ctx, "echo", &a->echo) != 0)
            return 0;
        ona_message m;
        ona_message_init(&m);
        ona_message_writer w;
        ona_message_writer_begin(&w, &m);
        ona_message_write_number(&w, 10 * a->sent);
        if (ona_message_writer_end(&w) == 0 && ona_ctx_try_send(ctx, a->echo, &m) == 0)
            a->sent++;
        ona_message_release(&m);
    }
    return 0;
}

START_TEST(test_runtime_native_and_lua_systems_exchange_messages) {
    ona_runtime *rt = make_runtime(2);
    ona_system_desc d = {.name = "asker", .size = sizeof(asker), .process = asker_process};
    ona_system native;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &native), 0);
    ona_spawn_desc echo = {.script = "echo.lua"};
    ona_system lua;
    ck_assert_int_eq(ona_runtime_spawn(rt, &echo, &lua), 0);
    step(rt, 8);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, native, &st), 0);
    ck_assert_uint_eq(st.messages_out, 5);
    ck_assert_uint_eq(st.messages_in, 5);
    ck_assert_int_eq(ona_runtime_system_stats(rt, lua, &st), 0);
    ck_assert_uint_eq(st.messages_in, 5);
    ona_system list[4];
    ck_assert_uint_eq(ona_runtime_systems(rt, list, 4), 2);
    ck_assert_uint_eq(list[0].id, native.id);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("runtime");
    TCase *sched = tcase_create("scheduler");
    tcase_set_timeout(sched, 120);
    tcase_add_checked_fixture(sched, setup, teardown);
    tcase_add_test(sched, test_runtime_every_system_gets_one_turn_per_frame);
    tcase_add_test(sched, test_runtime_pingpong_parks_and_resumes_within_a_frame);
    tcase_add_test(sched, test_runtime_blocked_send_resumes_in_later_frames);
    tcase_add_test(sched, test_runtime_receive_returns_nil_at_quiescence);
    tcase_add_test(sched, test_runtime_deadlock_is_reported_by_name);
    tcase_add_test(sched, test_runtime_same_results_with_one_and_two_threads);
    suite_add_tcase(s, sched);
    TCase *life = tcase_create("lifecycle");
    tcase_set_timeout(life, 120);
    tcase_add_checked_fixture(life, setup, teardown);
    tcase_add_test(life, test_runtime_lifecycle_order);
    tcase_add_test(life, test_runtime_error_isolated_and_restarted);
    tcase_add_test(life, test_runtime_restart_limit_then_stopped);
    tcase_add_test(life, test_runtime_stop_policy);
    tcase_add_test(life, test_runtime_memory_cap_fails_only_that_system);
    tcase_add_test(life, test_runtime_spawn_errors_are_reported);
    tcase_add_test(life, test_runtime_unencodable_send_names_the_path);
    tcase_add_test(life, test_runtime_stale_handles_are_errors);
    tcase_add_test(life, test_runtime_native_and_lua_systems_exchange_messages);
    tcase_add_test(life, test_runtime_buffers_move_and_strings_share_between_systems);
    tcase_add_test(life, test_runtime_spawn_and_require_from_lua);
    suite_add_tcase(s, life);
    return run_suite(s);
}
