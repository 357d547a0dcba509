/*
 * test_chaos.c: a bounded chaos run. A headless runtime on 4 threads runs
 * sinks, steady senders, a Lua spawner (blips spawned and killed from Lua, one-shots) and a pool
 * of worker senders that the test, from a seeded random generator, spawns, kills, makes fail
 * (restarted, or paused while files are watched and resumed by ona_runtime_reload of a fixed
 * copy of their module), reloads, and messages, frame after frame.
 *
 * Asserted: no crash and, under the asan/tsan presets, no sanitizer report; every message that a
 * send reported as delivered to a sink (sinks are never killed) was received: the senders'
 * reports and the sinks' reports, summed by a native tally, match exactly once the run drains;
 * every killed handle stays stale (kill, send and stats refuse it, from C every 100 frames, from
 * Lua in the spawner); the never-killed systems are alive at the end.
 *
 * Design note. Counting is exact because no counted send can be separated from its report: a
 * worker's turn fails before its first send or not at all (commands are read first), workers and
 * blips use try_send (a kill, at a frame boundary, cannot catch them between a send and its
 * report), and the systems that wait in ona.send (steady senders) are never killed. The seed is
 * fixed, but thread interleaving is not, so a failure names the frame and the seed.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef ONA_SANITIZER_BUILD
enum { FRAMES = 3000 };
#else
enum { FRAMES = 5000 };
#endif
enum { SINKS = 4, STEADY = 2, MAX_WORKERS = 12, MAX_KILLED = 4096, DRAIN_FRAMES = 60 };

static char dir[256];

/* --- The tally: a native system summing the reports (its state is read between frames). ---- */

typedef struct tally {
    long sent[SINKS + 1]; /* by sink index 1..SINKS */
    long got[SINKS + 1];
    long oneshots;
    long anomalies;
    long malformed;
} tally;

static tally counts;

static int tally_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    tally *t = ona_ctx_user(ctx);
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        ona_message_reader r;
        ona_message_reader_begin(&r, m);
        ona_value tag, k, n;
        if (ona_message_read(&r, &tag) != 0 || tag.type != ONA_VALUE_STRING ||
            ona_message_read(&r, &k) != 0 || k.type != ONA_VALUE_NUMBER ||
            ona_message_read(&r, &n) != 0 || n.type != ONA_VALUE_NUMBER) {
            t->malformed++;
            continue;
        }
        int sink = (int)k.as.number;
        if (strcmp(tag.as.string.bytes, "sent") == 0 && sink >= 1 && sink <= SINKS)
            t->sent[sink] += (long)n.as.number;
        else if (strcmp(tag.as.string.bytes, "got") == 0 && sink >= 1 && sink <= SINKS)
            t->got[sink] += (long)n.as.number;
        else if (strcmp(tag.as.string.bytes, "oneshot") == 0)
            t->oneshots += (long)n.as.number;
        else if (strcmp(tag.as.string.bytes, "anomaly") == 0)
            t->anomalies += (long)n.as.number;
        else
            t->malformed++;
    }
    return 0;
}

/* --- Files ----------------------------------------------------------------------------------- */

static void copy_script(const char *from, const char *to) {
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/tests/lua/chaos/%s", ONA_SOURCE_DIR, from);
    snprintf(dst, sizeof dst, "%s/%s", dir, to);
    file_save_copy(src, dst);
}

static void setup(void) {
    capture_logs_begin();
    memset(&counts, 0, sizeof counts);
    snprintf(dir, sizeof dir, "/tmp/ona-chaos-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *scripts[] = {"sender.lua",  "steady.lua", "sink.lua",
                             "spawner.lua", "blip.lua",   "oneshot.lua"};
    for (size_t i = 0; i < sizeof scripts / sizeof *scripts; i++)
        copy_script(scripts[i], scripts[i]);
    copy_script("flaky_broken.lua", "flaky.lua");
}

static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    capture_logs_end();
}

/* --- The run --------------------------------------------------------------------------------- */

static uint64_t rng_state;
static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static ona_message text_message(const char *text) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, text, strlen(text));
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

static ona_message main_message(uint32_t seq) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, "main", 4);
    ona_message_write_number(&w, seq);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

static ona_system spawn_script(ona_runtime *rt, const char *script, const char *name,
                               ona_system report, const char *pairs, uint32_t mailbox) {
    ona_message args = make_args(report, pairs);
    ona_spawn_desc d = {.script = script,
                        .name = name,
                        .args = &args,
                        .mailbox_capacity = mailbox,
                        .restart_limit = 1000000};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &d, &h);
    ck_assert_msg(rc == 0, "spawn %s: %s\n%s", script, ona_strerror(rc), captured_logs_text());
    return h;
}

/* A killed handle must be refused everywhere, for good. */
static void assert_stale(ona_runtime *rt, ona_system h, int frame) {
    ona_system_stats st;
    ck_assert_msg(ona_runtime_system_stats(rt, h, &st) == ONA_ESTALE,
                  "frame %d: killed system %llu still has stats", frame, (unsigned long long)h.id);
    ck_assert_msg(ona_runtime_kill(rt, h) == ONA_ESTALE,
                  "frame %d: killed system %llu killed again", frame, (unsigned long long)h.id);
    ona_message m = text_message("late");
    int rc = ona_runtime_send(rt, h, &m);
    ck_assert_msg(rc == ONA_ESTALE || rc == ONA_EDEAD, "frame %d: send to killed %llu: %s", frame,
                  (unsigned long long)h.id, ona_strerror(rc));
    ona_message_release(&m);
}

static void chaos(bool watch, uint64_t seed) {
    rng_state = seed;
    const char *roots[] = {dir, NULL};
    /* No turn budget: on a loaded machine a preempted turn could pass it and be interrupted
     * between a send and its report, which would break the exact count. */
    ona_runtime_desc desc = {.threads = 4,
                             .script_roots = roots,
                             .hot_reload = watch,
                             .restart_limit = 1000000,
                             .turn_budget_ms = ONA_BUDGET_OFF};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "%s\n%s", ona_strerror(rc), captured_logs_text());

    ona_system_desc td = {
        .name = "tally", .process = tally_process, .user = &counts, .mailbox_capacity = 4096};
    ona_system tally_h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &td, &tally_h), 0);
    ona_system sinks[SINKS + 1], steady[STEADY], spawner;
    char name[32], pairs[128];
    for (int k = 1; k <= SINKS; k++) {
        snprintf(name, sizeof name, "sink%d", k);
        snprintf(pairs, sizeof pairs, "index=%d", k);
        sinks[k] = spawn_script(rt, "sink.lua", name, tally_h, pairs, 16);
    }
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0); /* the sinks exist before the senders */
    for (int i = 0; i < STEADY; i++) {
        snprintf(name, sizeof name, "steady%d", i);
        snprintf(pairs, sizeof pairs, "id=%d sinks=%d burst=6", 100 + i, SINKS);
        steady[i] = spawn_script(rt, "steady.lua", name, tally_h, pairs, 0);
    }
    snprintf(pairs, sizeof pairs, "sinks=%d", SINKS);
    spawner = spawn_script(rt, "spawner.lua", "spawner", tally_h, pairs, 0);

    ona_system workers[MAX_WORKERS];
    int nworkers = 0, next_id = 1;
    static ona_system killed[MAX_KILLED];
    int nkilled = 0, fresh_kills = 0;
    long main_sent[SINKS + 1] = {0};
    int fails = 0, reloads = 0, pauses_seen = 0, restarts_seen = 0;
    bool fixed = false;
    char flaky[300];
    snprintf(flaky, sizeof flaky, "%s/flaky.lua", dir);

    for (int frame = 0; frame < FRAMES; frame++) {
        uint32_t r = rng() % 100;
        if (r < 10 && nworkers < MAX_WORKERS) {
            snprintf(pairs, sizeof pairs, "id=%d sinks=%d burst=%u", next_id++, SINKS,
                     1 + rng() % 8);
            workers[nworkers++] = spawn_script(rt, "sender.lua", NULL, tally_h, pairs, 8);
        } else if (r < 16 && nworkers > 0) {
            int i = (int)(rng() % (uint32_t)nworkers);
            ck_assert_int_eq(ona_runtime_kill(rt, workers[i]), 0);
            ck_assert_int_lt(nkilled, MAX_KILLED);
            killed[nkilled++] = workers[i];
            fresh_kills++;
            workers[i] = workers[--nworkers];
        } else if (r < 24 && nworkers > 0) {
            ona_message m = text_message("fail");
            if (ona_runtime_send(rt, workers[rng() % (uint32_t)nworkers], &m) == 0)
                fails++;
            ona_message_release(&m);
        } else if (r < 26) {
            ck_assert_int_eq(ona_runtime_reload(rt, "sender.lua"), 0);
            reloads++;
        } else if (r < 30 && watch) {
            /* Save a fixed copy of the module and reload it (resumes the paused workers), or put
             * the broken one back. */
            copy_script(fixed ? "flaky_broken.lua" : "flaky_fixed.lua", "flaky.lua");
            fixed = !fixed;
            ck_assert_int_eq(ona_runtime_reload(rt, flaky), 0);
            reloads++;
        }
        for (int i = 0; i < 2; i++) {
            int k = 1 + (int)(rng() % SINKS);
            ona_message m = main_message((uint32_t)frame);
            if (ona_runtime_send(rt, sinks[k], &m) == 0)
                main_sent[k]++;
            ona_message_release(&m);
        }

        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);

        /* The kills of the frame just ended are done: their handles are stale from now on. */
        for (int i = nkilled - fresh_kills; i < nkilled; i++)
            assert_stale(rt, killed[i], frame);
        fresh_kills = 0;
        if (frame % 100 == 99) {
            for (int i = 0; i < nkilled; i++)
                assert_stale(rt, killed[i], frame);
            for (int i = 0; i < nworkers; i++) {
                ona_system_stats st;
                ck_assert_int_eq(ona_runtime_system_stats(rt, workers[i], &st), 0);
                pauses_seen += st.status == ONA_SYSTEM_PAUSED;
                restarts_seen += st.restarts > 0;
            }
        }
    }

    /* Drain: the workers go, the steady senders stop, and every report comes in. */
    for (int i = 0; i < nworkers; i++) {
        ck_assert_int_eq(ona_runtime_kill(rt, workers[i]), 0);
        killed[nkilled++] = workers[i];
    }
    for (int i = 0; i < STEADY; i++) {
        ona_message m = text_message("stop");
        ck_assert_int_eq(ona_runtime_send(rt, steady[i], &m), 0);
    }
    for (int f = 0; f < DRAIN_FRAMES; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* The spawner keeps making blips, which send: stop it, then every system it left (blips),
     * and let the last reports in. */
    ck_assert_int_eq(ona_runtime_kill(rt, spawner), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    static ona_system live[4096];
    uint32_t nlive = ona_runtime_systems(rt, live, 4096);
    ck_assert_uint_le(nlive, 4096);
    for (uint32_t i = 0; i < nlive; i++) {
        bool keep = live[i].id == tally_h.id;
        for (int k = 1; k <= SINKS; k++)
            keep = keep || live[i].id == sinks[k].id;
        for (int j = 0; j < STEADY; j++)
            keep = keep || live[i].id == steady[j].id;
        if (!keep)
            ck_assert_int_eq(ona_runtime_kill(rt, live[i]), 0);
    }
    for (int f = 0; f < DRAIN_FRAMES; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 1 + SINKS + STEADY);

    long sent_total = 0;
    for (int k = 1; k <= SINKS; k++) {
        ck_assert_msg(counts.sent[k] + main_sent[k] == counts.got[k],
                      "seed %llu, sink%d: %ld sent by systems + %ld from main, %ld received",
                      (unsigned long long)seed, k, counts.sent[k], main_sent[k], counts.got[k]);
        ona_system_stats st;
        ck_assert_int_eq(ona_runtime_system_stats(rt, sinks[k], &st), 0);
        ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
        ck_assert_uint_eq(st.mailbox_size, 0);
        sent_total += counts.sent[k] + main_sent[k];
    }
    for (int i = 0; i < STEADY; i++) {
        ona_system_stats st;
        ck_assert_int_eq(ona_runtime_system_stats(rt, steady[i], &st), 0);
        ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    }
    for (int i = 0; i < nkilled; i++)
        assert_stale(rt, killed[i], FRAMES);
    assert_stale(rt, spawner, FRAMES);
    ck_assert_int_eq(counts.anomalies, 0);
    ck_assert_int_eq(counts.malformed, 0);

    /* The run did what it says: messages flowed, systems came and went, failed, reloaded. */
    ck_assert_int_gt(sent_total, FRAMES * 10);
    ck_assert_int_gt(counts.oneshots, FRAMES / 10);
    ck_assert_int_gt(nkilled, FRAMES / 40);
    ck_assert_int_gt(fails, FRAMES / 40);
    ck_assert_int_gt(reloads, FRAMES / 100);
    if (watch) {
        ck_assert_msg(pauses_seen > 0, "no worker was ever seen paused");
        ck_assert_int_gt(captured_logs_count("save a fix to resume"), 0);
    } else {
        ck_assert_msg(restarts_seen > 0, "no worker was ever seen restarted");
    }
    ona_runtime_destroy(rt);
}

START_TEST(test_chaos_with_restarts) {
    chaos(false, 0x0A11CE5EEDull);
}
END_TEST

START_TEST(test_chaos_with_pauses_and_fixes) {
    chaos(true, 0x5EED0F0ABull);
}
END_TEST

int main(void) {
    Suite *s = suite_create("chaos");
    TCase *tc = tcase_create("chaos");
    tcase_set_timeout(tc, 280);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_chaos_with_restarts);
    tcase_add_test(tc, test_chaos_with_pauses_and_fixes);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
