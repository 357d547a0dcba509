/*
 * test_launcher.c: the `ona` launcher, run as a program (posix_spawn, its stdout and stderr
 * captured in files): --version, --help, bad options, the key=value limit, path limits, and a
 * screenshot that cannot be written; --max-systems; runs that repeat (the same pairs() order and
 * random numbers in two processes); and ona/about.h, which --version prints.
 *
 * The launcher's path comes from CMake (ONA_LAUNCHER_PATH); games are samples/pingpong and small
 * folders written to a fresh temporary directory per test. Runs that need video use --headless,
 * i.e. SDL's offscreen driver on Mesa, as the gfx tests do.
 */
#include "test_support.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PINGPONG ONA_SOURCE_DIR "/samples/pingpong"
#define INVADERS ONA_SOURCE_DIR "/samples/invaders"

/* A game whose main.lua reports how many key=value pairs it got (and the sum of the numbers),
 * then quits. */
static const char *const counting_main = "local args = ...\n"
                                         "local n, sum = 0, 0\n"
                                         "for k, v in pairs(args) do\n"
                                         "  n = n + 1\n"
                                         "  if type(v) == 'number' then sum = sum + v end\n"
                                         "end\n"
                                         "print('args ' .. n .. ' sum ' .. sum)\n"
                                         "ona.quit()\n";

static char tmp[64];

static void tmp_make(void) {
    snprintf(tmp, sizeof tmp, "/tmp/ona-launcher-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void tmp_remove(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
}

/* Writes tmp/<name> with `text`. */
static void write_file(const char *name, const char *text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* Makes the folder tmp/<name> and returns its path (static: one game folder at a time). */
static const char *make_game_dir(const char *name) {
    static char game[128];
    snprintf(game, sizeof game, "%s/%s", tmp, name);
    ck_assert_int_eq(mkdir(game, 0755), 0);
    return game;
}

/* Writes the counting game to tmp/game; returns its path (static). */
static const char *make_counting_game(void) {
    const char *game = make_game_dir("game");
    write_file("game/main.lua", counting_main);
    return game;
}

typedef launcher_result result;
#define result_free launcher_result_free

/* Runs the launcher with `args` (NULL-terminated, without argv[0]) and `stdin_path` (NULL:
 * this process's) as its standard input, and waits for it. */
static result run_ona_input(const char *const *args, const char *stdin_path) {
    return launcher_run(ONA_LAUNCHER_PATH, tmp, args, stdin_path);
}

static result run_ona(const char *const *args) {
    return run_ona_input(args, NULL);
}

#define ASSERT_EXIT(r, expected)                                                                   \
    ck_assert_msg((r).status == (expected), "exit %d, expected %d; stdout:\n%s\nstderr:\n%s",      \
                  (r).status, (expected), (r).out, (r).err)
#define ASSERT_HAS(text, needle)                                                                   \
    ck_assert_msg(strstr((text), (needle)), "'%s' not in:\n%s", (needle), (text))

/* --- ona/about.h ----------------------------------------------------------------------------- */

START_TEST(test_launcher_about_lists_versions) {
    char buf[1024];
    ck_assert_int_eq(ona_about(buf, sizeof buf), 0);
    char first[256];
    snprintf(first, sizeof first, "ona        %s (%s)\n", ona_version(), ona_build_type());
    ck_assert_msg(strncmp(buf, first, strlen(first)) == 0, "got:\n%s", buf);
    ASSERT_HAS(buf, "\nLuaJIT     LuaJIT 2.");
    ASSERT_HAS(buf, "\nlibuv      1.");
    ASSERT_HAS(buf, "\nSDL        2.");
    ck_assert_int_eq(buf[strlen(buf) - 1], '\n');

    char small[10];
    ck_assert_int_eq(ona_about(small, sizeof small), ONA_ERANGE);
    ck_assert_str_eq(small, "ona      ");
    ck_assert_int_eq(ona_about(NULL, 10), ONA_EINVAL);
    ck_assert_int_eq(ona_about(buf, 0), ONA_EINVAL);
}
END_TEST

START_TEST(test_launcher_probe_reports_the_driver_and_leaves_sdl_free) {
    /* A runtime with video owns SDL video: the probe refuses and leaves the runtime working. */
    ona_runtime_desc desc = {.video = ONA_VIDEO_OFFSCREEN, .window = {.width = 64, .height = 64}};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ck_assert_int_eq(ona_runtime_video_mode(rt), ONA_VIDEO_OFFSCREEN);
    char buf[1024];
    ck_assert_int_eq(ona_video_probe(buf, sizeof buf), ONA_EBUSY);
    ASSERT_HAS(buf, "SDL video is in use");
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);

    /* Once it is gone, SDL video is free again; the probe leaves it free too. */
    for (int i = 0; i < 2; i++) {
        int rc = ona_video_probe(buf, sizeof buf);
        ck_assert_msg(rc == 0, "%s: %s", ona_error_name(rc), buf);
        ck_assert_msg(strncmp(buf, "video      offscreen\nGL         4.", 34) == 0, "got:\n%s",
                      buf);
        ASSERT_HAS(buf, "\nrenderer   ");
    }
    char small[8];
    ck_assert_int_eq(ona_video_probe(small, sizeof small), ONA_ERANGE);
    ck_assert_int_eq(strlen(small), 7);
    ck_assert_int_eq(ona_video_probe(NULL, 8), ONA_EINVAL);
}
END_TEST

/* --- Options --------------------------------------------------------------------------------- */

START_TEST(test_launcher_version) {
    tmp_make();
    result r = run_ona((const char *[]){"--version", NULL});
    ASSERT_EXIT(r, 0);
    static const char *const lines[] = {"ona        ", "LuaJIT     ", "libuv      ", "SDL        ",
                                        "video      ", "GL         ", "renderer   "};
    const char *p = r.out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        ck_assert_msg(strncmp(p, lines[i], strlen(lines[i])) == 0,
                      "line %zu is not '%s...' in:\n%s", i + 1, lines[i], r.out);
        p = strchr(p, '\n');
        ck_assert_ptr_nonnull(p);
        p++;
    }
    ck_assert_str_eq(p, "");
    result_free(&r);
    tmp_remove();
}
END_TEST

START_TEST(test_launcher_help) {
    tmp_make();
    static const char *const forms[] = {"--help", "-h", "--hel"};
    for (size_t f = 0; f < 3; f++) {
        result r = run_ona((const char *[]){forms[f], NULL});
        ASSERT_EXIT(r, 0);
        ck_assert_msg(strncmp(r.out, "usage: ona ", 11) == 0, "%s:\n%s", forms[f], r.out);
        static const char *const options[] = {
            "--headless",        "--frames N",      "--workers N",  "--size WxH", "--vsync on|off",
            "--screenshot PATH", "--stats",         "--trace PATH", "--no-watch", "--version",
            "key=value",         "--max-systems N", "--seed N",     "--sandbox",  "no sandbox"};
        for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
            ASSERT_HAS(r.out, options[i]);
        ck_assert_str_eq(r.err, "");
        result_free(&r);
    }
    tmp_remove();
}
END_TEST

START_TEST(test_launcher_bad_options) {
    tmp_make();
    static const struct {
        const char *args[4];
        const char *message;
    } cases[] = {
        {{"--bogus", PINGPONG, NULL}, "ona: unknown or ambiguous option '--bogus'"},
        {{PINGPONG, "-x", NULL}, "ona: unknown option '-x'"},
        {{PINGPONG, "--s", "1", NULL}, "ona: unknown or ambiguous option '--s'"},
        {{PINGPONG, "--frames", NULL}, "ona: --frames needs a positive number"},
        {{PINGPONG, "--frames=0", NULL},
         "ona: --frames needs a positive number (at most "
         "1000000000), not '0'"},
        {{PINGPONG, "--workers", "2x", NULL}, "ona: --workers needs a positive number"},
        {{PINGPONG, "--size", "64x", NULL}, "ona: --size needs WIDTHxHEIGHT"},
        {{PINGPONG, "--size=99999999999x64", NULL}, "ona: --size needs WIDTHxHEIGHT"},
        {{PINGPONG, "--vsync", "maybe", NULL}, "ona: --vsync needs on or off, not 'maybe'"},
        {{PINGPONG, "--headless=yes", NULL}, "ona: --headless takes no value"},
        {{PINGPONG, "--screenshot", NULL}, "ona: --screenshot needs a PNG path"},
        {{PINGPONG, "--screenshot", "x.png", NULL}, "--screenshot needs --frames N"},
        {{PINGPONG, PINGPONG, NULL}, "ona: only one game folder or script"},
        {{PINGPONG, "=5", NULL}, "ona: '=5' has no key before the '='"},
        {{PINGPONG, "--max-systems", "0", NULL},
         "ona: --max-systems needs a number of systems from 1 to 1048575, not '0'"},
        {{PINGPONG, "--max-systems=1048576", NULL},
         "ona: --max-systems needs a number of systems from 1 to 1048575, not '1048576'"},
        {{PINGPONG, "--max-systems", "many", NULL}, "ona: --max-systems needs a number"},
        {{PINGPONG, "--max-systems", NULL}, "ona: --max-systems needs a number"},
        {{PINGPONG, "--seed", "-1", NULL},
         "ona: --seed needs an integer from 0 to 9007199254740991 (2^53 - 1), not '-1'"},
        {{PINGPONG, "--seed=9007199254740992", NULL}, "ona: --seed needs an integer"},
        {{PINGPONG, "--seed", "1e3", NULL}, "ona: --seed needs an integer"},
        {{NULL}, "usage: ona "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r = run_ona(cases[i].args);
        ck_assert_msg(r.status == 2, "case %zu: exit %d, stderr:\n%s", i, r.status, r.err);
        ASSERT_HAS(r.err, cases[i].message);
        ck_assert_str_eq(r.out, "");
        result_free(&r);
    }
    /* An unknown option prints the usage too, on stderr. */
    result r = run_ona((const char *[]){"--bogus", NULL});
    ASSERT_HAS(r.err, "usage: ona ");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --- key=value pairs ------------------------------------------------------------------------- */

/* Runs `game` with `count` pairs k1=1 ... and `extra` (may be NULL) after them. */
static result run_pairs(const char *game, int count, const char *extra) {
    const char **args = calloc((size_t)count + 8, sizeof *args);
    char(*pairs)[32] = calloc((size_t)count + 1, sizeof *pairs);
    ck_assert(args && pairs);
    int n = 0;
    args[n++] = game;
    for (int i = 0; i < count; i++) {
        snprintf(pairs[i], sizeof pairs[i], "k%d=%d", i + 1, i + 1);
        args[n++] = pairs[i];
    }
    /* Options after the pairs are still options. */
    args[n++] = "--headless";
    args[n++] = "--frames=3";
    args[n++] = "--no-watch";
    if (extra)
        args[n++] = extra;
    result r = run_ona(args);
    free(pairs);
    free(args);
    return r;
}

START_TEST(test_launcher_pairs_reach_main_and_too_many_are_refused) {
    tmp_make();
    const char *game = make_counting_game();
    result r = run_pairs(game, 64, NULL);
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "args 64 sum 2080"); /* 1 + 2 + ... + 64: every pair, numbers parsed */
    result_free(&r);

    r = run_pairs(game, 65, NULL);
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: too many key=value arguments: 65 (at most 64)");
    ck_assert_msg(!strstr(r.err, "args "), "the game ran:\n%s", r.err);
    result_free(&r);

    r = run_pairs(game, 200, NULL);
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: too many key=value arguments: 200 (at most 64)");
    result_free(&r);

    /* Options after the game stay options when getopt is told to stop at the first operand. */
    setenv("POSIXLY_CORRECT", "1", 1);
    r = run_pairs(game, 2, NULL);
    unsetenv("POSIXLY_CORRECT");
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "args 2 sum 3");
    result_free(&r);

    /* After "--" everything is an operand. */
    r = run_ona(
        (const char *[]){"--frames=2", "--headless", "--no-watch", "--", game, "k=5", NULL});
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "args 1 sum 5");
    result_free(&r);

    /* A pair that is not one, after the game: refused, not taken for a second game. */
    r = run_pairs(game, 3, "stray");
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: only one game folder or script");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --- How many systems ------------------------------------------------------------------------ */

/* main.lua spawns `count` idle systems (key=value), says how many it got and the first refusal. */
static const char *make_spawning_game(void) {
    const char *game = make_game_dir("many");
    write_file("many/idle.lua", "return { process = function() end }\n");
    write_file("many/main.lua",
               "local args = ...\n"
               "local n, why = 0, nil\n"
               "for i = 1, args.count do\n"
               "  local h, err = ona.spawn('idle.lua', nil, {name = 'idle' .. i})\n"
               "  if h then n = n + 1 else why = why or err end\n"
               "end\n"
               "print(('spawned %d; first refusal: %s'):format(n, tostring(why)))\n"
               "return { process = function() end }\n");
    return game;
}

/* The refusal at max_systems names the launcher option that raises it, and that option lets
 * 10,000 systems (besides main) exist. */
START_TEST(test_launcher_max_systems) {
    tmp_make();
    const char *game = make_spawning_game();
    /* main.lua's chunk does all the spawning: thousands of spawns outlast the default turn
     * budget under the sanitizers. */
    result r = run_ona((const char *[]){game, "count=4100", "--frames", "2", "--no-watch",
                                        "--no-audio", "--turn-budget", "0", NULL});
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "spawned 4095; first refusal: cannot spawn 'idle4096': max_systems (4096) "
                      "systems exist; raise max_systems in ona_runtime_desc (the launcher's "
                      "--max-systems)");
    result_free(&r);

    r = run_ona((const char *[]){game, "count=10001", "--max-systems", "10001", "--frames", "2",
                                 "--no-watch", "--no-audio", "--turn-budget", "0", NULL});
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "spawned 10000; first refusal: cannot spawn 'idle10001': max_systems "
                      "(10001) systems exist");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --- Runs that repeat ------------------------------------------------------------------------ */

#ifndef ONA_LUAJIT_FIXED_SEED
#error "ONA_LUAJIT_FIXED_SEED is a compile definition of the build (cmake/luajit.cmake)"
#endif
#if ONA_LUAJIT_FIXED_SEED /* the system's LuaJIT seeds its string IDs from the OS */

/* Four systems each warm the JIT up (traces, so machine code is placed in memory near the VM),
 * drop some garbage strings, then list the order pairs() visits a table of 1,000 string keys,
 * and draw from math.random and ona.random(). */
static const char *make_order_game(void) {
    const char *game = make_game_dir("order");
    write_file("order/main.lua", "for i = 1, 4 do\n"
                                 "  assert(ona.spawn('lister.lua', nil, {name = 'lister' .. i}))\n"
                                 "end\n"
                                 "return { process = function() end }\n");
    write_file("order/lister.lua",
               "local x = 0\n"
               "for i = 1, 100000 do x = x + i % 7 end\n"
               "local junk = {}\n"
               "for i = 1, 2000 do junk[i] = 'junk' .. i end\n"
               "junk = nil\n"
               "local t = {}\n"
               "for i = 1, 1000 do t['key' .. i] = i end\n"
               "local order = {}\n"
               "for _, v in pairs(t) do order[#order + 1] = v end\n"
               "assert(#order == 1000)\n"
               "for i = 1, 1000, 100 do\n"
               "  print(('order %d: %s'):format(i, table.concat(order, ',', i, i + 99)))\n"
               "end\n"
               "print(('random %.17g %d %.17g'):format(math.random(), math.random(1000000),\n"
               "                                      ona.random():next()))\n"
               "return { process = function() end }\n");
    return game;
}

/* The lines of `text` holding `needle`, in order, joined (malloc'd). */
static char *lines_with(const char *text, const char *needle) {
    size_t size = strlen(text) + 1;
    char *out = calloc(1, size);
    ck_assert_ptr_nonnull(out);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line + 1) : strlen(line);
        if (memmem(line, n, needle, strlen(needle)))
            strncat(out, line, n);
        line += n;
    }
    return out;
}

static char *run_order_game(const char *game, const char *workers, const char *seed) {
    result r = run_ona((const char *[]){game, "--frames", "2", "--no-watch", "--no-audio",
                                        "--workers", workers, "--seed", seed, NULL});
    ASSERT_EXIT(r, 0);
    char *lines = lines_with(r.err, ": order ");
    char *draws = lines_with(r.err, ": random ");
    size_t size = strlen(lines) + strlen(draws) + 1;
    char *all = malloc(size);
    ck_assert_ptr_nonnull(all);
    snprintf(all, size, "%s%s", lines, draws);
    free(lines);
    free(draws);
    result_free(&r);
    return all;
}

/* Two processes running one game list the same pairs() order over string keys and draw the
 * same numbers, on one thread or on four, when the bundled LuaJIT (seeded with a fixed value)
 * runs it; systems of different names draw different numbers; another --seed draws others. */
START_TEST(test_launcher_runs_repeat) {
    tmp_make();
    const char *game = make_order_game();
    char *one = run_order_game(game, "1", "0");
    char *again = run_order_game(game, "1", "0");
    char *four = run_order_game(game, "4", "0");
    char *other_seed = run_order_game(game, "4", "12345");
    ck_assert_msg(strstr(one, "lister4: order 901: ") && strstr(one, "lister4: random "),
                  "the game did not report:\n%s", one);
    ck_assert_str_eq(one, again);
    ck_assert_str_eq(one, four);
    char *orders = lines_with(one, ": order "), *other_orders = lines_with(other_seed, ": order ");
    ck_assert_str_eq(orders, other_orders); /* the seed is not the strings' */
    ck_assert_str_ne(one, other_seed);      /* but it is the numbers' */
    char *draws = lines_with(one, ": random ");
    /* Each system draws its own numbers: four different lines without the names. */
    char *first = strstr(draws, "lister1: random "), *second = strstr(draws, "lister2: random ");
    ck_assert(first && second);
    ck_assert(strncmp(first + 16, second + 16, 20) != 0);
    free(orders);
    free(other_orders);
    free(draws);
    free(one);
    free(again);
    free(four);
    free(other_seed);
    tmp_remove();
}
END_TEST
#endif

/* --- Paths ----------------------------------------------------------------------------------- */

START_TEST(test_launcher_long_paths_are_refused) {
    tmp_make();
    char *path = malloc(1200);
    ck_assert_ptr_nonnull(path);
    memset(path, 'a', 1100);
    path[1100] = '\0';
    result r = run_ona((const char *[]){path, NULL});
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: the game path is too long (1100 bytes, at most 1000)");
    result_free(&r);
    r = run_ona((const char *[]){PINGPONG, "--frames", "2", "--screenshot", path, NULL});
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: the --screenshot path is too long (1100 bytes");
    result_free(&r);
    r = run_ona((const char *[]){PINGPONG, "--trace", path, NULL});
    ASSERT_EXIT(r, 2);
    ASSERT_HAS(r.err, "ona: the --trace path is too long (1100 bytes");
    result_free(&r);
    free(path);
    tmp_remove();
}
END_TEST

/* --- Screenshots ----------------------------------------------------------------------------- */

START_TEST(test_launcher_screenshot_written) {
    tmp_make();
    char shot[128];
    snprintf(shot, sizeof shot, "%s/shot.png", tmp);
    /* Twice: the second run overwrites the first file and must still count as written. */
    for (int run = 0; run < 2; run++) {
        result r = run_ona((const char *[]){PINGPONG, "--frames", "2", "--headless", "--no-watch",
                                            "--size", "64x48", "--screenshot", shot, NULL});
        ASSERT_EXIT(r, 0);
        ck_assert_msg(!strstr(r.err, "screenshot was not written"), "%s", r.err);
        result_free(&r);
        FILE *f = fopen(shot, "rb");
        ck_assert_ptr_nonnull(f);
        unsigned char magic[8];
        ck_assert_int_eq(fread(magic, 1, 8, f), 8);
        fclose(f);
        ck_assert_mem_eq(magic, "\x89PNG\r\n\x1a\n", 8);
    }
    tmp_remove();
}
END_TEST

START_TEST(test_launcher_screenshot_unwritable_folder) {
    tmp_make();
    result r = run_ona((const char *[]){PINGPONG, "--frames", "2", "--headless", "--no-watch",
                                        "--screenshot", "/nonexistent/dir/x.png", NULL});
    ASSERT_EXIT(r, 1);
    ASSERT_HAS(r.err, "ona: cannot write the screenshot to '/nonexistent/dir/x.png': "
                      "'/nonexistent/dir': No such file or directory");
    result_free(&r);

    /* A folder is not a PNG file. */
    r = run_ona((const char *[]){PINGPONG, "--frames", "2", "--headless", "--no-watch",
                                 "--screenshot", tmp, NULL});
    ASSERT_EXIT(r, 1);
    ASSERT_HAS(r.err, "it is a folder");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* The folder check passes but the write itself fails (a file name longer than NAME_MAX): the
 * runtime only logs that, and the launcher, finding no file, fails the run naming the path. */
START_TEST(test_launcher_screenshot_write_failure_fails_the_run) {
    tmp_make();
    char shot[512];
    int n = snprintf(shot, sizeof shot, "%s/", tmp);
    memset(shot + n, 's', 300);
    snprintf(shot + n + 300, sizeof shot - (size_t)n - 300, ".png");
    result r = run_ona((const char *[]){PINGPONG, "--frames", "2", "--headless", "--no-watch",
                                        "--size", "64x48", "--screenshot", shot, NULL});
    ASSERT_EXIT(r, 1);
    char message[600];
    snprintf(message, sizeof message, "ona: the screenshot was not written to '%s'", shot);
    ASSERT_HAS(r.err, message);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* A game that quits before the frame to capture leaves no screenshot: an error, not a silent
 * success. */
START_TEST(test_launcher_screenshot_game_quit_first) {
    tmp_make();
    const char *game = make_counting_game();
    char shot[128];
    snprintf(shot, sizeof shot, "%s/shot.png", tmp);
    result r = run_ona((const char *[]){game, "--frames", "5", "--headless", "--no-watch",
                                        "--screenshot", shot, NULL});
    ASSERT_EXIT(r, 1);
    char message[256];
    snprintf(message, sizeof message, "ona: no screenshot written to '%s': the game stopped", shot);
    ASSERT_HAS(r.err, message);
    struct stat st;
    ck_assert_int_ne(stat(shot, &st), 0);
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --- --record and --replay ------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no %s", path);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *bytes = malloc(*size + 1);
    ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
    fclose(f);
    return bytes;
}

START_TEST(test_launcher_replay_is_identical_and_names_a_divergence) {
    tmp_make();
    char rec[128], shot[128], again[128], game[128], cmd[512];
    snprintf(rec, sizeof rec, "%s/run.onarec", tmp);
    snprintf(shot, sizeof shot, "%s/recorded.png", tmp);
    snprintf(again, sizeof again, "%s/replayed.png", tmp);
    snprintf(game, sizeof game, "%s/invaders", tmp);
    result r = run_ona((const char *[]){INVADERS, "--headless", "--no-watch", "--no-audio",
                                        "--workers", "2", "--frames", "30", "--size", "224x256",
                                        "--screenshot", shot, "--record", rec, "autoplay=1", NULL});
    ASSERT_EXIT(r, 0);
    result_free(&r);
    size_t shot_size, again_size;
    char *recorded = slurp(shot, &shot_size);
    /* The recording names the game and its arguments; the replay on 1 and 4 workers draws the
     * same picture, byte for byte. */
    for (int workers = 1; workers <= 4; workers *= 4) {
        char w[16];
        snprintf(w, sizeof w, "%d", workers);
        r = run_ona((const char *[]){"--replay", rec, "--headless", "--no-watch", "--no-audio",
                                     "--workers", w, "--frames", "30", "--size", "224x256",
                                     "--max-fps", "off", "--screenshot", again, NULL});
        ASSERT_EXIT(r, 0);
        result_free(&r);
        char *replayed = slurp(again, &again_size);
        ck_assert_uint_eq(again_size, shot_size);
        ck_assert_msg(memcmp(recorded, replayed, shot_size) == 0, "%d workers: not the same",
                      workers);
        free(replayed);
    }
    free(recorded);
    /* A copy of the game with one line changed diverges where the change first shows. */
    snprintf(cmd, sizeof cmd,
             "cp -r '%s' '%s' && sed -i 's/C.laser_speed = 300/C.laser_speed = 301/' "
             "'%s/config.lua'",
             INVADERS, game, game);
    ck_assert_int_eq(system(cmd), 0);
    r = run_ona((const char *[]){"--replay", rec, game, "--headless", "--no-watch", "--no-audio",
                                 "--frames", "30", "--size", "224x256", NULL});
    ASSERT_EXIT(r, 1);
    /* Frame 2: the first frame whose draws the faster laser changes (autoplay fires at once). */
    ASSERT_HAS(r.err, "ona: replay diverged at frame 2: 'bullets' drew");
    result_free(&r);
    /* Not a recording: a clear error, exit 1. */
    r = run_ona((const char *[]){"--replay", shot, "--headless", NULL});
    ASSERT_EXIT(r, 1);
    ASSERT_HAS(r.err, "not an Ona recording");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* --inspect prints the inspector's whole address, in either spelling; a non-loopback address
 * without --inspect-any and a bad token are refused before the game runs. */
START_TEST(test_launcher_inspect_prints_the_address_and_refuses_others) {
    tmp_make();
    const char *game = make_counting_game();
    result r = run_ona((const char *[]){game, "--headless", "--no-audio", "--inspect",
                                        "127.0.0.1:0", "--inspect-token", "launcher-token", NULL});
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "ona: inspector at http://127.0.0.1:");
    ASSERT_HAS(r.err, "/?token=launcher-token\n");
    ASSERT_HAS(r.err, "args 0 sum 0"); /* the address was not taken for the game */
    result_free(&r);

    r = run_ona((const char *[]){"--inspect=127.0.0.1:0", game, "--headless", "--no-audio", NULL});
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.err, "ona: inspector at http://127.0.0.1:");
    const char *token = strstr(r.err, "/?token=");
    ck_assert_ptr_nonnull(token);
    ck_assert_int_eq((int)strspn(token + 8, "0123456789abcdef"), 32); /* random, 128 bits */
    result_free(&r);

    r = run_ona((const char *[]){game, "--headless", "--inspect", "10.9.8.7:4000", NULL});
    ASSERT_EXIT(r, 1);
    ASSERT_HAS(r.err, "10.9.8.7 is not a loopback address");
    ASSERT_HAS(r.err, "--inspect-any");
    ck_assert_msg(!strstr(r.err, "args "), "the game ran:\n%s", r.err);
    result_free(&r);

    r = run_ona((const char *[]){game, "--headless", "--inspect", "127.0.0.1:0", "--inspect-token",
                                 "bad token", NULL});
    ASSERT_EXIT(r, 1);
    ASSERT_HAS(r.err, "token must be");
    result_free(&r);
    tmp_remove();
}
END_TEST

/* `ona console` against a game run with --inspect: its commands answer from the running game. */
START_TEST(test_launcher_console_talks_to_a_running_game) {
    tmp_make();
    const char *game = make_game_dir("game");
    write_file("game/main.lua", "ona.spawn('ticker.lua', nil, {name = 'ticker'})\n"
                                "ona.spawn('pinger.lua', nil, {name = 'pinger'})\n");
    write_file("game/ticker.lua", "return { init = function(state) state.n = 0 end,\n"
                                  "  process = function(state) state.n = state.n + 1\n"
                                  "    while ona.receive() do end end }\n");
    write_file("game/pinger.lua", "return { process = function()\n"
                                  "  ona.send(ona.lookup('ticker'), 'ping') end }\n");
    char err_path[128];
    snprintf(err_path, sizeof err_path, "%s/game-stderr", tmp);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(err, 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    char *argv[] = {(char *)ONA_LAUNCHER_PATH,
                    (char *)game,
                    "--headless",
                    "--no-audio",
                    "--max-fps",
                    "60",
                    "--inspect",
                    "127.0.0.1:0",
                    "--inspect-token",
                    "console-token",
                    NULL};
    char **env = child_environment();
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, ONA_LAUNCHER_PATH, &actions, NULL, argv, env), 0);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    close(err);
    /* Wait for the address it prints (a slow machine may take seconds to start the game). */
    char url[256] = "";
    for (int i = 0; i < 600 && !url[0]; i++) {
        usleep(100000);
        FILE *f = fopen(err_path, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "ona: inspector at %255s", url) == 1)
                break;
        if (f)
            fclose(f);
    }
    ck_assert_msg(url[0], "the game printed no inspector address");
    write_file("commands", "systems\neval ticker state.n > 0\neval ticker error('oops')\n"
                           "messages ticker\nmessages ticker\npause\nnonsense\nquit\n");
    char commands[128];
    snprintf(commands, sizeof commands, "%s/commands", tmp);
    result r = run_ona_input((const char *[]){"console", url, NULL}, commands);
    result refused =
        run_ona_input((const char *[]){"console", url, "--token", "wrong-token", NULL}, commands);
    kill(pid, SIGTERM);
    int wstatus;
    waitpid(pid, &wstatus, 0);
    ASSERT_EXIT(r, 0);
    ASSERT_HAS(r.out, "ticker ");
    ASSERT_HAS(r.out, "running");
    ASSERT_HAS(r.out, "\ntrue\n");
    ASSERT_HAS(r.out, "error: ");
    ASSERT_HAS(r.out, "oops");
    ASSERT_HAS(r.out, "(no message yet");
    ASSERT_HAS(r.out, "from pinger ");
    ASSERT_HAS(r.out, "  pinger sent ");
    ASSERT_HAS(r.out, "paused at frame ");
    ASSERT_HAS(r.out, "unknown command 'nonsense'");
    result_free(&r);
    ASSERT_HAS(refused.err, "the token was refused");
    result_free(&refused);
    tmp_remove();
}
END_TEST

int main(void) {
    Suite *s = suite_create("launcher");
    TCase *about = tcase_create("about");
    tcase_set_timeout(about, 60);
    tcase_add_test(about, test_launcher_about_lists_versions);
    tcase_add_test(about, test_launcher_probe_reports_the_driver_and_leaves_sdl_free);
    suite_add_tcase(s, about);
    TCase *tc = tcase_create("launcher");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_launcher_version);
    tcase_add_test(tc, test_launcher_help);
    tcase_add_test(tc, test_launcher_bad_options);
    tcase_add_test(tc, test_launcher_pairs_reach_main_and_too_many_are_refused);
    tcase_add_test(tc, test_launcher_long_paths_are_refused);
#if ONA_LUAJIT_FIXED_SEED /* the system's LuaJIT seeds its string IDs from the OS */
    tcase_add_test(tc, test_launcher_runs_repeat);
#endif
    tcase_add_test(tc, test_launcher_screenshot_written);
    tcase_add_test(tc, test_launcher_screenshot_unwritable_folder);
    tcase_add_test(tc, test_launcher_screenshot_write_failure_fails_the_run);
    tcase_add_test(tc, test_launcher_screenshot_game_quit_first);
    tcase_add_test(tc, test_launcher_replay_is_identical_and_names_a_divergence);
    tcase_add_test(tc, test_launcher_inspect_prints_the_address_and_refuses_others);
    tcase_add_test(tc, test_launcher_console_talks_to_a_running_game);
    suite_add_tcase(s, tc);
    /* 14,100 spawns: about a minute under TSan. */
    TCase *many = tcase_create("many");
    tcase_set_timeout(many, 300);
    tcase_add_test(many, test_launcher_max_systems);
    suite_add_tcase(s, many);
    return run_suite(s);
}
