/*
 * test_lifecycle.c: regression tests for the actor lifecycle, through the public API and Lua
 * scripts only (tests/lua/lifecycle/): killing systems wherever they stand (parked in send,
 * parked in receive, mid-turn, while a hot reload is due, at runtime destroy), one-shot scripts
 * freeing their slots, handles that stay stale forever, a main.lua that fills max_systems,
 * deadlock cycles and backpressure, and scheduler behaviours that a plausible mutation of
 * scheduler.c, runtime.c or l_ona.c would break (each test names the mutation it guards).
 *
 * Design note. Most cases come from a reproducer of a reliability review
 * (/work/shared/repro/games: kill_parked_sender, oneshot_leak, handle_wrap, thousands, deadlock,
 * backpressure) and assert the correct behaviour, not the reviewed one. Cases whose
 * outcome could depend on the thread count run with 1 thread and again with 2 and 4. The native
 * collector (test_support.c) records what the Lua systems report; it is read only after
 * ona_runtime_step returned. Loops of thousands of frames use plain `if` + ck_abort_msg in the
 * loop body: Check's passing assertions record a location each time, which costs more than the
 * frame itself.
 */
#include "test_support.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/lifecycle", NULL};

static ona_runtime *make_runtime_with(ona_runtime_desc desc) {
    desc.script_roots = roots;
    desc.video = ONA_VIDEO_NONE;
    ona_runtime *rt = NULL;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "create: %s; log:\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

static ona_runtime *make_runtime(uint32_t threads) {
    return make_runtime_with((ona_runtime_desc){.threads = threads});
}

/* For what only immediate delivery does: waits and wakes within a frame, steals of woken turns. */
static ona_runtime *make_runtime_immediate(uint32_t threads) {
    return make_runtime_with(
        (ona_runtime_desc){.threads = threads, .delivery = ONA_DELIVERY_IMMEDIATE});
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

/* The index of the `nth` (from 0) collector item that is the string `tag`, or -1. */
static int find_tag(const char *tag, int nth) {
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0 &&
            nth-- == 0)
            return i;
    return -1;
}

static int count_tag(const char *tag) {
    int n = 0;
    while (find_tag(tag, n) >= 0)
        n++;
    return n;
}

/* The index of the first item `tag` whose next item is the string `name`, or -1. */
static int find_tag_name(const char *tag, const char *name) {
    for (int i = 0; find_tag(tag, i) >= 0; i++) {
        int at = find_tag(tag, i);
        if (at + 1 < coll->count && coll->items[at + 1].type == ONA_VALUE_STRING &&
            strcmp(coll->items[at + 1].text, name) == 0)
            return at;
    }
    return -1;
}

static int count_tag_name(const char *tag, const char *name) {
    int n = 0;
    for (int i = 0; find_tag(tag, i) >= 0; i++) {
        int at = find_tag(tag, i);
        if (at + 1 < coll->count && coll->items[at + 1].type == ONA_VALUE_STRING &&
            strcmp(coll->items[at + 1].text, name) == 0)
            n++;
    }
    return n;
}

/* The number item `offset` places after the `nth` item `tag` (the test fails if absent). */
static double number_after(const char *tag, int nth, int offset) {
    int at = find_tag(tag, nth);
    ck_assert_msg(at >= 0 && at + offset < coll->count, "no item %d after '%s' #%d; log:\n%s",
                  offset, tag, nth, captured_logs_text());
    ck_assert_int_eq(coll->items[at + offset].type, ONA_VALUE_NUMBER);
    return coll->items[at + offset].number;
}

static void assert_stale(ona_runtime *rt, ona_system h, const char *what) {
    ona_system_stats st;
    int rc = ona_runtime_system_stats(rt, h, &st);
    ck_assert_msg(rc == ONA_ESTALE, "%s (handle %llu): stats returned %s, not ONA_ESTALE", what,
                  (unsigned long long)h.id, rc ? ona_strerror(rc) : "0 (it resolves)");
    ona_message m;
    ona_message_init(&m);
    rc = ona_runtime_send(rt, h, &m);
    ck_assert_msg(rc == ONA_ESTALE, "%s: send returned %s, not ONA_ESTALE", what,
                  rc ? ona_strerror(rc) : "0 (delivered)");
    ona_message_release(&m);
}

static ona_system_stats stats_of(ona_runtime *rt, ona_system h) {
    ona_system_stats st;
    int rc = ona_runtime_system_stats(rt, h, &st);
    ck_assert_msg(rc == 0, "stats of %llu: %s", (unsigned long long)h.id, ona_strerror(rc));
    return st;
}

/* Kills every live system but `keep` and steps once, so that their exit callbacks run at a
 * frame boundary (where they may still message `keep`), then destroys the runtime. Tests whose
 * surviving systems report from exit use it: ona_runtime_destroy itself is covered apart, by
 * test_lifecycle_exit_at_destroy_messages_safely. */
static void shutdown_keeping(ona_runtime *rt, ona_system keep) {
    ona_system live[64];
    uint32_t n = ona_runtime_systems(rt, live, 64);
    ck_assert_uint_le(n, 64);
    for (uint32_t i = 0; i < n; i++)
        if (live[i].id != keep.id)
            ck_assert_int_eq(ona_runtime_kill(rt, live[i]), 0);
    step(rt, 1);
    ona_runtime_destroy(rt);
}

static const uint32_t thread_counts[] = {1, 2, 4};
enum { THREAD_COUNTS = sizeof thread_counts / sizeof thread_counts[0] };

/* --- 1. Killing around a blocked send -------------------------------------------------------- */

/* The reviewed bug: the killed sender was freed while still on the receiver's waiter list, and
 * the receiver's next pop walked into freed memory (heap-use-after-free under ASan, SIGSEGV in
 * release). The gate takes nothing before frame 5, so the sender fills its mailbox in frame 1
 * and stays parked; it is killed in frame 2 (from C after the frame, or from Lua in it); the
 * gate then drains. */
static void kill_parked_sender(uint32_t threads, bool from_lua) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system bystander = spawn_lua(rt, "ticker.lua", "bystander", none, "", 0, 0);
    ona_system gate = spawn_lua(rt, "gate.lua", "gate", report, "open_at=5", 1, 0);
    ona_system sender = spawn_lua(rt, "blocking_sender.lua", "sender", report, "to=gate", 0, 0);
    if (from_lua)
        spawn_lua(rt, "killer.lua", "killer", report, "victim=sender at=2", 0, 0);
    step(rt, 2);
    ck_assert_msg(stats_of(rt, sender).parks > 0, "the sender never parked");
    if (!from_lua)
        ck_assert_int_eq(ona_runtime_kill(rt, sender), 0);
    step(rt, 6);

    assert_stale(rt, sender, "the killed sender");
    ona_system found;
    ck_assert_int_eq(ona_runtime_lookup(rt, "sender", &found), ONA_ENOENT);
    ck_assert_msg(count_tag_name("exit", "sender") == 1, "exit ran %d times; log:\n%s",
                  count_tag_name("exit", "sender"), captured_logs_text());
    /* The gate got what the sender had put in its mailbox before it was killed, in order, and
     * nothing of the send that was parked. */
    ona_system_stats st = stats_of(rt, gate);
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_eq(st.turns, 8);
    ck_assert_int_eq(count_tag("got"), (int)st.mailbox_capacity);
    for (int i = 0; i < count_tag("got"); i++) {
        ck_assert(number_after("got", i, 1) == i + 1);
        ck_assert(number_after("got", i, 2) == 5);
    }
    ck_assert_uint_eq(stats_of(rt, bystander).turns, 8);
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.frames, 8);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_kill_parked_sender) {
    for (int i = 0; i < THREAD_COUNTS; i++) {
        kill_parked_sender(thread_counts[i], false);
        kill_parked_sender(thread_counts[i], true);
    }
}
END_TEST

/* Three senders park on the full mailbox of a receiver that never receives; the receiver is
 * killed. Each sender's ona.send must then fail with an error naming the receiver, and the
 * senders go on with their next turns. */
static void kill_receiver_of_parked_senders(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    ona_system deaf = spawn_lua(rt, "gate.lua", "deaf_receiver", report, "", 1, 0);
    const char *names[] = {"s1", "s2", "s3"};
    ona_system senders[3];
    for (int i = 0; i < 3; i++)
        senders[i] =
            spawn_lua(rt, "blocking_sender.lua", names[i], report, "to=deaf_receiver", 0, 0);
    step(rt, 2);
    ck_assert_int_eq(count_tag("send failed"), 0);
    ck_assert_int_eq(ona_runtime_kill(rt, deaf), 0);
    step(rt, 4);

    assert_stale(rt, deaf, "the killed receiver");
    for (int i = 0; i < 3; i++) {
        int at = find_tag_name("send failed", names[i]);
        ck_assert_msg(at >= 0 && at + 2 < coll->count, "%s's send did not fail; log:\n%s", names[i],
                      captured_logs_text());
        ck_assert_msg(count_tag_name("send failed", names[i]) == 1, "%s failed %d times", names[i],
                      count_tag_name("send failed", names[i]));
        const char *err = coll->items[at + 2].text;
        ck_assert_msg(strstr(err, "deaf_receiver") != NULL,
                      "%s's send error does not name the receiver: \"%s\"", names[i], err);
        /* The sender keeps running: its turns after the failed one report "alive". */
        ona_system_stats st = stats_of(rt, senders[i]);
        ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
        ck_assert_uint_eq(st.errors, 0);
        ck_assert_int_ge(count_tag_name("alive", names[i]), 2);
    }
    shutdown_keeping(rt, report);
    collector_free();
}

START_TEST(test_lifecycle_kill_receiver_fails_parked_sends_by_name) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        kill_receiver_of_parked_senders(thread_counts[i]);
}
END_TEST

/* --- 2. Killing in receive, mid-turn, and during a reload ------------------------------------ */

/* The listener waits in receive each turn; the killer kills it in frame 2 (with 1 thread, while
 * it is parked: the killer's turn runs after the listener's). Its turn still ends normally
 * (nil at quiescence), exit runs once, and the frames after go on without it. */
static void kill_parked_receiver(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system listener = spawn_lua(rt, "listener.lua", "listener", report, "", 0, 0);
    spawn_lua(rt, "killer.lua", "killer", report, "victim=listener at=2", 0, 0);
    ona_system bystander = spawn_lua(rt, "ticker.lua", "bystander", none, "", 0, 0);
    step(rt, 6);

    assert_stale(rt, listener, "the killed listener");
    ck_assert_int_eq(count_tag("killed"), 1);
    ck_assert(coll->items[find_tag("killed", 0) + 1].boolean);
    ck_assert_int_eq(count_tag("waiting"), 2);
    ck_assert_int_eq(count_tag("woke"), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert(number_after("woke", i, 1) == i + 1);
        ck_assert(coll->items[find_tag("woke", i) + 2].boolean);
    }
    ck_assert_int_eq(count_tag("exit"), 1);
    ck_assert_uint_eq(stats_of(rt, bystander).turns, 6);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_kill_parked_receiver) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        kill_parked_receiver(thread_counts[i]);
}
END_TEST

/* A system kills itself in its second turn and goes on with that turn (it even parks in receive
 * after the kill): the kill takes effect at the frame boundary, so the rest of the turn runs,
 * exit runs once, and there is no third turn. */
static void kill_self_mid_turn(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system victim = spawn_lua(rt, "suicide.lua", "suicide", report, "at=2", 0, 0);
    ona_system bystander = spawn_lua(rt, "ticker.lua", "bystander", none, "", 0, 0);
    step(rt, 5);

    assert_stale(rt, victim, "the system that killed itself");
    const char *expected[] = {"turn", "turn", "killed self", "still going", "exit"};
    int at = 0;
    for (int i = 0; i < 5; i++) {
        ck_assert_msg(at < coll->count, "only %d items; log:\n%s", coll->count,
                      captured_logs_text());
        ck_assert_str_eq(coll->items[at].text, expected[i]);
        at += strcmp(expected[i], "exit") == 0 ? 1 : 2;
    }
    ck_assert_int_eq(at, coll->count);
    ck_assert(number_after("turn", 1, 1) == 2);
    ck_assert(coll->items[find_tag("killed self", 0) + 1].boolean);
    ck_assert(coll->items[find_tag("still going", 0) + 1].boolean);
    ck_assert_uint_eq(stats_of(rt, bystander).turns, 5);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_kill_self_mid_turn) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        kill_self_mid_turn(thread_counts[i]);
}
END_TEST

/* Three systems run reloadable.lua: r1 is killed from C and r3 kills itself, both in the frame
 * after which a reload of the script is requested, so the kills and the reload meet at the same
 * boundary. The killed ones exit once and are not reloaded; r2 is reloaded once and goes on. */
static void kill_during_reload(uint32_t threads) {
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = threads, .hot_reload = true});
    ona_system report = spawn_collector(rt);
    ona_system r1 = spawn_lua(rt, "reloadable.lua", "r1", report, "", 0, 0);
    ona_system r2 = spawn_lua(rt, "reloadable.lua", "r2", report, "", 0, 0);
    ona_system r3 = spawn_lua(rt, "reloadable.lua", "r3", report, "die_at=2", 0, 0);
    step(rt, 2);
    ck_assert_int_eq(ona_runtime_kill(rt, r1), 0);
    ck_assert_int_eq(ona_runtime_reload(rt, "reloadable.lua"), 0);
    step(rt, 3);

    assert_stale(rt, r1, "r1, killed from C");
    assert_stale(rt, r3, "r3, killed by itself");
    ck_assert_int_eq(count_tag_name("exit", "r1"), 1);
    ck_assert_int_eq(count_tag_name("exit", "r3"), 1);
    ck_assert_int_eq(count_tag_name("exit", "r2"), 0);
    ck_assert_int_eq(count_tag_name("reloaded", "r1"), 0);
    ck_assert_int_eq(count_tag_name("reloaded", "r3"), 0);
    ck_assert_msg(count_tag_name("reloaded", "r2") == 1, "r2 reloaded %d times; log:\n%s",
                  count_tag_name("reloaded", "r2"), captured_logs_text());
    ona_system_stats st = stats_of(rt, r2);
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_eq(st.turns, 5);
    shutdown_keeping(rt, report);
    collector_free();
}

START_TEST(test_lifecycle_kill_during_reload) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        kill_during_reload(thread_counts[i]);
}
END_TEST

/* ona_runtime_destroy calls exit() on every live system in spawn order. The reviewed code freed
 * each system right after its exit while the handle registry still pointed at it, so an exit
 * that messaged an earlier system (here the collector, which every test spawns first) read and
 * wrote freed memory (heap-use-after-free under ASan, found by test_lifecycle_kill_during_reload
 * before it used shutdown_keeping). Such a send may fail or succeed, but must be safe: this test
 * fails under ASan, or with a crash. */
static void exit_at_destroy(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "farewell.lua", "farewell", report, "", 0, 0);
    spawn_lua(rt, "farewell.lua", "farewell2", report, "", 0, 0);
    step(rt, 2);
    ck_assert_int_eq(count_tag("bye"), 0);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_exit_at_destroy_messages_safely) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        exit_at_destroy(thread_counts[i]);
}
END_TEST

/* --- 3. One-shots free their slots ----------------------------------------------------------- */

/* The reviewed bug: a one-shot script (and any stopped system) kept its slot for good, so
 * spawning failed after max_systems of them. 20,000 one-shots, 4 a frame, with max_systems 8. */
static void oneshots_from_c(uint32_t threads) {
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = threads, .max_systems = 8});
    ona_system first = {0};
    int spawned = 0;
    for (int frame = 0; frame < 5000; frame++) {
        for (int k = 0; k < 4; k++) {
            ona_spawn_desc d = {.script = "oneshot.lua"};
            ona_system h;
            int rc = ona_runtime_spawn(rt, &d, &h);
            if (rc)
                ck_abort_msg("one-shot spawn #%d (frame %d) failed: %s; log:\n%s", spawned + 1,
                             frame, ona_strerror(rc), captured_logs_text());
            if (spawned++ == 0)
                first = h;
        }
        if (ona_runtime_step(rt, 1.0 / 60) != 0)
            ck_abort_msg("step failed");
    }
    ck_assert_int_eq(spawned, 20000);
    /* Its slot was reused thousands of times since: the first one-shot's handle is stale. */
    assert_stale(rt, first, "the first one-shot");
    ona_runtime_destroy(rt);
}

START_TEST(test_lifecycle_oneshots_free_their_slots) {
    oneshots_from_c(1);
    oneshots_from_c(2);
}
END_TEST

/* The same from Lua: a spawner system spawns 4 one-shots each frame, 4,000 in all, with
 * max_systems 8 (the collector and the spawner hold two). */
static void oneshots_from_lua(uint32_t threads) {
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = threads, .max_systems = 8});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "oneshot_spawner.lua", "spawner", report, "per_frame=4 total=4000", 0, 0);
    step(rt, 1003);
    int failed = find_tag("spawn failed", 0);
    ck_assert_msg(failed < 0, "spawning from Lua failed after %g one-shots: %s",
                  failed >= 0 ? coll->items[failed + 1].number : 0,
                  failed >= 0 ? coll->items[failed + 2].text : "");
    ck_assert_int_eq(count_tag("done"), 1);
    ck_assert(number_after("done", 0, 1) == 4000);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_oneshots_spawned_from_lua_free_their_slots) {
    oneshots_from_lua(1);
    oneshots_from_lua(2);
}
END_TEST

/* --- 4. A stale handle stays stale ----------------------------------------------------------- */

static int noop_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx, (void)state, (void)dt;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The reviewed bug: with a 16-bit generation per slot, after 65,535 reuses of a slot an old
 * handle resolved to whatever system held the slot then. One slot, killed and refilled 200,000
 * times: the first handle never resolves again, and no handle is ever handed out twice. */
/* A million short-lived systems in a loop (1,000,000 one-shot spawns). A Lua
 * one-shot costs a whole lua_State (~80 us in release, far more under the sanitizers), so the
 * million is made of native systems that end themselves in their first turn, 8 a frame with
 * max_systems 16: every spawn must succeed, so each ended system's slot came back. The Lua
 * one-shots' own path is the 20,000 above. */
static int end_self_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    return ona_ctx_kill(ctx, ona_ctx_self(ctx));
}

START_TEST(test_lifecycle_million_short_lived_systems) {
    enum { TOTAL = 1000000, PER_FRAME = 8 };
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = 1, .max_systems = 16});
    ona_system_desc d = {.name = "mayfly", .process = end_self_process};
    for (int spawned = 0; spawned < TOTAL;) {
        for (int i = 0; i < PER_FRAME; i++, spawned++) {
            ona_system h;
            int rc = ona_runtime_spawn_native(rt, &d, &h);
            if (rc)
                ck_abort_msg("spawn #%d failed: %s", spawned + 1, ona_strerror(rc));
        }
        /* Their turn (they ask for their end); the next step's boundary frees them, so 8 ending
         * and 8 new ones fill max_systems exactly. */
        if (ona_runtime_step(rt, 1.0 / 60) != 0)
            ck_abort_msg("step failed");
    }
    ona_runtime_step(rt, 1.0 / 60);
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    ck_assert_uint_eq(st.systems, 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_lifecycle_stale_handle_stays_stale) {
    enum { CYCLES = 200000 };
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = 1, .max_systems = 1});
    ona_system_desc d = {.name = "churn", .process = noop_process};
    uint64_t *ids = malloc((CYCLES + 1) * sizeof *ids);
    ck_assert_ptr_nonnull(ids);
    ona_system first;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &first), 0);
    ids[0] = (uint64_t)first.id;
    ona_system cur = first;
    ona_message m;
    ona_message_init(&m);
    for (int i = 1; i <= CYCLES; i++) {
        if (ona_runtime_kill(rt, cur) != 0)
            ck_abort_msg("kill #%d failed", i);
        if (ona_runtime_step(rt, 1.0 / 60) != 0)
            ck_abort_msg("step failed");
        int rc = ona_runtime_spawn_native(rt, &d, &cur);
        if (rc)
            ck_abort_msg("spawn #%d failed: %s", i, ona_strerror(rc));
        ids[i] = (uint64_t)cur.id;
        ona_system_stats st;
        rc = ona_runtime_system_stats(rt, first, &st);
        if (rc != ONA_ESTALE)
            ck_abort_msg("after %d respawns the first handle %llu resolves again (stats: %s, "
                         "now handle %llu)",
                         i, (unsigned long long)first.id, rc ? ona_strerror(rc) : "0",
                         (unsigned long long)cur.id);
        rc = ona_runtime_send(rt, first, &m);
        if (rc != ONA_ESTALE)
            ck_abort_msg("after %d respawns a send to the first handle returned %s", i,
                         rc ? ona_strerror(rc) : "0 (delivered)");
    }
    ona_message_release(&m);
    qsort(ids, CYCLES + 1, sizeof *ids, cmp_u64);
    for (int i = 1; i <= CYCLES; i++)
        if (ids[i] == ids[i - 1])
            ck_abort_msg("handle %llu was handed out twice", (unsigned long long)ids[i]);
    free(ids);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- 5. A main.lua that fills max_systems ---------------------------------------------------- */

/* The reviewed bug: a one-shot main.lua spawning until max_systems was itself refused a slot
 * after its chunk ran (ona_runtime_spawn returned ONA_ELIMIT, the launcher said "did not
 * start"). The main must start, the spawn that fails must say nil + a reason naming
 * max_systems and its value, and the chunk must run to its end. */
static void main_fills_max_systems(uint32_t threads) {
    ona_runtime *rt = make_runtime_with((ona_runtime_desc){.threads = threads, .max_systems = 8});
    ona_system report = spawn_collector(rt);
    ona_message args = make_args(report, "limit=100");
    ona_spawn_desc d = {.script = "fill.lua", .name = "main", .args = &args};
    ona_system main_h;
    int rc = ona_runtime_spawn(rt, &d, &main_h);
    ck_assert_msg(rc == 0, "the main did not start: %s; log:\n%s", ona_strerror(rc),
                  captured_logs_text());
    step(rt, 2);
    ck_assert_msg(count_tag("filled") == 1, "log:\n%s", captured_logs_text());
    int at = find_tag("filled", 0);
    /* 8 slots: the collector's, the main's own while its chunk runs (or not, if one-shots take
     * none), and the idle systems'. */
    double count = number_after("filled", 0, 1);
    ck_assert_msg(count >= 6 && count <= 7, "spawned %g idle systems", count);
    const char *reason = coll->items[at + 2].text;
    ck_assert_msg(strstr(reason, "max_systems") && strstr(reason, "8"),
                  "the refusal does not name max_systems (8): \"%s\"", reason);
    ck_assert_int_eq(count_tag("done"), 1);
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.systems, 1 + (uint32_t)count);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_main_filling_max_systems_starts) {
    main_fills_max_systems(1);
    main_fills_max_systems(2);
}
END_TEST

/* --- 6. Scheduler behaviours, each guarding against a mutation ------------------------------- */

/* Work stealing. The fanout's sends wake eight parked burners onto its thread's deque; the
 * other thread must steal some of them. Guards against: find_work losing its steal loop (or
 * not counting steals), and the wake-up of a sleeper when a deque holds more than one turn.
 * Whatever the timing, every burner gets exactly one message a frame. */
START_TEST(test_lifecycle_work_is_stolen) {
    enum { FRAMES = 30, BURNERS = 8 };
    ona_runtime *rt = make_runtime_immediate(2);
    ona_system none = {0};
    ona_system burners[BURNERS];
    for (int i = 0; i < BURNERS; i++) {
        char name[8];
        snprintf(name, sizeof name, "w%d", i + 1);
        burners[i] = spawn_lua(rt, "burner.lua", name, none, "work=200000", 0, 0);
    }
    spawn_lua(rt, "fanout.lua", "fanout", none, "n=8", 0, 0);
    step(rt, FRAMES);
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.threads, 2);
    ck_assert_msg(rs.steals > 0, "no turn was stolen in %d frames", FRAMES);
    for (int i = 0; i < BURNERS; i++)
        ck_assert_uint_eq(stats_of(rt, burners[i]).messages_in, FRAMES);
    ona_runtime_destroy(rt);
}
END_TEST

/* A sender parked on a full mailbox is woken when the receiver pops, in the same frame: a burst
 * of 20 messages into a mailbox of 2 is received whole in frame 1. Guards against: the pop not
 * waking a waiting sender (ona__scheduler_after_pop), which leaves the sender parked until the
 * next frame's start and spreads the burst over ~10 frames. */
static void parked_sender_woken_same_frame(uint32_t threads) {
    ona_runtime *rt = make_runtime_immediate(threads);
    ona_system report = spawn_collector(rt);
    ona_system drain = spawn_lua(rt, "drain.lua", "drain", report, "", 1, 0);
    ona_system burst = spawn_lua(rt, "burst.lua", "burst", report, "to=drain n=20", 0, 0);
    step(rt, 3);
    ck_assert_uint_lt(stats_of(rt, drain).mailbox_capacity, 20);
    ck_assert_msg(count_tag("got") == 20, "got %d; log:\n%s", count_tag("got"),
                  captured_logs_text());
    for (int i = 0; i < 20; i++) {
        ck_assert(number_after("got", i, 1) == i + 1);
        ck_assert_msg(number_after("got", i, 2) == 1, "message %d received in frame %g", i + 1,
                      number_after("got", i, 2));
    }
    ck_assert(number_after("burst done", 0, 1) == 1);
    ck_assert_uint_gt(stats_of(rt, burst).parks, 0);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_parked_sender_woken_in_the_same_frame) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        parked_sender_woken_same_frame(thread_counts[i]);
}
END_TEST

/* "nil once per frame": a turn that loops on ona.receive() until it got nil twice finishes
 * each frame, parking once: the first receive parks and gets nil at quiescence, the second
 * returns nil at once. Guards against: receive ignoring nil_this_frame (it parks again, and a
 * loop that never breaks would never end: 2 parks a frame here), and the flag not being reset
 * at frame start (receive would stop parking after frame 1: fewer parks). */
static void nil_once_per_frame(uint32_t threads) {
    enum { FRAMES = 5 };
    ona_runtime *rt = make_runtime_immediate(threads);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system sys = spawn_lua(rt, "nil_twice.lua", "nil_twice", report, "", 0, 0);
    spawn_lua(rt, "ticker.lua", "bystander", none, "", 0, 0);
    step(rt, FRAMES);
    ck_assert_int_ge(count_tag("finished"), FRAMES - 1); /* the last may still be queued */
    for (int i = 0; i < count_tag("finished"); i++) {
        ck_assert(number_after("finished", i, 1) == i + 1);
        ck_assert(number_after("finished", i, 2) == 2);
    }
    ona_system_stats st = stats_of(rt, sys);
    ck_assert_uint_eq(st.turns, FRAMES);
    ck_assert_uint_eq(st.parks, FRAMES);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_receive_gives_nil_once_per_frame) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        nil_once_per_frame(thread_counts[i]);
}
END_TEST

/* Restart backoff doubles. With runtime.c's semantics (apply_failure): a system that fails in
 * frame F sits out `restart_backoff_frames << restarts_so_far` frames and runs init again in the
 * frame after those, so with a base of 1 init runs in frames 1, 3, 6, 11 (1, 2, 4 frames sat
 * out) and the system stops after restart_limit (3) restarts. Guards against: a backoff that
 * does not double (1, 3, 5, 7), that ignores the desc's base, or a restart limit off by one. */
static void backoff_doubles(uint32_t threads, uint32_t base) {
    ona_runtime *rt = make_runtime_with(
        (ona_runtime_desc){.threads = threads, .restart_backoff_frames = base, .restart_limit = 3});
    ona_system report = spawn_collector(rt);
    ona_system sys = spawn_lua(rt, "bad_init.lua", "bad_init", report, "", 0, 0);
    step(rt, 1 + 3 + 7 * (int)base + 5);
    ck_assert_msg(count_tag("init") == 4, "init ran %d times; log:\n%s", count_tag("init"),
                  captured_logs_text());
    double expected = 1;
    for (int k = 0; k < 4; k++) {
        ck_assert_msg(number_after("init", k, 1) == expected, "init #%d ran in frame %g, not %g",
                      k + 1, number_after("init", k, 1), expected);
        expected += 1 + (double)(base << k);
    }
    char text[64];
    for (int k = 0; k < 3; k++) {
        uint32_t frames = base << k;
        snprintf(text, sizeof text, "restarting in %u frame%s", frames, frames == 1 ? "" : "s");
        ck_assert_msg(captured_logs_contain(text), "no \"%s\" in:\n%s", text, captured_logs_text());
    }
    /* Past its limit it stops, and ends at that boundary: its handle is stale from then on. */
    ck_assert(captured_logs_contain("bad_init: stopped (it failed past its restart limit)"));
    assert_stale(rt, sys, "bad_init, stopped");
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_restart_backoff_doubles) {
    backoff_doubles(1, 1);
    backoff_doubles(2, 1);
    backoff_doubles(1, 2);
}
END_TEST

/* --- Deadlocks and backpressure (the deadlock and backpressure reproducers) ------------------- */

/* A 3-cycle and a system filling its own mailbox: both are reported by name, each member's send
 * fails (caught with pcall), and a bystander is not held up. */
static void deadlock_cycles(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    ona_system bystander = spawn_lua(rt, "ticker.lua", "bystander", none, "", 0, 0);
    spawn_lua(rt, "peer.lua", "x", report, "peer=y", 1, 0);
    spawn_lua(rt, "peer.lua", "y", report, "peer=z", 1, 0);
    spawn_lua(rt, "peer.lua", "z", report, "peer=x", 1, 0);
    spawn_lua(rt, "peer.lua", "narcissus", report, "peer=narcissus", 1, 0);
    step(rt, 3);
    ck_assert_msg(captured_logs_contain("deadlock: x -> y -> z -> x") ||
                      captured_logs_contain("deadlock: y -> z -> x -> y") ||
                      captured_logs_contain("deadlock: z -> x -> y -> z"),
                  "%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("deadlock: narcissus -> narcissus"), "%s",
                  captured_logs_text());
    const char *names[] = {"x", "y", "z", "narcissus"};
    for (int i = 0; i < 4; i++) {
        int at = find_tag_name("send failed", names[i]);
        ck_assert_msg(at >= 0, "%s's send did not fail; log:\n%s", names[i], captured_logs_text());
        ck_assert_msg(strstr(coll->items[at + 2].text, "deadlock") != NULL, "%s",
                      coll->items[at + 2].text);
    }
    ck_assert_int_eq(count_tag("sent all"), 0);
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    ck_assert_uint_eq(rs.deadlocks, 2);
    ck_assert_uint_eq(stats_of(rt, bystander).turns, 3);
    ona_runtime_destroy(rt);
    collector_free();
}

/* The `deaf` reproducer: a sender parked on a system that never receives is named, with the
 * receiver and why it does not drain, 30 frames into the wait (half a second at 60 frames a
 * second) and then every 300 frames; counted in frames, so the test needs no clock. */
START_TEST(test_lifecycle_long_wait_on_a_deaf_receiver_is_named) {
    ona_runtime *rt = make_runtime(1);
    ona_system report = spawn_collector(rt);
    ona_system none = {0};
    spawn_lua(rt, "idle.lua", "deaf", none, "", 2, 0);
    ona_system talker = spawn_lua(rt, "blocking_sender.lua", "talker", report, "to=deaf", 0, 0);
    step(rt, 30);
    ck_assert_msg(!captured_logs_contain("has waited"), "%s", captured_logs_text());
    step(rt, 2);
    ck_assert_msg(captured_logs_contain("talker: has waited 30 frames to send to 'deaf', whose "
                                        "mailbox is full (capacity 2): 'deaf' never receives "
                                        "(none of its turns has asked for a message)"),
                  "%s", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("has waited"), 1);
    step(rt, 300);
    ck_assert_int_eq(captured_logs_count("has waited"), 2);
    ck_assert(captured_logs_contain("talker: has waited 330 frames"));
    /* Still parked, never failed: a slow receiver is not an error. */
    ck_assert_int_eq(stats_of(rt, talker).errors, 0);
    ona_runtime_destroy(rt);
    collector_free();
}
END_TEST

START_TEST(test_lifecycle_deadlock_cycles_reported_by_name) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        deadlock_cycles(thread_counts[i]);
}
END_TEST

/* Three producers send 200 numbered messages each (blocking, with a try_send probe that is
 * refused when full) to a consumer with a mailbox of 2 that takes at most 5 a frame: every
 * message arrives once, in order per producer. */
static void backpressure(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "consumer.lua", "consumer", report, "per_frame=5 total=600", 2, 0);
    for (int i = 1; i <= 3; i++) {
        char name[16], args[64];
        snprintf(name, sizeof name, "producer%d", i);
        snprintf(args, sizeof args, "to=consumer n=200 tag=%d", i);
        spawn_lua(rt, "producer.lua", name, report, args, 0, 0);
    }
    for (int i = 0; i < 400 && count_tag("consumed") == 0; i++)
        step(rt, 1);
    ck_assert_msg(count_tag("consumed") == 1, "the consumer did not get 600; log:\n%s",
                  captured_logs_text());
    ck_assert(number_after("consumed", 0, 1) == 600);
    ck_assert_msg(number_after("consumed", 0, 2) == 0, "%g messages out of order",
                  number_after("consumed", 0, 2));
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_lifecycle_backpressure_loses_nothing) {
    for (int i = 0; i < THREAD_COUNTS; i++)
        backpressure(thread_counts[i]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("lifecycle");
    TCase *kill = tcase_create("kill");
    tcase_set_timeout(kill, 120);
    tcase_add_checked_fixture(kill, setup, teardown);
    tcase_add_test(kill, test_lifecycle_kill_parked_sender);
    tcase_add_test(kill, test_lifecycle_kill_receiver_fails_parked_sends_by_name);
    tcase_add_test(kill, test_lifecycle_kill_parked_receiver);
    tcase_add_test(kill, test_lifecycle_kill_self_mid_turn);
    tcase_add_test(kill, test_lifecycle_kill_during_reload);
    tcase_add_test(kill, test_lifecycle_exit_at_destroy_messages_safely);
    suite_add_tcase(s, kill);
    TCase *slots = tcase_create("slots");
    tcase_set_timeout(slots, 120);
    tcase_add_checked_fixture(slots, setup, teardown);
    tcase_add_test(slots, test_lifecycle_oneshots_free_their_slots);
    tcase_add_test(slots, test_lifecycle_oneshots_spawned_from_lua_free_their_slots);
    tcase_add_test(slots, test_lifecycle_stale_handle_stays_stale);
    tcase_add_test(slots, test_lifecycle_main_filling_max_systems_starts);
    suite_add_tcase(s, slots);
    TCase *million = tcase_create("million");
    tcase_set_timeout(million, 300);
    tcase_add_checked_fixture(million, setup, teardown);
    tcase_add_test(million, test_lifecycle_million_short_lived_systems);
    suite_add_tcase(s, million);
    TCase *sched = tcase_create("scheduler");
    tcase_set_timeout(sched, 120);
    tcase_add_checked_fixture(sched, setup, teardown);
    tcase_add_test(sched, test_lifecycle_work_is_stolen);
    tcase_add_test(sched, test_lifecycle_parked_sender_woken_in_the_same_frame);
    tcase_add_test(sched, test_lifecycle_receive_gives_nil_once_per_frame);
    tcase_add_test(sched, test_lifecycle_restart_backoff_doubles);
    tcase_add_test(sched, test_lifecycle_deadlock_cycles_reported_by_name);
    tcase_add_test(sched, test_lifecycle_long_wait_on_a_deaf_receiver_is_named);
    tcase_add_test(sched, test_lifecycle_backpressure_loses_nothing);
    suite_add_tcase(s, sched);
    return run_suite(s);
}
