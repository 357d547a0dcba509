/*
 * test_wakes.c: deferred wakes and batched sends (runtime/core/actor.c "Deferred
 * wakes", ona_ctx_send_many). A send inside a turn wakes a parked receiver only when the turn
 * ends, parks or finds a mailbox full; a receiver wakes its parked senders every capacity/2
 * messages and when its turn ends. These tests check that no such wake is lost however the
 * sender's turn ends (it raises, asks for its own end, is interrupted by the watchdog, is a native
 * system returning an error), that fan-in through a tiny mailbox delivers everything in order
 * per sender on 1 and 2 threads, and that ona_ctx_send_many keeps order, moves exactly the
 * messages it reports as sent, leaves the rest with the caller, and refuses what it must.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/wakes", NULL};

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

/* `budget_ms` 0: the runtime's default turn budget. Only the watchdog test sets one (short enough
 * to interrupt the hog soon, long enough that a spawn's chunk under a sanitizer on a loaded
 * machine stays inside its ten times longer budget). */
static ona_runtime *open_runtime(uint32_t threads, uint32_t budget_ms) {
    /* Wakes are immediate delivery's: ordered delivery never waits within a frame. */
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .turn_budget_ms = budget_ms,
                             .delivery = ONA_DELIVERY_IMMEDIATE};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    return rt;
}

/* The first thing the receiver reported must be `value` (a lost wake makes it "nil": the frame
 * went quiet with the message in its mailbox). */
static void assert_received(double value, uint32_t threads, const char *how) {
    ck_assert_msg(coll->count >= 1, "nothing reported (%s, threads = %u); log:\n%s", how, threads,
                  captured_logs_text());
    item *first = &coll->items[0];
    ck_assert_msg(first->type == ONA_VALUE_NUMBER && first->number == value,
                  "the receiver got %s instead of %g (%s, threads = %u): a deferred wake was lost",
                  first->type == ONA_VALUE_STRING ? first->text : "something else", value, how,
                  threads);
}

/* A Lua sender sends to a receiver parked in ona.receive, then its turn ends as `how` says. */
static void check_lua_sender(uint32_t threads, const char *how, double value) {
    ona_runtime *rt = open_runtime(threads, strcmp(how, "hog") == 0 ? 500 : 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "receiver.lua", "receiver", report, "", 0, 0);
    char pairs[128];
    snprintf(pairs, sizeof pairs, "target=receiver how=%s value=%g", how, value);
    ona_system none = {0};
    spawn_lua(rt, "sender.lua", "sender", none, pairs, 0, ONA_POLICY_STOP);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    assert_received(value, threads, how);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_wake_survives_sender_error) {
    check_lua_sender(1, "error", 41);
    check_lua_sender(2, "error", 41);
    ck_assert(captured_logs_contain("raised after a send"));
}
END_TEST

START_TEST(test_wake_survives_sender_kill) {
    check_lua_sender(1, "kill", 42);
    check_lua_sender(2, "kill", 42);
}
END_TEST

START_TEST(test_wake_survives_watchdog) {
    check_lua_sender(1, "hog", 43);
    check_lua_sender(2, "hog", 43);
}
END_TEST

/* A native system that sends one number to "receiver" in its first turn and then fails. */
static int failing_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    int *done = state;
    if (*done)
        return 0;
    *done = 1;
    ona_system to;
    ck_assert_int_eq(ona_ctx_lookup(ctx, "receiver", &to), 0);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, 44);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_ctx_try_send(ctx, to, &m), 0);
    return 1; /* fails the turn after the send */
}

START_TEST(test_wake_survives_native_failure) {
    for (uint32_t threads = 1; threads <= 2; threads++) {
        ona_runtime *rt = open_runtime(threads, 0);
        ona_system report = spawn_collector(rt);
        spawn_lua(rt, "receiver.lua", "receiver", report, "", 0, 0);
        ona_system_desc d = {.name = "failing",
                             .size = sizeof(int),
                             .process = failing_process,
                             .policy = ONA_POLICY_STOP};
        ona_system h;
        ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        assert_received(44, threads, "native failure");
        ona_runtime_destroy(rt);
        collector_free();
    }
}
END_TEST

/* Four senders, 300 numbers each, into a mailbox of 4 (senders park after every few sends and
 * are woken in batches): everything arrives in the frame, in order per sender. */
START_TEST(test_fan_in_tiny_mailbox) {
    for (uint32_t threads = 1; threads <= 2; threads++) {
        ona_runtime *rt = open_runtime(threads, 0);
        ona_system report = spawn_collector(rt);
        spawn_lua(rt, "fan_receiver.lua", "receiver", report, "", 4, 0);
        ona_system none = {0};
        for (int i = 1; i <= 4; i++) {
            char pairs[96], name[16];
            snprintf(pairs, sizeof pairs, "target=receiver index=%d count=300", i);
            snprintf(name, sizeof name, "sender%d", i);
            spawn_lua(rt, "fan_sender.lua", name, none, pairs, 0, 0);
        }
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_msg(coll->count >= 2, "no report (threads = %u); log:\n%s", threads,
                      captured_logs_text());
        ck_assert_int_eq(coll->items[0].type, ONA_VALUE_NUMBER);
        ck_assert_msg(coll->items[0].number == 1200, "%g of 1200 in the first frame (threads %u)",
                      coll->items[0].number, threads);
        ck_assert_msg(coll->items[1].number == 0, "%g out of order", coll->items[1].number);
        ona_runtime_destroy(rt);
        collector_free();
    }
}
END_TEST

/* --- ona_ctx_send_many ------------------------------------------------------------------------ */

enum { BATCH = 12, SINK_CAPACITY = 8 };

typedef struct many_run {
    ona_system sink;
    int frame;
    ona_message msgs[BATCH];
    uint32_t next;     /* the first message not sent yet */
    uint32_t sent0;    /* how many the first call sent */
    int rc0, rc_last;  /* what the first and the last call returned */
    bool left_intact;  /* after the first call, the unsent messages still held their numbers */
    bool sent_emptied; /* after the first call, the sent ones were empty again */
    int refusals_ok;
    double got[64];
    uint64_t from[64];
    int got_count;
} many_run;

static void write_number(ona_message *m, double v) {
    ona_message_init(m);
    ona_message_writer w;
    ona_message_writer_begin(&w, m);
    ona_message_write_number(&w, v);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
}

static double first_number(ona_message *m) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    if (ona_message_read(&r, &v) != 0 || v.type != ONA_VALUE_NUMBER)
        return -1;
    return v.as.number;
}

/* First turn: sends 0..11 into the sink's empty mailbox of 8 (one reservation: exactly 8 go),
 * checks what was moved and what was left, and the refusals. Later turns send what is left. */
static int many_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    many_run *r = ona_ctx_user(ctx);
    if (r->frame++ == 0) {
        for (int i = 0; i < BATCH; i++)
            write_number(&r->msgs[i], i);
        uint32_t sent = 99;
        r->rc0 = r->rc_last = ona_ctx_send_many(ctx, r->sink, r->msgs, BATCH, &sent);
        r->sent0 = sent;
        r->next = sent;
        r->sent_emptied = true;
        for (uint32_t i = 0; i < sent && i < BATCH; i++)
            if (r->msgs[i].size != 0)
                r->sent_emptied = false;
        r->left_intact = true;
        for (uint32_t i = sent; i < BATCH; i++)
            if (first_number(&r->msgs[i]) != (double)i)
                r->left_intact = false;
        /* Refusals: nothing sent, nothing touched. */
        ona_system stale = {0};
        uint32_t n = 7;
        if (r->next < BATCH &&
            ona_ctx_send_many(ctx, stale, &r->msgs[r->next], 1, &n) == ONA_ESTALE && n == 0 &&
            first_number(&r->msgs[r->next]) == r->next)
            r->refusals_ok++;
        n = 7;
        if (ona_ctx_send_many(ctx, r->sink, NULL, 1, &n) == ONA_EINVAL && n == 0)
            r->refusals_ok++;
        if (ona_ctx_send_many(ctx, r->sink, r->msgs, 1, NULL) == ONA_EINVAL)
            r->refusals_ok++;
        n = 7;
        if (ona_ctx_send_many(ctx, r->sink, r->msgs, 0, &n) == 0 && n == 0)
            r->refusals_ok++;
    } else if (r->next < BATCH) {
        uint32_t sent = 0;
        r->rc_last = ona_ctx_send_many(ctx, r->sink, &r->msgs[r->next], BATCH - r->next, &sent);
        r->next += sent;
    }
    return 0;
}

static int sink_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    many_run *r = ona_ctx_user(ctx);
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0 && r->got_count < 64) {
        r->from[r->got_count] = ona_message_sender(m);
        r->got[r->got_count++] = first_number(m);
    }
    return 0;
}

START_TEST(test_send_many_order_ownership_partial) {
    for (uint32_t threads = 1; threads <= 2; threads++) {
        ona_runtime *rt = open_runtime(threads, 0);
        many_run *r = calloc(1, sizeof *r);
        /* The sender is spawned first, so in each frame it sends before the sink drains. */
        ona_system_desc sd = {.name = "many", .process = many_process, .user = r};
        ona_system sender;
        ck_assert_int_eq(ona_runtime_spawn_native(rt, &sd, &sender), 0);
        ona_system_desc kd = {
            .name = "sink", .process = sink_process, .user = r, .mailbox_capacity = SINK_CAPACITY};
        ck_assert_int_eq(ona_runtime_spawn_native(rt, &kd, &r->sink), 0);
        for (int i = 0; i < 6; i++)
            ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_int_eq(r->rc0, ONA_EFULL);
        ck_assert_uint_eq(r->sent0, SINK_CAPACITY);
        ck_assert(r->sent_emptied);
        ck_assert(r->left_intact);
        ck_assert_int_eq(r->refusals_ok, 4);
        ck_assert_int_eq(r->rc_last, 0);
        ck_assert_uint_eq(r->next, BATCH);
        ck_assert_int_eq(r->got_count, BATCH);
        for (int i = 0; i < BATCH; i++) {
            ck_assert_msg(r->got[i] == i, "message %d is %g", i, r->got[i]);
            ck_assert_uint_eq(r->from[i], sender.id);
        }
        ona_system_stats st;
        ck_assert_int_eq(ona_runtime_system_stats(rt, sender, &st), 0);
        ck_assert_uint_eq(st.messages_out, BATCH);
        ona_runtime_destroy(rt);
        free(r);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("wakes");
    TCase *tc = tcase_create("wakes");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_wake_survives_sender_error);
    tcase_add_test(tc, test_wake_survives_sender_kill);
    tcase_add_test(tc, test_wake_survives_watchdog);
    tcase_add_test(tc, test_wake_survives_native_failure);
    tcase_add_test(tc, test_fan_in_tiny_mailbox);
    tcase_add_test(tc, test_send_many_order_ownership_partial);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
