/*
 * test_determinism.c: the sample games recorded and replayed (tests/test_support.h's
 * game_session). invaders and platformer with autoplay are recorded for 600 frames on 2
 * threads and replay without divergence, to the same last picture byte for byte, on 1, 2 and 4
 * threads, headless and offscreen; a session with the measured (variable) dt replays the same;
 * a recording process killed mid-session (SIGKILL) leaves a file that replays up to the kill.
 */
#include "test_support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { FRAMES = 600 };

static char rec_path[128];

static void setup(void) {
    capture_logs_begin();
    snprintf(rec_path, sizeof rec_path, "/tmp/ona-determinism-%d.onarec", (int)getpid());
}

static void teardown(void) {
    unlink(rec_path);
    capture_logs_end();
}

static game_session sample(const char *game, ona_video video) {
    static char root[2][512];
    int i = video == ONA_VIDEO_OFFSCREEN;
    snprintf(root[i], sizeof root[i], "%s/samples/%s", ONA_SOURCE_DIR, game);
    return (game_session){.root = root[i],
                          .args = "seed=5 autoplay=1",
                          .threads = 2,
                          .video = video,
                          .frames = FRAMES,
                          .dt = 1.0 / 60,
                          .record = rec_path};
}

START_TEST(test_invaders_replays_headless_and_offscreen) {
    assert_recording_replays(sample("invaders", ONA_VIDEO_NONE));
    assert_recording_replays(sample("invaders", ONA_VIDEO_OFFSCREEN));
}
END_TEST

START_TEST(test_platformer_replays_headless_and_offscreen) {
    assert_recording_replays(sample("platformer", ONA_VIDEO_NONE));
    assert_recording_replays(sample("platformer", ONA_VIDEO_OFFSCREEN));
}
END_TEST

START_TEST(test_a_measured_dt_replays_the_same) {
    game_session s = sample("invaders", ONA_VIDEO_NONE);
    s.dt = 0; /* each frame's dt is the time it took */
    s.frames = 200;
    assert_recording_replays(s);
}
END_TEST

/* Before frame KILL_AT, the recording process kills itself: no destroy, no end chunk. */
enum { KILL_AT = 150 };

static void kill_at(ona_runtime *rt, int frame) {
    (void)rt;
    if (frame == KILL_AT)
        kill(getpid(), SIGKILL);
}

START_TEST(test_a_recording_killed_mid_session_replays_up_to_the_kill) {
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        game_session s = sample("invaders", ONA_VIDEO_NONE);
        s.input = kill_at;
        uint64_t diverged;
        char why[64];
        run_session(&s, &diverged, why, sizeof why);
        _exit(3); /* not reached */
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(rec_path, &info), 0);
    ck_assert(!info.ended);
    ck_assert_uint_eq(info.frames, KILL_AT - 1); /* every frame before the kill */
    game_session s = sample("invaders", ONA_VIDEO_NONE);
    s.record = NULL;
    s.replay = rec_path;
    uint64_t diverged;
    char why[768];
    run_session(&s, &diverged, why, sizeof why);
    ck_assert_msg(diverged == 0, "diverged at %llu: %s", (unsigned long long)diverged, why);
}
END_TEST

int main(void) {
    Suite *s = suite_create("determinism");
    TCase *tc = tcase_create("determinism");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_invaders_replays_headless_and_offscreen);
    tcase_add_test(tc, test_platformer_replays_headless_and_offscreen);
    tcase_add_test(tc, test_a_measured_dt_replays_the_same);
    tcase_add_test(tc, test_a_recording_killed_mid_session_replays_up_to_the_kill);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
