/*
 * test_steady.c: steady time with an accumulator (ona_runtime_desc.fixed_step). Each
 * ona_runtime_step spends the wall time it is given in whole steps, each one a frame of the
 * systems (process, ona.frame(), dt = the step), at most max_steps of them; ona.time.alpha() and
 * ona_ctx_alpha give what is left, as a fraction of a step. The wall clock is the test's
 * (desc.clock_ns), so "30 frames a second" is exact and no test waits on real time. A recording
 * keeps each frame's steps and alpha, and its replay plays the same steps with the same alpha.
 * The picture of a frame of several steps is the last step's, with the settings of all.
 */
#include "test_support.h"

#include <math.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each step reports its frame, dt, game time and alpha, and prints the alpha (so that a
 * recording's digests depend on it). */
static const char STEP_LUA[] =
    "local report\n"
    "return {\n"
    "  init = function(state, args) report = args.report end,\n"
    "  process = function(state, events, dt)\n"
    "    local a = ona.time.alpha()\n"
    "    ona.send(report, string.format('frame=%d dt=%.17g time=%.17g alpha=%.17g',\n"
    "                                   ona.frame(), dt, ona.time(), a))\n"
    "    print(string.format('alpha %.17g', a))\n"
    "  end,\n"
    "}\n";

static uint64_t clock_now;

static uint64_t test_clock(void *user) {
    (void)user;
    return clock_now;
}

static ona_runtime *make_runtime(double step, uint32_t max_steps, const char *record,
                                 const char *replay) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt = NULL;
    ona_runtime_desc d = {.threads = 2,
                          .script_roots = roots,
                          .fixed_dt = ONA_DT_MEASURED,
                          .fixed_step = step,
                          .max_steps = max_steps,
                          .clock_ns = test_clock,
                          .record_path = record,
                          .replay_path = replay};
    ck_assert_int_eq(ona_runtime_create(&d, &rt), 0);
    return rt;
}

static uint32_t last_steps(ona_runtime *rt) {
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    return st.last_steps;
}

/* The alpha the step of frame `frame` reported, or -1. */
static double alpha_of(uint64_t frame) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "frame=%llu ", (unsigned long long)frame);
    for (int i = 0; i < coll->count; i++)
        if (strncmp(coll->items[i].text, prefix, strlen(prefix)) == 0)
            return strtod(strstr(coll->items[i].text, "alpha=") + 6, NULL);
    return -1;
}

/* 30 frames a second of wall time at a step of 1/60: two steps (two turns, two frame numbers,
 * dt 1/60 each) every frame; the first frame, with no time measured before it, gets one. */
START_TEST(test_steady_thirty_fps_gives_two_steps) {
    game_dir_begin("steady-30");
    game_write("step.lua", STEP_LUA);
    capture_logs_begin();
    clock_now = 1000000000ull;
    ona_runtime *rt = make_runtime(1.0 / 60, 0, NULL, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "step.lua", "stepper", report, "", 0, 0);
    uint64_t steps = 0;
    for (int frame = 0; frame < 10; frame++) {
        clock_now += 1000000000ull / 30;
        double dt = ona_runtime_frame_dt(rt);
        ck_assert_int_eq(ona_runtime_step(rt, dt), 0);
        ck_assert_uint_eq(last_steps(rt), frame == 0 ? 1 : 2);
        steps += last_steps(rt);
    }
    ona_runtime_stats st;
    ona_runtime_stats_get(rt, &st);
    ck_assert_uint_eq(st.frames, steps);
    ck_assert_uint_eq(st.pictures, 10);
    ck_assert_uint_eq(named_stats(rt, "stepper").turns, steps);
    /* Game time is steps * step exactly, and every step's dt is the step. */
    ck_assert(ona_runtime_time(rt) == (double)steps * (1.0 / 60));
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0); /* the collector takes the last */
    char want[96];
    snprintf(want, sizeof want, "frame=%llu dt=%.17g ", (unsigned long long)steps, 1.0 / 60);
    ASSERT_COLLECTED(want);
    ck_assert(!captured_logs_contain("max_steps"));
    ona_runtime_destroy(rt);
    collector_free();
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* 25 ms frames at 1/60: 1 step with half a step left (alpha 0.5), then 2 steps with none left
 * (alpha 0), and so on; every step of a frame sees that frame's alpha. Less than a step runs
 * nothing: no frame, no turn. */
START_TEST(test_steady_alpha_is_the_leftover_step) {
    game_dir_begin("steady-alpha");
    game_write("step.lua", STEP_LUA);
    ona_runtime *rt = make_runtime(1.0 / 60, 0, NULL, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "step.lua", "stepper", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.025), 0);
    ck_assert_uint_eq(last_steps(rt), 1);
    ck_assert_int_eq(ona_runtime_step(rt, 0.025), 0);
    ck_assert_uint_eq(last_steps(rt), 2);
    ck_assert_int_eq(ona_runtime_step(rt, 0.025), 0);
    ck_assert_uint_eq(last_steps(rt), 1);
    ona_runtime_stats before;
    ona_runtime_stats_get(rt, &before);
    ck_assert_int_eq(ona_runtime_step(rt, 0.005), 0); /* 0.5 + 0.3 of a step: none due */
    ona_runtime_stats after;
    ona_runtime_stats_get(rt, &after);
    ck_assert_uint_eq(after.frames, before.frames);
    ck_assert_uint_eq(after.pictures, before.pictures);
    ck_assert_int_eq(ona_runtime_step(rt, 0.0035), 0); /* 0.8 + 0.21: one step, 0.01 left */
    ck_assert_uint_eq(last_steps(rt), 1);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* Frames 1..5 are steps 1 | 2 3 | 4 | 5 | 6 (the collector reads step n's report in n+1). */
    ck_assert_msg(fabs(alpha_of(1) - 0.5) < 1e-9, "%s", collected_text());
    ck_assert_msg(fabs(alpha_of(2)) < 1e-6 && fabs(alpha_of(3)) < 1e-6, "%s", collected_text());
    ck_assert_msg(fabs(alpha_of(4) - 0.5) < 1e-9, "%s", collected_text());
    ck_assert_msg(fabs(alpha_of(5) - 0.01) < 1e-6, "%s", collected_text());
    for (uint64_t f = 1; f <= 5; f++)
        ck_assert(alpha_of(f) >= 0 && alpha_of(f) < 1);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

typedef struct native_alpha {
    double alpha;
    int turns;
} native_alpha;

static int native_alpha_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    native_alpha *n = ona_ctx_user(ctx);
    n->alpha = ona_ctx_alpha(ctx);
    n->turns++;
    return 0;
}

/* The cap: a frame that needs 12.5 steps runs max_steps (5), drops the whole steps past it (the
 * game falls behind the wall clock, said once), keeps the half step as its alpha. C systems
 * read the same alpha. A desc out of range is refused. */
START_TEST(test_steady_max_steps_is_honoured) {
    game_dir_begin("steady-cap");
    capture_logs_begin();
    ona_runtime *rt = make_runtime(1.0 / 60, 0, NULL, NULL);
    native_alpha na = {0};
    ona_system n;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "alpha", .process = native_alpha_process, .user = &na},
            &n),
        0);
    for (int i = 0; i < 2; i++) {
        /* 12.5 steps, then 0.5 left + 12 */
        ck_assert_int_eq(ona_runtime_step(rt, i == 0 ? 12.5 / 60 : 12.0 / 60), 0);
        ck_assert_uint_eq(last_steps(rt), 5);
        ck_assert_msg(fabs(na.alpha - 0.5) < 1e-6, "alpha %.17g", na.alpha);
    }
    ck_assert_int_eq(na.turns, 10);
    ck_assert_int_eq(captured_logs_count("more than max_steps (5)"), 1);
    ona_runtime_destroy(rt);

    rt = make_runtime(1.0 / 60, 2, NULL, NULL);
    ck_assert_int_eq(ona_runtime_step(rt, 0.25), 0);
    ck_assert_uint_eq(last_steps(rt), 2);
    ona_runtime_destroy(rt);

    const double bad_steps[] = {-1.0 / 60, 2, NAN};
    for (size_t i = 0; i < sizeof bad_steps / sizeof bad_steps[0]; i++) {
        ona_runtime_desc d = {.fixed_step = bad_steps[i]};
        ck_assert_int_eq(ona_runtime_create(&d, &rt), ONA_EINVAL);
    }
    ona_runtime_desc d = {.fixed_step = 1.0 / 60, .max_steps = 1001};
    ck_assert_int_eq(ona_runtime_create(&d, &rt), ONA_EINVAL);
    ck_assert(captured_logs_contain("max_steps <= 1000"));
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* The reports of a session: every collected string, one a line. */
static char *session_reports(void) {
    return strdup(collected_text());
}

/* Record a fixed-step session with uneven wall time (frames of 0, 1, 2 and 5 steps, the cap
 * reached), then replay it with no fixed step and a different dt: the same steps, frame
 * numbers, dts and alphas reach the systems, and the digests (which fold the printed alphas)
 * agree to the end. */
START_TEST(test_steady_record_then_replay_is_identical) {
    game_dir_begin("steady-replay");
    game_write("step.lua", STEP_LUA);
    char rec[600];
    snprintf(rec, sizeof rec, "%s/steady.onarec", game_dir());
    static const double walls[] = {0.02, 0.025, 0.004, 0.03, 0.2, 0.0166, 0.05, 0.01, 0.01};
    enum { WALLS = sizeof walls / sizeof walls[0] };
    uint32_t recorded_steps[WALLS + 1];
    ona_runtime *rt = make_runtime(1.0 / 60, 0, rec, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "step.lua", "stepper", report, "", 0, 0);
    int frames = 0;
    for (int i = 0; i < WALLS; i++) {
        ona_runtime_stats before;
        ona_runtime_stats_get(rt, &before);
        ck_assert_int_eq(ona_runtime_step(rt, walls[i]), 0);
        ona_runtime_stats after;
        ona_runtime_stats_get(rt, &after);
        if (after.pictures != before.pictures) /* a frame with no step due is not one */
            recorded_steps[frames++] = last_steps(rt);
    }
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    recorded_steps[frames++] = last_steps(rt);
    ona_runtime_destroy(rt);
    char *recorded = session_reports();
    collector_free();

    rt = make_runtime(0, 0, NULL, rec);
    report = spawn_collector(rt);
    spawn_lua(rt, "step.lua", "stepper", report, "", 0, 0);
    for (int i = 0; i < frames; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 0.1), 0);
        ck_assert_uint_eq(last_steps(rt), recorded_steps[i]);
    }
    char why[768];
    ck_assert_msg(ona_runtime_replay_diverged(rt, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(ona_runtime_step(rt, 0.1), 0); /* past the end: nothing runs, a quit */
    ck_assert(ona_runtime_quit_requested(rt));
    ona_runtime_destroy(rt);
    char *replayed = session_reports();
    ck_assert_msg(strcmp(recorded, replayed) == 0, "recorded:\n%s\nreplayed:\n%s", recorded,
                  replayed);
    ck_assert_msg(strstr(recorded, "alpha=0."), "no alpha above 0: %s", recorded);
    free(recorded);
    free(replayed);
    collector_free();
    game_dir_end();
}
END_TEST

/* A picture after a frame of two steps is the second step's: the first step's rectangle is
 * dropped, while the clear colour it set (in init, in the first step only) is kept. */
START_TEST(test_steady_picture_is_the_last_steps) {
    game_dir_begin("steady-picture");
    capture_logs_begin();
    game_write("mover.lua",
               "return {\n"
               "  init = function() ona.gfx.clear(1, 0, 0) end,\n"
               "  process = function()\n"
               "    ona.gfx.rect((ona.frame() - 1) * 16, 0, 16, 16, {tint = 0x00ff00ff})\n"
               "  end,\n"
               "}\n");
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc d = {.threads = 2,
                          .script_roots = roots,
                          .fixed_step = 1.0 / 60,
                          .video = ONA_VIDEO_OFFSCREEN,
                          .window = {.width = 64, .height = 16}};
    ona_runtime *rt = create_runtime(&d);
    spawn_lua(rt, "mover.lua", "mover", (ona_system){0}, "", 0, 0);
    char shot[600];
    snprintf(shot, sizeof shot, "%s/shot.png", game_dir());
    uint8_t *px = shoot_frames(rt, 1, 2.0 / 60, shot, 64, 16); /* steps 1 and 2 */
    ck_assert_uint_eq(last_steps(rt), 2);
    /* Step 1 drew x 0..16, step 2 x 16..32: only the latter is on screen, on red. */
    const uint8_t *first = px + (8 * 64 + 8) * 4, *second = px + (8 * 64 + 24) * 4,
                  *rest = px + (8 * 64 + 48) * 4;
    ck_assert_msg(first[0] > 200 && first[1] < 50, "step 1's rect: %u %u %u", first[0], first[1],
                  first[2]);
    ck_assert_msg(second[1] > 200 && second[0] < 50, "step 2's rect: %u %u %u", second[0],
                  second[1], second[2]);
    ck_assert_msg(rest[0] > 200 && rest[1] < 50, "clear: %u %u %u", rest[0], rest[1], rest[2]);
    stbi_image_free(px);
    ona_runtime_destroy(rt);
    capture_logs_end();
    game_dir_end();
}
END_TEST

static Suite *steady_suite(void) {
    Suite *s = suite_create("steady");
    TCase *tc = tcase_create("steady");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_steady_thirty_fps_gives_two_steps);
    tcase_add_test(tc, test_steady_alpha_is_the_leftover_step);
    tcase_add_test(tc, test_steady_max_steps_is_honoured);
    tcase_add_test(tc, test_steady_record_then_replay_is_identical);
    tcase_add_test(tc, test_steady_picture_is_the_last_steps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(steady_suite());
}
