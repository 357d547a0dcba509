/*
 * test_platformer.c: the platformer sample (samples/platformer) played headless through the
 * embedding API with a fixed time step and the autoplay pilot, the native collector
 * (test_support.c) as the game's `report` system: ("player", x, y, frame) from player every
 * 10th frame and ("coins", count, frame) from coins when the count changes. Checks that the pilot
 * runs through the level (larger than the screen: the camera scrolls) and collects coins without an
 * error, that the run is the same on 1 and 2 threads, that the rendered frames (tile map, animated
 * sheets, additive particles, the world's canvas through the game shader, the screen-space HUD) are
 * identical on 1, 2 and 4 threads under ordered delivery with no script using ona.inbox, that
 * escape quits, and (with latency=1, which adds reports of what each system saw and did) that
 * every chain along main.lua's declared order lands in the frame it starts.
 */
#include "test_support.h"

#include <math.h>
#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/samples/platformer", NULL};

static void setup(void) {
    capture_logs_begin();
    setenv("SDL_AUDIODRIVER", "dummy", 1);
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static ona_runtime *start_game(uint32_t threads, ona_video video, const char *args) {
    ona_runtime_desc desc = {.threads = threads,
                             .delivery = ONA_DELIVERY_ORDERED,
                             .script_roots = roots,
                             .video = video,
                             .window = {.width = 640, .height = 360}};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, args, 0, 0);
    return rt;
}

static void step(ona_runtime *rt) {
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

/* No error or warning was logged, and no system failed. */
static void assert_clean(ona_runtime *rt) {
    assert_game_clean(rt, 8); /* the collector and the game's 7 systems */
}

/* What the reports say up to `last_frame`: the furthest x, the last coin count, and a text of
 * every report (for comparing runs). */
typedef struct run_result {
    double max_x, last_y;
    double coins;
    int player_reports;
    char *text;
} run_result;

static run_result read_reports(double last_frame) {
    run_result r = {0};
    size_t cap = (size_t)coll->count * 32 + 1, len = 0;
    r.text = calloc(cap, 1);
    ck_assert_ptr_nonnull(r.text);
    for (int i = 0; i + 2 < coll->count; i++) {
        const item *it = &coll->items[i];
        if (it->type != ONA_VALUE_STRING)
            continue;
        if (strcmp(it->text, "player") == 0 && i + 3 < coll->count) {
            double x = coll->items[i + 1].number, y = coll->items[i + 2].number;
            double frame = coll->items[i + 3].number;
            if (frame > last_frame)
                continue;
            r.player_reports++;
            r.max_x = fmax(r.max_x, x);
            r.last_y = y;
            len += (size_t)snprintf(r.text + len, cap - len, "p%g:%.3f,%.3f ", frame, x, y);
        } else if (strcmp(it->text, "coins") == 0) {
            double frame = coll->items[i + 2].number;
            if (frame > last_frame)
                continue;
            r.coins = coll->items[i + 1].number;
            len += (size_t)snprintf(r.text + len, cap - len, "c%g:%g ", frame, r.coins);
        }
        ck_assert(len < cap);
    }
    return r;
}

START_TEST(test_platformer_autoplay_runs_the_level_and_collects_coins) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "autoplay=1");
    for (int f = 0; f < 1200; f++) /* 20 s of game time */
        step(rt);
    assert_clean(rt);
    run_result r = read_reports(1200);
    /* 16-unit tiles; the level is 200 tiles wide and the screen shows 40 at zoom 2. */
    ck_assert_msg(r.max_x > 60 * 16, "the pilot got to x = %g", r.max_x);
    ck_assert_msg(r.coins >= 3, "%g coins collected", r.coins);
    ck_assert_int_ge(r.player_reports, 110);
    free(r.text);
    /* Escape quits. */
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(e.as.key.name, sizeof e.as.key.name, "escape");
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), 0);
    step(rt);
    ck_assert(ona_runtime_quit_requested(rt));
    ona_runtime_destroy(rt);
}
END_TEST

static char *autoplay_run(uint32_t threads) {
    ona_runtime *rt = start_game(threads, ONA_VIDEO_NONE, "autoplay=1 seed=3");
    for (int f = 0; f < 601; f++)
        step(rt);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    run_result r = read_reports(600);
    ck_assert_msg(r.player_reports >= 59, "%d player reports", r.player_reports);
    collector_free();
    return r.text;
}

START_TEST(test_platformer_same_run_on_1_and_2_threads) {
    char *two = autoplay_run(2);
    char *one = autoplay_run(1);
    ck_assert_msg(strcmp(one, two) == 0, "1 thread and 2 threads differ");
    free(one);
    free(two);
}
END_TEST

/* The index of the first report ("what", ... n values, the last the frame) at or after item
 * `from`, or -1. */
static int find_report(const char *what, int n, int from) {
    for (int i = from; i + n < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, what) == 0)
            return i;
    return -1;
}

/* The frame of the item at i + n (a report's frame), or -1 for no report. */
static double frame_at(int i, int n) {
    return i < 0 ? -1 : coll->items[i + n].number;
}

/* The last frame, not after `until`, in which the player was at (x, y) ("at", x, y, frame). */
static double position_frame(double x, double y, double until) {
    double found = -1;
    for (int i = find_report("at", 3, 0); i >= 0; i = find_report("at", 3, i + 1)) {
        double frame = frame_at(i, 3);
        if (frame <= until && coll->items[i + 1].number == x && coll->items[i + 2].number == y)
            found = frame;
    }
    return found;
}

/* How many frames each chain takes, measured with latency=1 (player says where it is every
 * frame; camera, coins, particles and hud report what they saw or did, with the frame). Along
 * the declared order the camera follows where the player is in this frame, and a coin is taken,
 * counted on the HUD and bursts into sparks in the frame the player reaches it. The frames are
 * printed for the README. */
START_TEST(test_platformer_effects_land_in_the_frame_along_the_order) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "autoplay=1 seed=3 latency=1");
    int frame = 0;
    while (frame < 900 && find_report("took", 3, 0) < 0) {
        step(rt);
        frame++;
    }
    for (int f = 0; f < 4; f++)
        step(rt); /* the last reports reach the collector */
    assert_clean(rt);
    ona_runtime_destroy(rt);
    int took = find_report("took", 3, 0);
    ck_assert_msg(took >= 0, "no coin in %d frames", frame);
    ck_assert_msg(coll->count < MAX_ITEMS, "the collector is full");
    double reached = position_frame(coll->items[took + 1].number, coll->items[took + 2].number,
                                    frame_at(took, 3));
    ck_assert(reached > 0);
    int cam = find_report("camera", 3, 0);
    ck_assert(cam >= 0);
    double follows =
        frame_at(cam, 3) -
        position_frame(coll->items[cam + 1].number, coll->items[cam + 2].number, frame_at(cam, 3));
    double taken = frame_at(took, 3) - reached;
    int counted = find_report("coins", 2, 0);
    while (counted >= 0 && coll->items[counted + 1].number < 1)
        counted = find_report("coins", 2, counted + 1);
    int shown = find_report("shown", 2, 0);
    while (shown >= 0 && coll->items[shown + 1].number < 1)
        shown = find_report("shown", 2, shown + 1);
    double count = frame_at(counted, 2) - reached, hud = frame_at(shown, 2) - reached;
    double sparks = frame_at(find_report("burst", 1, 0), 1) - reached;
    fprintf(stderr,
            "platformer latency (frames): player moves -> camera follows %g; player reaches a "
            "coin -> taken %g, counted %g, printed on the HUD %g, sparks drawn %g\n",
            follows, taken, count, hud, sparks);
    ck_assert_double_eq(follows, 0);
    ck_assert_double_eq(taken, 0);
    ck_assert_double_eq(count, 0);
    ck_assert_double_eq(hud, 0);
    ck_assert_double_eq(sparks, 0);
}
END_TEST

/* Renders 240 frames and returns the last one's pixels (640 x 360 RGBA). */
static uint8_t *render_run(uint32_t threads) {
    enum { frames = 240 };
    ona_runtime *rt = start_game(threads, ONA_VIDEO_OFFSCREEN, "autoplay=1 seed=3");
    char path[96];
    snprintf(path, sizeof path, "/tmp/ona-platformer-%ld-%u.png", (long)getpid(), threads);
    uint8_t *px = shoot_frames(rt, frames, 1.0 / 60, path, 640, 360);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    collector_free();
    return px;
}

/* The same picture on 1, 2 and 4 threads with plain messages: the runtime's ordered delivery and
 * main.lua's `after` are all it takes (no script uses ona.inbox). */
START_TEST(test_platformer_draws_the_same_on_1_2_and_4_threads) {
    assert_scripts_without(ONA_SOURCE_DIR "/samples/platformer", "require(\"ona.inbox\")");
    uint8_t *one = assert_same_on_1_2_and_4_threads(render_run, 640u * 360u * 4u);
    /* Something of each part is on the screen: the HUD panel's gold frame at the top left (screen
     * space), sky blue above the ground, and the grass's green further down. */
    int gold = 0, sky = 0, grass = 0;
    for (int y = 0; y < 360; y++)
        for (int x = 0; x < 640; x++) {
            const uint8_t *p = one + (y * 640 + x) * 4;
            if (x < 320 && y < 70 && p[0] > 150 && p[1] > 120 && p[2] < 110)
                gold++;
            if (y < 200 && p[2] > 120 && p[2] > p[0] + 30)
                sky++;
            if (y > 150 && p[1] > 120 && p[1] > p[0] + 40 && p[1] > p[2] + 40)
                grass++;
        }
    ck_assert_msg(gold > 200, "HUD frame: %d gold pixels", gold);
    ck_assert_msg(sky > 20000, "sky: %d blue pixels", sky);
    ck_assert_msg(grass > 200, "grass: %d green pixels", grass);
    stbi_image_free(one);
}
END_TEST

int main(void) {
    Suite *s = suite_create("platformer");
    TCase *tc = tcase_create("game");
    tcase_set_timeout(tc, 180);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_platformer_autoplay_runs_the_level_and_collects_coins);
    tcase_add_test(tc, test_platformer_same_run_on_1_and_2_threads);
    tcase_add_test(tc, test_platformer_effects_land_in_the_frame_along_the_order);
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("offscreen");
    tcase_set_timeout(gl, 180);
    tcase_add_checked_fixture(gl, setup, teardown);
    tcase_add_test(gl, test_platformer_draws_the_same_on_1_2_and_4_threads);
    suite_add_tcase(s, gl);
    return run_suite(s);
}
