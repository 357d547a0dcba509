/*
 * test_signals.c: SIGINT and SIGTERM (runtime/signals.c, ona_runtime_desc.handle_signals).
 *
 * The launcher turns handle_signals on, so most tests run the built `ona` (as test_launcher.c
 * does) on a game from tests/games/ and signal it once its systems run: `infloop` has a system
 * spinning in `while true do end` with its turn budget off, which nothing can interrupt, so only
 * the 2 s deadline or a second signal can end it; `calm` runs until stopped, so its frames end and
 * the first signal quits in order. The games say on stderr (unbuffered) when they are where the
 * test wants them; the test waits for that line, never for a time. A run that never ends is killed
 * after a minute, a failure (far past the 2 s the runtime allows itself, so it is a safety net, not
 * a threshold). In process: the handlers are installed and restored, one runtime at a time, and SDL
 * installs none of its own.
 */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GAMES ONA_SOURCE_DIR "/tests/games"

typedef struct child {
    pid_t pid;
    char err_path[64];
    int err;
    int status; /* exit status; -1 when it died of a signal */
} child;

static void pause_briefly(void) {
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* Starts `ona <game> --headless --no-watch` with stdout and stderr in a temporary file. As in
 * test_launcher.c, a TSan child runs without reports (EGL unloading the driver at exit). */
static child start_ona(const char *game) {
    child c = {0};
    snprintf(c.err_path, sizeof c.err_path, "/tmp/ona-signals-XXXXXX");
    c.err = mkstemp(c.err_path);
    ck_assert_int_ge(c.err, 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, c.err, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, c.err, STDERR_FILENO);
    char **env = child_environment();
    char *argv[] = {(char *)ONA_LAUNCHER_PATH, (char *)game, (char *)"--headless",
                    (char *)"--no-watch", NULL};
    int rc = posix_spawn(&c.pid, ONA_LAUNCHER_PATH, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    ck_assert_msg(rc == 0, "posix_spawn %s: %s", ONA_LAUNCHER_PATH, strerror(rc));
    return c;
}

/* What the child wrote so far (static buffer). */
static const char *output(child *c) {
    static char text[65536];
    ssize_t n = pread(c->err, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    return text;
}

/* Waits until the child's output holds `needle`; fails if it exits first. */
static void wait_for(child *c, const char *needle) {
    for (;;) {
        if (strstr(output(c), needle))
            return;
        int wstatus;
        pid_t done = waitpid(c->pid, &wstatus, WNOHANG);
        ck_assert_msg(done == 0, "ona ended before saying '%s':\n%s", needle, output(c));
        pause_briefly();
    }
}

/* Waits for the child's end (killing it after a minute: a failure). */
static void wait_end(child *c) {
    for (int i = 0; i < 60 * 200; i++) {
        int wstatus;
        pid_t done = waitpid(c->pid, &wstatus, WNOHANG);
        if (done == c->pid) {
            c->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
            return;
        }
        pause_briefly();
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    ck_abort_msg("ona did not end after the signal:\n%s", output(c));
}

static void child_free(child *c) {
    close(c->err);
    unlink(c->err_path);
}

#define ASSERT_HAS(text, needle)                                                                   \
    ck_assert_msg(strstr((text), (needle)), "'%s' not in:\n%s", (needle), (text))

/* --- The launcher ---------------------------------------------------------------------------- */

START_TEST(test_signals_sigint_ends_a_runaway_after_the_deadline) {
    child c = start_ona(GAMES "/infloop");
    wait_for(&c, "spinning now");
    ck_assert_int_eq(kill(c.pid, SIGINT), 0);
    wait_end(&c);
    const char *out = output(&c);
    ck_assert_msg(c.status == 128 + SIGINT, "exit %d:\n%s", c.status, out);
    ASSERT_HAS(out, "SIGINT: quitting at the end of the frame");
    ASSERT_HAS(out, "SIGINT: the frame did not end within 2 s; ending the process now. Still "
                    "running: spinner");
    child_free(&c);
}
END_TEST

START_TEST(test_signals_second_signal_ends_at_once) {
    child c = start_ona(GAMES "/infloop");
    wait_for(&c, "spinning now");
    ck_assert_int_eq(kill(c.pid, SIGTERM), 0);
    wait_for(&c, "SIGTERM: quitting at the end of the frame");
    ck_assert_int_eq(kill(c.pid, SIGINT), 0);
    wait_end(&c);
    const char *out = output(&c);
    ck_assert_msg(c.status == 128 + SIGINT, "exit %d:\n%s", c.status, out);
    ASSERT_HAS(out, "SIGINT: a second signal; ending the process now. Still running: spinner");
    child_free(&c);
}
END_TEST

START_TEST(test_signals_sigterm_quits_at_the_end_of_the_frame) {
    child c = start_ona(GAMES "/calm");
    wait_for(&c, "ticking");
    ck_assert_int_eq(kill(c.pid, SIGTERM), 0);
    wait_end(&c);
    const char *out = output(&c);
    /* An orderly quit, but not a success. */
    ck_assert_msg(c.status == 128 + SIGTERM, "exit %d:\n%s", c.status, out);
    ASSERT_HAS(out, "SIGTERM: quitting at the end of the frame");
    ASSERT_HAS(out, "ona: stopped by signal 15 after");
    ck_assert_msg(!strstr(out, "ending the process now"), "forced:\n%s", out);
    child_free(&c);
}
END_TEST

/* --- In process ------------------------------------------------------------------------------ */

/* The handlers the test started with (Check may have its own): the runtime must leave them or
 * give them back. */
static void (*original[2])(int);

static void (*handler_of(int sig))(int) {
    struct sigaction sa;
    ck_assert_int_eq(sigaction(sig, NULL, &sa), 0);
    return sa.sa_handler;
}

static bool handlers_are_original(void) {
    return handler_of(SIGINT) == original[0] && handler_of(SIGTERM) == original[1];
}

static bool handlers_are_others(void) {
    return handler_of(SIGINT) != original[0] && handler_of(SIGTERM) != original[1];
}

START_TEST(test_signals_installed_only_when_asked_and_restored) {
    original[0] = handler_of(SIGINT);
    original[1] = handler_of(SIGTERM);
    /* Video on and handle_signals off: neither the runtime nor SDL takes the signals. */
    ona_runtime *rt;
    ona_runtime_desc desc = {
        .threads = 2, .video = ONA_VIDEO_OFFSCREEN, .window = {.width = 32, .height = 32}};
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(handlers_are_original());
    ck_assert_int_eq(ona_runtime_stop_signal(rt), 0);
    ona_runtime_destroy(rt);

    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.handle_signals = true}, &rt), 0);
    ck_assert(handlers_are_others());
    /* One runtime at a time. */
    ona_runtime *second = NULL;
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.handle_signals = true}, &second),
                     ONA_EBUSY);
    ck_assert(captured_logs_contain("another runtime already handles SIGINT and SIGTERM"));
    capture_logs_end();
    ck_assert_ptr_null(second);
    ona_runtime_destroy(rt);
    ck_assert(handlers_are_original());
    /* Given back: the next runtime may take them. */
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.handle_signals = true}, &rt), 0);
    ona_runtime_destroy(rt);
}
END_TEST

static int count_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx;
    (void)dt;
    ++*(int *)state;
    return 0;
}

START_TEST(test_signals_first_signal_asks_to_quit) {
    ona_runtime *rt;
    ck_assert_int_eq(
        ona_runtime_create(&(ona_runtime_desc){.threads = 2, .handle_signals = true}, &rt), 0);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt,
            &(ona_system_desc){.name = "counter", .size = sizeof(int), .process = count_process},
            &sys),
        0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(!ona_runtime_quit_requested(rt));
    capture_logs_begin();
    /* To the process, as a terminal or `kill` sends it (raise would pick this thread, where the
     * runtime blocks it). */
    ck_assert_int_eq(kill(getpid(), SIGTERM), 0);
    /* The watchdog thread handles it: wait for its answer. */
    while (!ona_runtime_quit_requested(rt))
        pause_briefly();
    ck_assert_int_eq(ona_runtime_stop_signal(rt), SIGTERM);
    /* ona_runtime_run stops before its first frame, and that is no error. */
    ona_runtime_stats before;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &before), 0);
    ck_assert_int_eq(ona_runtime_run(rt, 10, 1.0 / 60), 0);
    ona_runtime_stats after;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &after), 0);
    ck_assert_uint_eq(after.frames, before.frames);
    ck_assert(captured_logs_contain("SIGTERM: quitting at the end of the frame"));
    capture_logs_end();
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("signals");
    TCase *launcher = tcase_create("launcher");
    tcase_set_timeout(launcher, 120);
    tcase_add_test(launcher, test_signals_sigint_ends_a_runaway_after_the_deadline);
    tcase_add_test(launcher, test_signals_second_signal_ends_at_once);
    tcase_add_test(launcher, test_signals_sigterm_quits_at_the_end_of_the_frame);
    suite_add_tcase(s, launcher);
    TCase *in_process = tcase_create("in_process");
    tcase_set_timeout(in_process, 60);
    tcase_add_test(in_process, test_signals_installed_only_when_asked_and_restored);
    tcase_add_test(in_process, test_signals_first_signal_asks_to_quit);
    suite_add_tcase(s, in_process);
    return run_suite(s);
}
