/*
 * test_platformer.c: the platformer sample (samples/platformer) played headless through the
 * embedding API with a fixed time step and the autoplay pilot, the native collector
 * (test_support.c) as the game's `report` system: ("player", x, y, frame) from player every
 * 10th frame and ("coins", count, frame) from coins when the count changes. Checks that the pilot
 * runs through the level (larger than the screen: the camera scrolls) and collects coins without an
 * error, that the run is the same on 1 and 2 threads, that the rendered frames (tile map, animated
 * sheets, additive particles, the world's canvas through the game shader, the screen-space HUD) are
 * identical on 1 and 2 threads, and that escape quits.
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

/* Renders `frames` frames and returns the last one's pixels (640 x 360 RGBA). */
static uint8_t *render_run(uint32_t threads, int frames) {
    ona_runtime *rt = start_game(threads, ONA_VIDEO_OFFSCREEN, "autoplay=1 seed=3");
    char path[96];
    snprintf(path, sizeof path, "/tmp/ona-platformer-%ld-%u.png", (long)getpid(), threads);
    uint8_t *px = shoot_frames(rt, frames, 1.0 / 60, path, 640, 360);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    collector_free();
    return px;
}

START_TEST(test_platformer_draws_the_same_on_1_and_2_threads) {
    uint8_t *two = render_run(2, 240);
    uint8_t *one = render_run(1, 240);
    long differ = 0;
    for (size_t i = 0; i < 640u * 360u * 4u; i++)
        differ += one[i] != two[i];
    ck_assert_msg(differ == 0, "%ld bytes differ between 1 and 2 threads", differ);
    /* Something of each part is on the screen: the HUD panel's gold frame at the top left (screen
     * space), sky blue above the ground, and the grass's green further down. */
    int gold = 0, sky = 0, grass = 0;
    for (int y = 0; y < 360; y++)
        for (int x = 0; x < 640; x++) {
            const uint8_t *p = two + (y * 640 + x) * 4;
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
    stbi_image_free(two);
}
END_TEST

int main(void) {
    Suite *s = suite_create("platformer");
    TCase *tc = tcase_create("game");
    tcase_set_timeout(tc, 180);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_platformer_autoplay_runs_the_level_and_collects_coins);
    tcase_add_test(tc, test_platformer_same_run_on_1_and_2_threads);
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("offscreen");
    tcase_set_timeout(gl, 180);
    tcase_add_checked_fixture(gl, setup, teardown);
    tcase_add_test(gl, test_platformer_draws_the_same_on_1_and_2_threads);
    suite_add_tcase(s, gl);
    return run_suite(s);
}
