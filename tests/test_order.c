/*
 * test_order.c: the declared order (`after`) and ordered delivery, on the real runtime: a chain
 * passes a value through eight systems in one frame; what a receiver of many unordered senders
 * sees is the same on any thread count, run after run, under load; a predecessor that floods its
 * successor's mailbox loses nothing and never deadlocks; cycles are refused by name; the order
 * outlives kills, restarts, reloads and spawns.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/order", NULL};

#ifdef ONA_SANITIZER_BUILD
enum { FAN_FRAMES = 200, FAN_RUNS = 3 };
#else
enum { FAN_FRAMES = 500, FAN_RUNS = 20 };
#endif

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads, ona_delivery delivery) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots, .delivery = delivery};
    return create_runtime(&desc);
}


/* Spawns `script` named `name` after the systems named in `after` (comma-separated, may be
 * NULL), with make_args(report, pairs) and a mailbox of `mailbox` (0: the runtime's). */
static ona_system spawn_after(ona_runtime *rt, const char *script, const char *name,
                              const char *after, ona_system report, const char *pairs,
                              uint32_t mailbox, ona_failure_policy policy) {
    char list[256] = {0};
    const char *names[8];
    uint32_t n = 0;
    if (after) {
        snprintf(list, sizeof list, "%s", after);
        for (char *save = NULL, *t = strtok_r(list, ",", &save); t && n < 8;
             t = strtok_r(NULL, ",", &save))
            names[n++] = t;
    }
    ona_message args = make_args(report, pairs);
    ona_spawn_desc d = {.script = script,
                        .name = name,
                        .args = &args,
                        .mailbox_capacity = mailbox,
                        .policy = policy,
                        .after_names = names,
                        .after_name_count = n};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &d, &h);
    ck_assert_msg(rc == 0, "spawn %s: %s; log:\n%s", name, ona_strerror(rc), captured_logs_text());
    return h;
}

/* --- A chain ---------------------------------------------------------------------------------- */

static void chain(uint32_t threads, ona_delivery delivery) {
    ona_runtime *rt = make_runtime(threads, delivery);
    ona_system report = spawn_collector(rt);
    /* Spawned last link first, each after a name not spawned yet: the order is not spawn order. */
    for (int i = 8; i >= 1; i--) {
        char name[8], after[8], pairs[64];
        snprintf(name, sizeof name, "c%d", i);
        snprintf(after, sizeof after, "c%d", i - 1);
        snprintf(pairs, sizeof pairs, "%s%s next=c%d", i == 1 ? "first=true" : "",
                 i == 8 ? " last=true" : "", i + 1);
        spawn_after(rt, "chain.lua", name, i > 1 ? after : NULL, report, pairs, 0, 0);
    }
    step_frames(rt, 12);
    /* Reports of turns 1..11 reached the collector (each a frame later): (turn, value). */
    ck_assert_msg(coll->count >= 2 * 10, "%d items; log:\n%s", coll->count, captured_logs_text());
    for (int i = 0; i + 1 < coll->count; i += 2) {
        double turn = coll->items[i].number, v = coll->items[i + 1].number;
        ck_assert_msg(v == turn + 6,
                      "threads %u: the last link got %g in its turn %g: the value took %g frames",
                      threads, v, turn, turn - (v - 6));
    }
    ona_system_stats st;
    ona_system c8;
    ck_assert_int_eq(ona_runtime_lookup(rt, "c8", &c8), 0);
    ck_assert_int_eq(ona_runtime_system_stats(rt, c8, &st), 0);
    /* Places follow the chain, not the spawn order (c8 was spawned first). */
    ck_assert_uint_eq(st.order_place, 8);
    ck_assert_int_eq(ona_runtime_lookup(rt, "c1", &c8), 0);
    ck_assert_int_eq(ona_runtime_system_stats(rt, c8, &st), 0);
    ck_assert_uint_eq(st.order_place, 1);
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_order_chain_of_eight_in_one_frame) {
    chain(1, ONA_DELIVERY_ORDERED);
    chain(2, ONA_DELIVERY_ORDERED);
    chain(4, ONA_DELIVERY_ORDERED);
    /* Immediate delivery keeps the order of turns too, so the chain still takes one frame. */
    chain(2, ONA_DELIVERY_IMMEDIATE);
}
END_TEST

/* --- Fan-in ----------------------------------------------------------------------------------- */

static atomic_bool load_on;

static void *spin(void *arg) {
    (void)arg;
    volatile unsigned long x = 0;
    while (atomic_load_explicit(&load_on, memory_order_relaxed))
        x++;
    return NULL;
}

static void fan_in(uint32_t threads, double *n, double *digest) {
    ona_runtime *rt = make_runtime(threads, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "frames=%d", FAN_FRAMES);
    spawn_after(rt, "fan_sink.lua", "sink", NULL, report, pairs, 128, 0);
    for (int i = 1; i <= 16; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        snprintf(pairs, sizeof pairs, "index=%d", i);
        spawn_after(rt, "fan_sender.lua", name, NULL, report, pairs, 0, 0);
    }
    step_frames(rt, FAN_FRAMES + 2);
    ck_assert_msg(coll->count == 2, "%d items; log:\n%s", coll->count, captured_logs_text());
    *n = coll->items[0].number;
    *digest = coll->items[1].number;
    ck_assert(!captured_logs_contain("error"));
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_order_fan_in_is_the_same_on_any_thread_count) {
    static const uint32_t counts[] = {1, 2, 4, 8};
    pthread_t load[2];
    atomic_store(&load_on, true);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&load[i], NULL, spin, NULL), 0);
    double n0 = 0, d0 = 0;
    for (int run = 0; run < FAN_RUNS; run++)
        for (int k = 0; k < 4; k++) {
            double n, d;
            fan_in(counts[k], &n, &d);
            if (run == 0 && k == 0) {
                n0 = n;
                d0 = d;
                ck_assert(n0 >= 16 * (FAN_FRAMES - 1));
                continue;
            }
            ck_assert_msg(n == n0 && d == d0,
                          "run %d on %u threads: %g messages, digest %.0f; first run: %g, %.0f",
                          run, counts[k], n, d, n0, d0);
        }
    atomic_store(&load_on, false);
    for (int i = 0; i < 2; i++)
        pthread_join(load[i], NULL);
}
END_TEST

/* --- Backpressure ----------------------------------------------------------------------------- */

/* A predecessor sends its successor ten times its mailbox's capacity in one turn. Returns the
 * collector's items as text, to compare between thread counts. */
static char *flood(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    spawn_after(rt, "flood.lua", "flood", NULL, report, "count=80 to=sink", 0, 0);
    ona_system sink = spawn_after(rt, "tally.lua", "sink", "flood", report, "", 8, 0);
    step_frames(rt, 20);
    ck_assert_msg(!captured_logs_contain("error") && !captured_logs_contain("deadlock"), "%s",
                  captured_logs_text());
    char *text = calloc(1, 8192);
    size_t len = 0;
    double taken = 0, last = 0;
    for (int i = 0; i < coll->count; i++) {
        item *it = &coll->items[i];
        if (it->type == ONA_VALUE_STRING)
            len += (size_t)snprintf(text + len, 8192 - len, "%s ", it->text);
        else
            len += (size_t)snprintf(text + len, 8192 - len, "%g ", it->number);
    }
    /* The tally's reports are (turn, n, last): every number once, in order (it raises if not). */
    for (int i = 0; i + 2 < coll->count; i++)
        if (coll->items[i].sender == sink.id) {
            taken += coll->items[i + 1].number;
            last = coll->items[i + 2].number;
            i += 2;
        }
    ck_assert_msg(taken == 80 && last == 80, "threads %u: took %g, last %g: %s", threads, taken,
                  last, text);
    ck_assert_msg(strstr(text, "flood done"), "%s", text);
    ona_runtime_destroy(rt);
    collector_free();
    return text;
}

START_TEST(test_order_flood_past_capacity_loses_nothing_and_never_deadlocks) {
    char *one = flood(1);
    static const uint32_t counts[] = {2, 4};
    for (int k = 0; k < 2; k++) {
        char *other = flood(counts[k]);
        ck_assert_msg(strcmp(one, other) == 0, "1 thread: %s\n%u threads: %s", one, counts[k],
                      other);
        free(other);
    }
    free(one);
}
END_TEST

/* --- Cycles ----------------------------------------------------------------------------------- */

static const item *tagged(const char *tag) {
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return &coll->items[i];
    return NULL;
}

START_TEST(test_order_cycle_is_refused_by_name) {
    ona_runtime *rt = make_runtime(2, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    spawn_after(rt, "cycle.lua", "maker", NULL, report, "", 0, 0);
    step_frames(rt, 3);
    const item *c = tagged("cycle");
    ck_assert_msg(c && !c[1].boolean, "%s", captured_logs_text());
    ck_assert_msg(strstr(c[2].text, "cycle.lua:9: ona.spawn: 'input' after 'bullets' after "
                                    "'ship' after 'input' is a cycle"),
                  "%s", c[2].text);
    const item *self = tagged("self");
    ck_assert(self && !self[1].boolean);
    ck_assert_msg(strstr(self[2].text, "'x' after 'x' is a cycle"), "%s", self[2].text);
    const item *stale = tagged("stale");
    ck_assert(stale && !stale[1].boolean);
    ck_assert_msg(strstr(stale[2].text, "after[1]: no such system"), "%s", stale[2].text);
    const item *type = tagged("type");
    ck_assert(type && !type[1].boolean);
    ck_assert_msg(strstr(type[2].text, "opts.after[1] must be a system's name or handle"), "%s",
                  type[2].text);
    const item *fine = tagged("fine");
    ck_assert(fine && fine[1].boolean);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Kill, restart, spawn mid-frame ----------------------------------------------------------- */

/* The links' reports are (receiver, frame taken, sender, frame sent). Counts those of `receiver`
 * from `sender` taken in frames [lo, hi], failing on any not taken `late` frames after it was
 * sent. */
static int count_from(const char *receiver, const char *sender, int late, int lo, int hi) {
    int n = 0;
    for (int i = 0; i + 3 < coll->count; i += 4) {
        ck_assert_int_eq(coll->items[i].type, ONA_VALUE_STRING);
        double taken = coll->items[i + 1].number, sent = coll->items[i + 3].number;
        if (strcmp(coll->items[i].text, receiver) != 0 ||
            strcmp(coll->items[i + 2].text, sender) != 0 || taken < lo || taken > hi)
            continue;
        ck_assert_msg(taken == sent + late, "%s from %s: sent in frame %g, taken in %g", receiver,
                      sender, sent, taken);
        n++;
    }
    return n;
}

static void order_survives(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_DELIVERY_ORDERED);
    ona_system report = spawn_collector(rt);
    /* src -> relay -> dst, and src -> dst directly: dst is after src through relay. */
    spawn_after(rt, "link.lua", "src", NULL, report, "to=relay,dst,loose", 0, 0);
    ona_system relay = spawn_after(rt, "link.lua", "relay", "src", (ona_system){0},
                                   "to=dst fail_at=5", 0, ONA_POLICY_RESTART);
    spawn_after(rt, "link.lua", "dst", "relay", report,
                "to=late spawn_at=20 spawn_name=late spawn_after=dst", 0, 0);
    /* Unordered: what src sends it arrives a frame later. */
    spawn_after(rt, "link.lua", "loose", NULL, report, "", 0, 0);
    /* relay fails in its turn 5 and restarts (and again 5 turns later): while it restarts dst
     * still waits for src through it. */
    step_frames(rt, 12);
    ck_assert_msg(captured_logs_contain("failing on purpose"), "%s", captured_logs_text());
    ck_assert_int_eq(ona_runtime_kill(rt, relay), 0);
    /* relay ends at frame 13's start: dst, after a name nobody has now, is unordered with src.
     * dst spawns late in its turn 20, after itself; late runs from frame 21. */
    step_frames(rt, 18);
    ck_assert_int_eq(count_from("dst", "src", 0, 1, 12), 12);
    ck_assert_int_ge(count_from("dst", "relay", 0, 1, 12), 6);
    ck_assert_int_ge(count_from("dst", "src", 1, 14, 30), 15);
    /* Taken in frames 2..29 and reported by frame 30. */
    ck_assert_int_eq(count_from("loose", "src", 1, 1, 30), 28);
    ck_assert_msg(count_from("late", "dst", 0, 22, 30) >= 7, "log:\n%s", captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();
}

START_TEST(test_order_survives_kill_restart_and_spawn) {
    order_survives(1);
    order_survives(4);
}
END_TEST

/* --- Pause and reload ------------------------------------------------------------------------ */

/* a -> b -> c, c also hearing a directly. b fails and pauses (files are watched): c still waits
 * for a through it. A saved fix resumes b, which keeps its place: it hears a in the same frame. */
static const char *LINK_B_BROKEN =
    "return {\n"
    "  init = function(state, args) state.args, state.turn = args, 0 end,\n"
    "  process = function() error('broken b') end,\n"
    "}\n";

START_TEST(test_order_holds_through_pause_and_reload) {
    game_dir_begin("order");
    char src[4096];
    FILE *f = fopen(ONA_SOURCE_DIR "/tests/lua/order/link.lua", "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    game_write("link.lua", src);
    game_write("b.lua", LINK_B_BROKEN);
    const char *groots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = groots, .hot_reload = true};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_after(rt, "link.lua", "a", NULL, report, "to=b,c", 0, 0);
    spawn_after(rt, "b.lua", "b", "a", report, "", 0, 0);
    spawn_after(rt, "link.lua", "c", "b", report, "", 0, 0);
    for (int i = 0; i < 200 && !captured_logs_contain("b paused"); i++)
        step_frames(rt, 1);
    ck_assert_msg(captured_logs_contain("b paused"), "%s", captured_logs_text());
    step_frames(rt, 5);
    ona_system hb;
    ck_assert_int_eq(ona_runtime_lookup(rt, "b", &hb), 0);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, hb, &st), 0);
    ck_assert_int_eq(st.status, ONA_SYSTEM_PAUSED);
    /* The fix: b becomes a link reporting what it hears and passing it to c. */
    game_write("b.lua", src);
    for (int i = 0; i < 400 && !captured_logs_contain("b resumed"); i++) {
        step_frames(rt, 1);
        usleep(2000);
    }
    ck_assert_msg(captured_logs_contain("b resumed"), "%s", captured_logs_text());
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    uint64_t resumed = rs.frames;
    step_frames(rt, 10);
    ck_assert_int_eq(ona_runtime_system_stats(rt, hb, &st), 0);
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ck_assert_uint_gt(st.order_place, 0);
    /* Everything c took from a came in the frame it was sent, paused b or not; b, running again,
     * takes a's messages in the frame they were sent too (its backlog from the pause first). */
    ck_assert_int_ge(count_from("c", "a", 0, 1, 1000), 10);
    ck_assert_int_ge(count_from("b", "a", 0, (int)resumed + 2, 1000), 5);
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

/* --- Spawn order ----------------------------------------------------------------------------- */

/* Four unordered systems spawn three children each in the same frame; returns the children's
 * spawn orders, by name, as text. */
static void spawn_orders(uint32_t threads, char *out, size_t size) {
    ona_runtime *rt = make_runtime(threads, ONA_DELIVERY_ORDERED);
    static const int work[] = {300000, 1, 100000, 30000};
    for (int i = 0; i < 4; i++) {
        char name[8], pairs[64];
        snprintf(name, sizeof name, "k%d", i);
        snprintf(pairs, sizeof pairs, "n=3 work=%d", work[i]);
        spawn_after(rt, "spawner.lua", name, NULL, (ona_system){0}, pairs, 0, 0);
    }
    step_frames(rt, 3);
    size_t len = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 1; j <= 3; j++) {
            char name[16];
            snprintf(name, sizeof name, "k%d_%d", i, j);
            ona_system h;
            ck_assert_int_eq(ona_runtime_lookup(rt, name, &h), 0);
            ona_system_stats st;
            ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), 0);
            len += (size_t)snprintf(out + len, size - len, "%s=%u ", name, st.spawn_order);
        }
    ona_runtime_destroy(rt);
}

START_TEST(test_order_spawn_order_is_the_same_on_any_thread_count) {
    char one[512], other[512];
    spawn_orders(1, one, sizeof one);
    for (uint32_t threads = 2; threads <= 4; threads += 2)
        for (int run = 0; run < 5; run++) {
            spawn_orders(threads, other, sizeof other);
            ck_assert_msg(strcmp(one, other) == 0, "1 thread: %s\n%u threads: %s", one, threads,
                          other);
        }
}
END_TEST

int main(void) {
    Suite *s = suite_create("order");
    TCase *tc = tcase_create("order");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_order_chain_of_eight_in_one_frame);
    tcase_add_test(tc, test_order_fan_in_is_the_same_on_any_thread_count);
    tcase_add_test(tc, test_order_flood_past_capacity_loses_nothing_and_never_deadlocks);
    tcase_add_test(tc, test_order_cycle_is_refused_by_name);
    tcase_add_test(tc, test_order_survives_kill_restart_and_spawn);
    tcase_add_test(tc, test_order_spawn_order_is_the_same_on_any_thread_count);
    tcase_add_test(tc, test_order_holds_through_pause_and_reload);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
