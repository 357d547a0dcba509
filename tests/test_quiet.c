/*
 * test_quiet.c: the launcher says nothing on a normal run, more with -v and -vv; ALSA's own
 * stderr lines are silenced while the runtime's one line about the audio stays; an error that
 * several systems hit alike is one line naming them all; --stats lists the systems busiest
 * first with their share of the frame and the main thread's draw and present time; the trace
 * has draw and present slices; --version and the log name the same GL version; --fixed-step
 * and --max-steps are read and checked. Runs the built `ona` binary.
 */
#include "test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[64];

static void tmp_make(void) {
    snprintf(tmp, sizeof tmp, "/tmp/ona-quiet-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void tmp_remove(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *path_in(const char *name) {
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", tmp, name);
    return p;
}

static void write_file(const char *name, const char *text) {
    FILE *f = fopen(path_in(name), "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

typedef launcher_result result;
#define result_free launcher_result_free

/* Runs the launcher with `args` (NULL-terminated, without argv[0]) and waits for it. */
static result run_ona(const char *const *args) {
    return launcher_run(ONA_LAUNCHER_PATH, tmp, args, NULL);
}

/* A game that draws a little and plays nothing. */
static const char *make_quiet_game(void) {
    ck_assert_int_eq(mkdir(path_in("game"), 0755), 0);
    write_file("game/main.lua", "ona.spawn('box.lua')\n");
    write_file("game/box.lua",
               "return { process = function() ona.gfx.rect(10, 10, 20, 20) end }\n");
    return path_in("game");
}

/* A normal run, headless, prints nothing at all; -v shows the GL line and -vv debug lines. */
START_TEST(test_quiet_normal_run_prints_nothing) {
    tmp_make();
    const char *game = make_quiet_game();
    result r = run_ona((const char *[]){game, "--headless", "--frames", "3", "--no-audio", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(r.err[0] == '\0' && r.out[0] == '\0', "stdout:\n%s\nstderr:\n%s", r.out, r.err);
    result_free(&r);
    r = run_ona((const char *[]){game, "--headless", "--frames", "3", "--no-audio", "-v", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "ona: info: gfx: OpenGL "), "%s", r.err);
    ck_assert_msg(!strstr(r.err, "ona: debug: "), "%s", r.err);
    result_free(&r);
    r = run_ona((const char *[]){game, "--headless", "--frames", "3", "--no-audio", "-vv", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "ona: info: gfx: OpenGL "), "%s", r.err);
    ck_assert_msg(strstr(r.err, "ona: debug: "), "%s", r.err);
    result_free(&r);
    /* A game's own print is still shown by default. */
    write_file("game/box.lua", "return { process = function() print('hello') ona.quit() end }\n");
    r = run_ona((const char *[]){game, "--headless", "--no-audio", NULL});
    ck_assert_msg(r.status == 0 && strstr(r.err, "ona: info: box: hello"), "%s", r.err);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* With ALSA as SDL's driver and a device that does not exist, ALSA's printer is silenced: no
 * "ALSA lib" line (ALSA prints several there), and the runtime's one line about the audio
 * remains. */
START_TEST(test_quiet_alsa_lines_are_silenced) {
    tmp_make();
    const char *game = make_quiet_game();
    wav_write(path_in("game/beep.wav"), 48000, 1, 4800, 8000);
    write_file("game/box.lua", "local s\n"
                               "return { process = function()\n"
                               "  s = s or ona.audio.sound('beep.wav')\n"
                               "  ona.audio.play(s)\n"
                               "end }\n");
    setenv("SDL_AUDIODRIVER", "alsa", 1);
    setenv("AUDIODEV", "ona_no_such_device", 1);
    result r = run_ona((const char *[]){game, "--headless", "--frames", "3", NULL});
    unsetenv("SDL_AUDIODRIVER");
    unsetenv("AUDIODEV");
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(!strstr(r.err, "ALSA lib"), "%s", r.err);
    /* No such device (AUDIODEV), or no libasound at all: the runtime says so, once. */
    const char *line = strstr(r.err, "ona: info: audio: no audio ");
    ck_assert_msg(line && !strstr(line + 1, "ona: info: audio: "), "%s", r.err);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* Nine systems running one broken module fail in the same frame: one error line names all
 * nine; two different errors are two lines. */
START_TEST(test_quiet_one_error_many_systems_is_one_line) {
    tmp_make();
    ck_assert_int_eq(mkdir(path_in("game"), 0755), 0);
    write_file("game/broken.lua", "local M = {}\n"
                                  "function M.update(n)\n"
                                  "  return n.missing.field\n"
                                  "end\n"
                                  "return M\n");
    write_file("game/enemy.lua", "local broken = require('broken')\n"
                                 "return { process = function() broken.update({}) end }\n");
    write_file("game/other.lua", "return { process = function() error('other failed') end }\n");
    write_file(
        "game/main.lua",
        "for i = 1, 9 do ona.spawn('enemy.lua', nil, {name = 'enemy' .. i, policy = 'stop'}) end\n"
        "ona.spawn('other.lua', nil, {policy = 'stop'})\n");
    result r = run_ona((const char *[]){path_in("game"), "--headless", "--frames", "3",
                                        "--no-audio", "--no-watch", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *line = strstr(r.err, "ona: error: enemy1, enemy2, enemy3, enemy4, enemy5, "
                                     "enemy6, enemy7, enemy8, enemy9 (9 systems): ");
    ck_assert_msg(line && strstr(line, "/broken.lua:3: attempt to index") < strchr(line, '\n'),
                  "%s", r.err);
    int count = 0;
    for (const char *p = r.err; (p = strstr(p, "broken.lua:3: attempt to index")); p++)
        count++;
    ck_assert_msg(count == 1, "%d lines:\n%s", count, r.err);
    ck_assert_msg(strstr(r.err, "ona: error: other: ") &&
                      strstr(r.err, "/other.lua:1: other failed"),
                  "%s", r.err);
    result_free(&r);
    /* Watching files, the nine pause: said once too, naming them. */
    r = run_ona(
        (const char *[]){path_in("game"), "--headless", "--frames", "3", "--no-audio", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_msg(strstr(r.err, "ona: warn: hot reload: enemy1, enemy2, enemy3, enemy4, enemy5, "
                                "enemy6, enemy7, enemy8, enemy9 (9 systems) paused: "),
                  "%s", r.err);
    count = 0;
    for (const char *p = r.err; (p = strstr(p, "broken.lua:3: attempt to index")); p++)
        count++;
    ck_assert_msg(count == 2, "%d lines:\n%s", count, r.err); /* the error and the pause */
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --stats: the systems busiest first, each with its share of the frame; the main thread's draw
 * and present. */
START_TEST(test_quiet_stats_sorted_with_shares) {
    tmp_make();
    ck_assert_int_eq(mkdir(path_in("game"), 0755), 0);
    write_file("game/idle.lua", "return { process = function() end }\n");
    write_file("game/busy.lua", "return { process = function()\n"
                                "  local x = 0\n"
                                "  for i = 1, 200000 do x = x + math.sin(i) end\n"
                                "  ona.gfx.rect(0, 0, 4, 4)\n"
                                "end }\n");
    write_file("game/main.lua", "ona.spawn('idle.lua')\nona.spawn('busy.lua')\n");
    result r = run_ona((const char *[]){path_in("game"), "--headless", "--frames", "20",
                                        "--no-audio", "--stats", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *main_line = strstr(r.out, "main thread: 20 pictures, draw ");
    ck_assert_msg(main_line && strstr(main_line, "present "), "%s", r.out);
    ck_assert_msg(strstr(r.out, " share "), "%s", r.out);
    const char *busy = strstr(r.out, "\nbusy "), *idle = strstr(r.out, "\nidle ");
    ck_assert_msg(busy && idle && busy < idle, "%s", r.out);
    ck_assert_msg(strchr(busy + 1, '%') < strchr(busy + 1, '\n'), "%s", r.out);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* The trace has "draw" and "present" slices on the main thread's track. */
START_TEST(test_quiet_trace_has_draw_and_present) {
    tmp_make();
    const char *game = make_quiet_game();
    const char *trace = path_in("trace.json");
    result r = run_ona((const char *[]){game, "--headless", "--frames", "4", "--no-audio",
                                        "--trace", trace, NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    result_free(&r);
    FILE *f = fopen(trace, "r");
    ck_assert_ptr_nonnull(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    int draws = 0, presents = 0;
    for (const char *p = text; (p = strstr(p, "{\"name\":\"draw\",\"cat\":\"main\"")); p++)
        draws++;
    for (const char *p = text; (p = strstr(p, "{\"name\":\"present\",\"cat\":\"main\"")); p++)
        presents++;
    ck_assert_msg(draws == 4 && presents == 4, "%d draws, %d presents", draws, presents);
    tmp_remove();
}
END_TEST

/* The GL version --version prints is the one the log names for a run. */
START_TEST(test_quiet_version_and_log_agree_on_gl) {
    tmp_make();
    const char *game = make_quiet_game();
    result v = run_ona((const char *[]){"--version", NULL});
    ck_assert_msg(v.status == 0, "%s%s", v.out, v.err);
    const char *gl = strstr(v.out, "GL         ");
    ck_assert_msg(gl, "%s", v.out);
    char version[128];
    ck_assert_int_eq(sscanf(gl + 11, "%127[^\n]", version), 1);
    result r =
        run_ona((const char *[]){game, "--headless", "--frames", "1", "--no-audio", "-v", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    char want[200];
    snprintf(want, sizeof want, "ona: info: gfx: OpenGL %s on ", version);
    ck_assert_msg(strstr(r.err, want), "--version said '%s'; the run:\n%s", version, r.err);
    result_free(&v);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --fixed-step takes a fraction or a decimal in (0, 1]; --max-steps needs it. */
START_TEST(test_quiet_fixed_step_options) {
    tmp_make();
    ck_assert_int_eq(mkdir(path_in("game"), 0755), 0);
    write_file("game/main.lua", "ona.spawn('clock.lua')\n");
    write_file("game/clock.lua", "return { process = function(state, events, dt)\n"
                                 "  if ona.frame() == 4 then\n"
                                 "    print(string.format('dt=%.17g time=%.17g', dt, ona.time()))\n"
                                 "    ona.quit()\n"
                                 "  end\n"
                                 "end }\n");
    const char *good[] = {"1/50", "0.02"};
    for (int i = 0; i < 2; i++) {
        result r = run_ona((const char *[]){path_in("game"), "--headless", "--no-audio",
                                            "--fixed-step", good[i], "--max-steps", "3", NULL});
        char want[96];
        snprintf(want, sizeof want, "dt=%.17g time=%.17g", 0.02, 4 * 0.02);
        ck_assert_msg(r.status == 0 && strstr(r.err, want), "%s: want %s in:\n%s", good[i], want,
                      r.err);
        result_free(&r);
    }
    const char *bad[] = {"0", "1/0", "abc", "2", "1/", "-1/60"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        result r = run_ona((const char *[]){path_in("game"), "--fixed-step", bad[i], NULL});
        ck_assert_msg(r.status == 2 && strstr(r.err, "--fixed-step needs"), "%s: %s", bad[i],
                      r.err);
        result_free(&r);
    }
    result r = run_ona((const char *[]){path_in("game"), "--max-steps", "3", NULL});
    ck_assert_msg(r.status == 2 && strstr(r.err, "--max-steps needs --fixed-step"), "%s", r.err);
    result_free(&r);
    tmp_remove();
}
END_TEST

static Suite *quiet_suite(void) {
    Suite *s = suite_create("quiet");
    TCase *tc = tcase_create("quiet");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_quiet_normal_run_prints_nothing);
    tcase_add_test(tc, test_quiet_alsa_lines_are_silenced);
    tcase_add_test(tc, test_quiet_one_error_many_systems_is_one_line);
    tcase_add_test(tc, test_quiet_stats_sorted_with_shares);
    tcase_add_test(tc, test_quiet_trace_has_draw_and_present);
    tcase_add_test(tc, test_quiet_version_and_log_agree_on_gl);
    tcase_add_test(tc, test_quiet_fixed_step_options);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(quiet_suite());
}
