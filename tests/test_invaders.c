/*
 * test_invaders.c: the invaders sample (samples/invaders) played headless through the embedding
 * API: scripted keyboard input pushed with ona_runtime_push_event, a fixed time step, and the
 * native collector (test_support.c) as the game's `report` system, which gets
 * ("score", score, frame) from the score system and ("mode", mode, wave, lives, frame) from the
 * game system. Checks that the game plays without an error, scores, replays exactly from the
 * same seed and input (on 1 and 2 threads), ends and restarts, plays itself with autoplay=1,
 * quits on escape, draws the same picture on 1, 2 and 4 threads under ordered delivery with no
 * script using ona.inbox, and saves a new high score where the next game loads it; with
 * latency=1 (reports of what each system saw and did) it measures how many frames each chain
 * takes along main.lua's declared order. Saves go to a scratch folder (never the user's), and
 * sound to SDL's dummy driver.
 */
#include "test_support.h"

#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/samples/invaders", NULL};

static char save_dir[64];

static void setup(void) {
    capture_logs_begin();
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    snprintf(save_dir, sizeof save_dir, "/tmp/ona-invaders-saves-%ld", (long)getpid());
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", save_dir);
    ck_assert_int_eq(system(cmd), 0);
}

static ona_runtime *make_runtime(uint32_t threads, ona_video video, int width, int height) {
    ona_runtime_desc desc = {.threads = threads,
                             .delivery = ONA_DELIVERY_ORDERED,
                             .script_roots = roots,
                             .video = video,
                             .save_dir = save_dir,
                             .window = {.width = width, .height = height}};
    return create_runtime(&desc);
}

/* Creates a runtime, the collector (spawned first, so it is the `report` of main.lua's args) and
 * the game with the "key=value" args. */
static ona_runtime *start_game(uint32_t threads, ona_video video, const char *args) {
    ona_runtime *rt = make_runtime(threads, video, 320, 240);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, args, 0, 0);
    return rt;
}

static void push_key(ona_runtime *rt, ona_event_type type, const char *key) {
    ona_event e = {.type = type};
    snprintf(e.as.key.name, sizeof e.as.key.name, "%s", key);
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), 0);
}

static void step(ona_runtime *rt) {
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

/* The scripted player: holds a direction key for a while, rests, and taps space (down on one
 * frame, up on the next) every 12 frames. */
typedef struct held {
    int from, to; /* frames (1-based) the key goes down and up */
    const char *key;
} held;

static const held moves[] = {
    {20, 80, "right"}, {120, 230, "left"},  {260, 300, "d"},
    {330, 380, "a"},   {400, 450, "right"}, {470, 560, "left"},
};

static void script_frame(ona_runtime *rt, int frame) {
    for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
        if (frame == moves[i].from)
            push_key(rt, ONA_EVENT_KEY_DOWN, moves[i].key);
        if (frame == moves[i].to)
            push_key(rt, ONA_EVENT_KEY_UP, moves[i].key);
    }
    if (frame % 12 == 5)
        push_key(rt, ONA_EVENT_KEY_DOWN, "space");
    if (frame % 12 == 6)
        push_key(rt, ONA_EVENT_KEY_UP, "space");
}

static void play_scripted(ona_runtime *rt, int frames) {
    for (int f = 1; f <= frames; f++) {
        script_frame(rt, f);
        step(rt);
    }
}

/* No error or warning was logged, and no system failed: every one is running, never restarted
 * (main, a one-shot that spawned the others, ended at the first frame boundary). */
static void assert_clean(ona_runtime *rt) {
    assert_game_clean(rt, 10); /* the collector and the game's 9 systems */
}

/* The reports: ("score", score, frame) and ("mode", mode, wave, lives, frame) in order.
 *
 * The collector is a native system that takes what is in its mailbox whenever its turn runs, so
 * a report sent late in frame N is read in frame N or N+1 depending on the threads' timing. What
 * the game sent is deterministic; when the collector read it is not: runs are compared on the
 * reports of frames up to a limit, stepped one frame past it. */
typedef struct report {
    int scores;        /* score reports */
    double last_score; /* the last one */
    double max_score;
    int overs;    /* "mode" reports of "over" */
    int restarts; /* "playing" after an "over" */
    double last_lives, last_wave;
} report;

/* The frame a report at items[i] was sent in, or 0 when items[i] does not start one. */
static double report_frame(int i) {
    const item *it = &coll->items[i];
    if (it->type != ONA_VALUE_STRING)
        return 0;
    if (strcmp(it->text, "score") == 0 && i + 2 < coll->count)
        return coll->items[i + 2].number;
    if (strcmp(it->text, "mode") == 0 && i + 4 < coll->count)
        return coll->items[i + 4].number;
    return 0;
}

static report read_reports_until(double last_frame) {
    report r = {0};
    bool over = false;
    for (int i = 0; i < coll->count; i++) {
        const item *it = &coll->items[i];
        double frame = report_frame(i);
        if (frame == 0 || frame > last_frame)
            continue;
        if (strcmp(it->text, "score") == 0) {
            r.scores++;
            r.last_score = coll->items[i + 1].number;
            if (r.last_score > r.max_score)
                r.max_score = r.last_score;
        } else {
            const char *mode = coll->items[i + 1].text;
            r.last_wave = coll->items[i + 2].number;
            r.last_lives = coll->items[i + 3].number;
            if (strcmp(mode, "over") == 0) {
                r.overs++;
                over = true;
            } else if (strcmp(mode, "playing") == 0 && over) {
                r.restarts++;
                over = false;
            }
        }
    }
    return r;
}

static report read_reports(void) {
    return read_reports_until(1e300);
}

START_TEST(test_invaders_scripted_input_plays_and_scores_without_errors) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "seed=1");
    play_scripted(rt, 600);
    assert_clean(rt);
    report r = read_reports();
    ck_assert_msg(r.scores > 0 && r.max_score > 0, "the score never changed\n%s",
                  captured_logs_text());
    /* Escape quits. */
    ck_assert(!ona_runtime_quit_requested(rt));
    push_key(rt, ONA_EVENT_KEY_DOWN, "escape");
    step(rt);
    ck_assert(ona_runtime_quit_requested(rt));
    ona_runtime_destroy(rt);
}
END_TEST

/* The reports sent up to `last_frame`, as text, for comparing two runs. */
static char *reports_text(double last_frame) {
    size_t cap = (size_t)coll->count * 48 + 1, len = 0;
    char *text = calloc(cap, 1);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < coll->count; i++) {
        double frame = report_frame(i);
        if (frame == 0 || frame > last_frame)
            continue;
        int values = strcmp(coll->items[i].text, "score") == 0 ? 3 : 5;
        for (int k = i; k < i + values; k++) {
            const item *it = &coll->items[k];
            int n = it->type == ONA_VALUE_STRING
                        ? snprintf(text + len, cap - len, "%.40s ", it->text)
                        : snprintf(text + len, cap - len, "%g ", it->number);
            ck_assert(n > 0 && (size_t)n < cap - len);
            len += (size_t)n;
        }
    }
    return text;
}

static char *scripted_run(uint32_t threads, report *out) {
    ona_runtime *rt = start_game(threads, ONA_VIDEO_NONE, "seed=6");
    play_scripted(rt, 600);
    step(rt); /* the collector reads what frame 600 sent */
    assert_clean(rt);
    ona_runtime_destroy(rt);
    *out = read_reports_until(600);
    char *text = reports_text(600);
    collector_free();
    return text;
}

START_TEST(test_invaders_same_seed_and_input_replay_the_same_game) {
    report a, b;
    char *first = scripted_run(2, &a);
    char *second = scripted_run(1, &b);
    ck_assert_msg(a.scores > 0, "nothing scored: %s", first);
    /* Every score change and mode change, with its frame number, is the same. */
    ck_assert_msg(strcmp(first, second) == 0, "2 threads: %s\n1 thread:  %s", first, second);
    ck_assert_double_eq(a.last_score, b.last_score);
    free(first);
    free(second);
}
END_TEST

/* The frame of the first report ("what", [value,] frame) at or after the report `since`, whose
 * value (when it has one) is not 0; -1 when there is none. */
static double first_report(const char *what, bool valued, double since) {
    int width = valued ? 3 : 2;
    for (int i = 0; i + width - 1 < coll->count; i++) {
        const item *it = &coll->items[i];
        if (it->type != ONA_VALUE_STRING || strcmp(it->text, what) != 0)
            continue;
        double frame = coll->items[i + width - 1].number;
        if (frame >= since && (!valued || coll->items[i + 1].number != 0))
            return frame;
    }
    return -1;
}

/* The frame of the laser's report ("laser", y, frame) at the height collisions tested it at in
 * its first hit ("kill", y, frame); -1 when there is none. */
static double hit_frame(void) {
    for (int i = 0; i + 2 < coll->count; i++) {
        const item *it = &coll->items[i];
        if (it->type != ONA_VALUE_STRING || strcmp(it->text, "kill") != 0)
            continue;
        for (int k = 0; k + 2 < coll->count; k++)
            if (coll->items[k].type == ONA_VALUE_STRING &&
                strcmp(coll->items[k].text, "laser") == 0 &&
                coll->items[k + 1].number == it[1].number)
                return coll->items[k + 2].number;
        return -1;
    }
    return -1;
}

/* How many frames each chain takes, measured with latency=1 (bullets, player, collisions,
 * invaders and ui report what they saw or did, with the frame). Along the declared order a key
 * moves the cannon and fires in the frame it is pressed, and a hit is found, scored and printed
 * in the frame the laser reaches the invader; the one hop against the order (collisions tells
 * invaders which one it hit) lands a frame later. The frames are printed for the README. */
START_TEST(test_invaders_effects_land_in_the_frame_along_the_order) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "seed=1 latency=1");
    enum { right_at = 10, fire_at = 30 };
    int frame = 0;
    while (frame < 900 && first_report("kill", true, 0) < 0) {
        frame++;
        if (frame == right_at)
            push_key(rt, ONA_EVENT_KEY_DOWN, "right");
        if (frame == right_at + 10)
            push_key(rt, ONA_EVENT_KEY_UP, "right");
        if (frame >= fire_at && frame % 12 == fire_at % 12)
            push_key(rt, ONA_EVENT_KEY_DOWN, "space");
        if (frame > fire_at && frame % 12 == (fire_at + 1) % 12)
            push_key(rt, ONA_EVENT_KEY_UP, "space");
        step(rt);
    }
    for (int f = 0; f < 4; f++)
        step(rt); /* the last reports reach the collector */
    assert_clean(rt);
    ona_runtime_destroy(rt);
    double hit = hit_frame();
    ck_assert_msg(hit > 0, "no hit in %d frames", frame);
    double move = first_report("move", true, 0) - right_at;
    double shot = first_report("shot", false, 0) - fire_at;
    double found = first_report("kill", true, 0) - hit;
    double scored = first_report("score", true, hit) - hit;
    double shown = first_report("shown", true, hit) - hit;
    double gone = first_report("boom", false, hit) - hit;
    fprintf(stderr,
            "invaders latency (frames): key -> cannon moves %g, key -> laser drawn %g; laser "
            "reaches an invader -> hit found %g, scored %g, score printed %g, invader gone %g\n",
            move, shot, found, scored, shown, gone);
    ck_assert_double_eq(move, 0);
    ck_assert_double_eq(shot, 0);
    ck_assert_double_eq(found, 0);
    ck_assert_double_eq(scored, 0);
    ck_assert_double_eq(shown, 0);
    ck_assert_double_eq(gone, 1);
}
END_TEST

START_TEST(test_invaders_autoplay_scores_without_errors) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "seed=11 autoplay=1");
    for (int f = 0; f < 600; f++)
        step(rt);
    assert_clean(rt);
    report r = read_reports();
    ck_assert_msg(r.last_score > 0, "autoplay scored %g\n%s", r.last_score, captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_invaders_game_over_then_restart) {
    /* One life and a cannon that never moves or fires: a bomb gets it, the game is over; r
     * starts a new game with the lives, wave and score reset. */
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "seed=5 lives=1");
    int frame = 0;
    while (read_reports().overs == 0 && frame < 3600) {
        step(rt);
        frame++;
    }
    report r = read_reports();
    ck_assert_msg(r.overs == 1, "no game over after %d frames", frame);
    ck_assert_double_eq(r.last_lives, 0);
    for (int f = 0; f < 30; f++)
        step(rt); /* the game stays over */
    ck_assert_int_eq(read_reports().restarts, 0);
    push_key(rt, ONA_EVENT_KEY_DOWN, "r");
    step(rt);
    push_key(rt, ONA_EVENT_KEY_UP, "r");
    for (int f = 0; f < 5; f++)
        step(rt);
    r = read_reports();
    ck_assert_int_eq(r.restarts, 1);
    ck_assert_double_eq(r.last_lives, 1);
    ck_assert_double_eq(r.last_wave, 1);
    assert_clean(rt);
    ona_runtime_destroy(rt);
}
END_TEST

/* The high score in save "highscore" ({hi = n}), or -1 when there is none. */
static double saved_high_score(void) {
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE, 320, 240);
    ona_message m;
    int rc = ona_runtime_load(rt, "highscore", &m);
    ona_runtime_destroy(rt);
    if (rc == ONA_ENOENT)
        return -1;
    ck_assert_msg(rc == 0, "load: %s\n%s", ona_strerror(rc), captured_logs_text());
    ona_message_reader r;
    ona_message_reader_begin(&r, &m);
    ona_value v;
    double hi = -1;
    bool after_key = false;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END) {
        if (after_key && v.type == ONA_VALUE_NUMBER)
            hi = v.as.number;
        after_key = v.type == ONA_VALUE_STRING && strcmp(v.as.string.bytes, "hi") == 0;
    }
    ona_message_release(&m);
    return hi;
}

START_TEST(test_invaders_saves_the_high_score) {
    ck_assert_double_eq(saved_high_score(), -1);
    /* One life; a cannon that stays put and fires every 12 frames scores, then a bomb gets it:
     * the game is over with a new high score. */
    ona_runtime *rt = start_game(2, ONA_VIDEO_NONE, "seed=5 lives=1");
    int frame = 0;
    while (read_reports().overs == 0 && frame < 7200) {
        frame++;
        if (frame % 12 == 5)
            push_key(rt, ONA_EVENT_KEY_DOWN, "space");
        if (frame % 12 == 6)
            push_key(rt, ONA_EVENT_KEY_UP, "space");
        step(rt);
    }
    step(rt); /* score reads game's "over" a frame later */
    step(rt);
    report r = read_reports();
    ck_assert_msg(r.overs >= 1 && r.max_score > 0, "overs %d, score %g after %d frames", r.overs,
                  r.max_score, frame);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    ck_assert_double_eq(saved_high_score(), r.max_score);
    /* A broken save is reported by the next game and ignored: it starts, with no error. */
    char path[128];
    snprintf(path, sizeof path, "%s/highscore.save", save_dir);
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 40, SEEK_SET);
    fputc('!', f);
    fclose(f);
    collector_free();
    rt = start_game(1, ONA_VIDEO_NONE, "seed=1");
    step(rt);
    step(rt);
    ck_assert_msg(captured_logs_contain("corrupt"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_invaders_draws_offscreen) {
    ona_runtime *rt = start_game(2, ONA_VIDEO_OFFSCREEN, "seed=1");
    char path[64];
    snprintf(path, sizeof path, "/tmp/ona-invaders-%ld.png", (long)getpid());
    enum { w = 320, h = 240 };
    uint8_t *px = shoot_frames(rt, 30, 1.0 / 60, path, w, h);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    /* At 320 x 240 the world is drawn at zoom 1: world units are pixels. Count what is lit
     * (anything brighter than the backdrop) in the formation's band, the cannon's row, and the
     * HUD line, and look for the squids' pink and the cannon's green. */
    int formation = 0, cannon = 0, hud = 0, pink = 0, green = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const uint8_t *p = px + (y * w + x) * 4;
            if (p[0] + p[1] + p[2] < 150)
                continue;
            if (y >= 30 && y < 110)
                formation++;
            if (y >= 204 && y < 212)
                cannon++;
            if (y < 14)
                hud++;
            if (y >= 30 && y < 42 && p[0] > 200 && p[1] < 160 && p[2] > 200)
                pink++;
            if (y >= 204 && y < 212 && p[1] > 200 && p[0] < 120)
                green++;
        }
    }
    ck_assert_msg(formation > 55 * 30, "formation: %d lit pixels", formation);
    ck_assert_msg(hud > 100, "hud: %d lit pixels", hud);
    ck_assert_msg(cannon > 40 && green > 40, "cannon: %d lit, %d green", cannon, green);
    ck_assert_msg(pink > 11 * 20, "squids: %d pink pixels", pink);
    stbi_image_free(px);
}
END_TEST

/* The score reported in each scripted_picture run, by thread count. */
static double picture_score[5];

/* Plays the scripted input for 300 frames on `threads` threads and returns the last frame's
 * pixels (320 x 240 RGBA); keeps the last score reported in picture_score[threads]. */
static uint8_t *scripted_picture(uint32_t threads) {
    enum { frames = 300 };
    ona_runtime *rt = start_game(threads, ONA_VIDEO_OFFSCREEN, "seed=6");
    play_scripted(rt, frames - 1);
    script_frame(rt, frames);
    char path[96];
    snprintf(path, sizeof path, "/tmp/ona-invaders-%ld-%u.png", (long)getpid(), threads);
    uint8_t *px = shoot_frames(rt, 1, 1.0 / 60, path, 320, 240);
    assert_clean(rt);
    ona_runtime_destroy(rt);
    picture_score[threads] = read_reports().last_score;
    collector_free();
    return px;
}

/* The game replays the same picture on 1, 2 and 4 threads with plain messages: the runtime's
 * ordered delivery and main.lua's `after` are all it takes (no script uses ona.inbox). */
START_TEST(test_invaders_draws_the_same_on_1_2_and_4_threads) {
    assert_scripts_without(ONA_SOURCE_DIR "/samples/invaders", "require(\"ona.inbox\")");
    uint8_t *one = assert_same_on_1_2_and_4_threads(scripted_picture, 320u * 240u * 4u);
    ck_assert_msg(picture_score[1] > 0, "nothing scored");
    ck_assert_double_eq(picture_score[1], picture_score[2]);
    ck_assert_double_eq(picture_score[1], picture_score[4]);
    stbi_image_free(one);
}
END_TEST

int main(void) {
    Suite *s = suite_create("invaders");
    TCase *tc = tcase_create("game");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_invaders_scripted_input_plays_and_scores_without_errors);
    tcase_add_test(tc, test_invaders_same_seed_and_input_replay_the_same_game);
    tcase_add_test(tc, test_invaders_effects_land_in_the_frame_along_the_order);
    tcase_add_test(tc, test_invaders_autoplay_scores_without_errors);
    tcase_add_test(tc, test_invaders_game_over_then_restart);
    tcase_add_test(tc, test_invaders_saves_the_high_score);
    suite_add_tcase(s, tc);
    TCase *gl = tcase_create("offscreen");
    tcase_set_timeout(gl, 120);
    tcase_add_checked_fixture(gl, setup, teardown);
    tcase_add_test(gl, test_invaders_draws_offscreen);
    tcase_add_test(gl, test_invaders_draws_the_same_on_1_2_and_4_threads);
    suite_add_tcase(s, gl);
    return run_suite(s);
}
