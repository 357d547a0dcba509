/*
 * test_time.c: steady time and seeded random numbers. A fixed step makes
 * ona.time() exactly n * dt after n frames, for Lua and native systems alike; the desc, main.lua
 * (ona.gfx.window{fixed_dt}) and the launcher's --fixed-dt / --max-fps choose the step in that
 * order; random sequences depend only on their seed: the same on 1 and 2 workers and from run to
 * run, different for different seeds. The frame cap is checked only from below (a capped loop
 * cannot run faster than its cap), never against an upper time limit.
 */
#include "test_support.h"

#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static ona_runtime *make_runtime(uint32_t threads, double fixed_dt) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt = NULL;
    ona_runtime_desc d = {.threads = threads, .script_roots = roots, .fixed_dt = fixed_dt};
    ck_assert_int_eq(ona_runtime_create(&d, &rt), 0);
    return rt;
}

/* The last collected string starting with `prefix`, or NULL. */
static const char *collected(const char *prefix) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING &&
            strncmp(coll->items[i].text, prefix, strlen(prefix)) == 0)
            return coll->items[i].text;
    return NULL;
}

/* Reports ona.time(), ona.dt() and process's dt in frame `at`, as "%.17g" text. */
static const char CLOCK_LUA[] =
    "local report, at\n"
    "return {\n"
    "  init = function(state, args) report, at = args.report, args.at end,\n"
    "  process = function(state, events, dt)\n"
    "    if ona.frame() == at then\n"
    "      ona.send(report, string.format('time=%.17g dt=%.17g ona.dt=%.17g', ona.time(), dt,\n"
    "                                     ona.dt()))\n"
    "    end\n"
    "  end,\n"
    "}\n";

typedef struct native_clock {
    uint64_t at;
    double time, dt;
    bool dt_agrees; /* ona_ctx_dt == process's dt (asserted on main, not in the worker) */
} native_clock;

static int native_clock_process(ona_ctx *ctx, void *state, double dt) {
    native_clock *c = ona_ctx_user(ctx);
    (void)state;
    if (ona_ctx_frame(ctx) == c->at) {
        c->time = ona_ctx_time(ctx);
        c->dt = ona_ctx_dt(ctx);
        c->dt_agrees = c->dt == dt;
    }
    return 0;
}

static void expect_clock(const char *text, uint64_t frames, double dt) {
    char want[160];
    snprintf(want, sizeof want, "time=%.17g dt=%.17g ona.dt=%.17g", (double)frames * dt, dt, dt);
    ck_assert_msg(text && strcmp(text, want) == 0, "got '%s', want '%s'", text ? text : "(none)",
                  want);
}

/* Headless runs (no window) default to 1/60: after n frames the time is n / 60 exactly, the
 * same in Lua and in C, and ona_runtime_time agrees. */
START_TEST(test_time_fixed_step_is_exact) {
    game_dir_begin("time-exact");
    game_write("clock.lua", CLOCK_LUA);
    ona_runtime *rt = make_runtime(2, 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "clock.lua", "clock", report, "at=1000", 0, 0);
    native_clock nc = {.at = 1000};
    ona_system n;
    ck_assert_int_eq(ona_runtime_spawn_native(rt,
                                              &(ona_system_desc){.name = "native_clock",
                                                                 .process = native_clock_process,
                                                                 .user = &nc},
                                              &n),
                     0);
    ck_assert(ona_runtime_time(rt) == 0);
    ck_assert_int_eq(ona_runtime_run(rt, 1000, 0), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0), 0); /* the collector takes the last message */
    expect_clock(collected("time="), 1000, 1.0 / 60);
    ck_assert(nc.time == 1000 * (1.0 / 60));
    ck_assert(nc.dt == 1.0 / 60 && nc.dt_agrees);
    /* The extra step of 0 s starts a new base without moving the clock. */
    ck_assert(ona_runtime_time(rt) == 1000 * (1.0 / 60));
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* main.lua's ona.gfx.window{fixed_dt} sets the step; the desc's fixed_dt wins over it. */
START_TEST(test_time_script_and_desc_choose_the_step) {
    game_dir_begin("time-choose");
    game_write("clock.lua", CLOCK_LUA);
    game_write("main.lua", "ona.gfx.window{fixed_dt = 1/30}\n");
    for (int desc_wins = 0; desc_wins < 2; desc_wins++) {
        ona_runtime *rt = make_runtime(2, desc_wins ? 0.125 : 0);
        ona_system report = spawn_collector(rt);
        spawn_lua(rt, "main.lua", "main", (ona_system){0}, "", 0, 0);
        spawn_lua(rt, "clock.lua", "clock", report, "at=90", 0, 0);
        for (int i = 0; i < 90; i++)
            ck_assert_int_eq(ona_runtime_step(rt, ona_runtime_frame_dt(rt)), 0);
        ck_assert_int_eq(ona_runtime_step(rt, 0), 0);
        expect_clock(collected("time="), 90, desc_wins ? 0.125 : 1.0 / 30);
        ona_runtime_destroy(rt);
        collector_free();
    }
    game_dir_end();
}
END_TEST

/* ona_runtime_frame_dt: measured time when asked (1/60 the first time, then the wall time, at
 * most 0.25 s); a frame cap makes frames start at least 1/max_fps apart; misuse gets 0. */
START_TEST(test_time_frame_dt_measured_and_capped) {
    game_dir_begin("time-measured");
    ona_runtime *rt = NULL;
    const char *roots[] = {game_dir(), NULL};
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.threads = 1,
                                                            .script_roots = roots,
                                                            .fixed_dt = ONA_DT_MEASURED,
                                                            .max_fps = 50},
                                        &rt),
                     0);
    ck_assert(ona_runtime_frame_dt(rt) == 1.0 / 60);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double sum = 0;
    for (int i = 0; i < 4; i++) {
        double dt = ona_runtime_frame_dt(rt);
        ck_assert(dt > 0 && dt <= 0.25);
        sum += dt;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    /* Four frames at 50 fps: each starts at least 20 ms after the one before. */
    ck_assert_msg(sum >= 4 * 0.02 - 1e-9 && elapsed >= 4 * 0.02 - 1e-3, "sum %f elapsed %f", sum,
                  elapsed);
    ck_assert(ona_runtime_frame_dt(NULL) == 0);
    ona_runtime_destroy(rt);
    /* Out-of-range descs are refused. */
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.fixed_dt = 2}, &rt), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.fixed_dt = -0.5}, &rt), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.fixed_dt = NAN}, &rt), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.max_fps = 10001}, &rt), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.max_fps = ONA_MAX_FPS_OFF}, &rt), 0);
    ona_runtime_destroy(rt);
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* ona.gfx.window's time options are checked at the author's line. */
START_TEST(test_time_window_options_are_checked) {
    game_dir_begin("time-window");
    game_write("bad_dt.lua", "ona.gfx.window{fixed_dt = 0}\n");
    game_write("bad_fps.lua", "ona.gfx.window{max_fps = 'fast'}\n");
    game_write("good.lua", "ona.gfx.window{fixed_dt = false, max_fps = false}\n");
    ona_runtime *rt = make_runtime(1, 0);
    capture_logs_begin();
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "bad_dt.lua"}, &h),
                     ONA_ESCRIPT);
    ck_assert_msg(captured_logs_contain("bad_dt.lua:1: ona.gfx.window: bad argument #1 (fixed_dt "
                                        "must be seconds in (0, 1]"),
                  "%s", captured_logs_text());
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "bad_fps.lua"}, &h),
                     ONA_ESCRIPT);
    ck_assert(captured_logs_contain("bad_fps.lua:1: ona.gfx.window: bad argument #1 (max_fps"));
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "good.lua"}, &h), 0);
    capture_logs_end();
    /* fixed_dt = false: measured time even without a window (1/60 only the first time). */
    ck_assert(ona_runtime_frame_dt(rt) == 1.0 / 60);
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

/* --- Random numbers -------------------------------------------------------------------------- */

/* Each system reports its name, its default seed and draws from its default generator, a second
 * default generator and a seeded one. The parent spawns three children in its init. */
static const char RANDOM_LUA[] =
    "local report\n"
    "local function draws(g)\n"
    "  return string.format('%.17g,%.17g,%d,%.17g', g:seed(), g:next(), g:int(1, 1000000),\n"
    "                       g:float(-5, 5))\n"
    "end\n"
    "return {\n"
    "  init = function(state, args)\n"
    "    report = args.report\n"
    "    if args.children then\n"
    "      for i = 1, args.children do\n"
    "        assert(ona.spawn('random.lua', {report = report}, {name = 'child' .. i}))\n"
    "      end\n"
    "    end\n"
    "    local a, b = ona.random(), ona.random()\n"
    "    ona.send(report, ona.name() .. '|' .. draws(a) .. '|' .. draws(b))\n"
    "    ona.send(report, 'seeded|' .. draws(ona.random(12345)) .. '|' .. draws(ona.random('x')))\n"
    "  end,\n"
    "  process = function() end,\n"
    "}\n";

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the random game on `threads` workers and returns the reports, sorted, joined by '\n'. */
static char *random_run(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, 0);
    ona_system report = spawn_collector(rt);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "top%d", i);
        spawn_lua(rt, "random.lua", name, report, i == 0 ? "children=3" : "", 0, 0);
    }
    ck_assert_int_eq(ona_runtime_run(rt, 4, 0), 0);
    char *texts[64];
    int n = 0;
    for (int i = 0; i < coll->count && n < 64; i++)
        if (coll->items[i].type == ONA_VALUE_STRING)
            texts[n++] = coll->items[i].text;
    ck_assert_int_eq(n, 14); /* 7 systems, two reports each */
    qsort(texts, (size_t)n, sizeof *texts, compare_strings);
    size_t size = 1;
    for (int i = 0; i < n; i++)
        size += strlen(texts[i]) + 1;
    char *all = calloc(1, size);
    for (int i = 0; i < n; i++) {
        strcat(all, texts[i]);
        strcat(all, "\n");
    }
    ona_runtime_destroy(rt);
    collector_free();
    return all;
}

START_TEST(test_time_random_same_on_any_thread_count) {
    game_dir_begin("time-random");
    game_write("random.lua", RANDOM_LUA);
    char *one = random_run(1), *two = random_run(2), *again = random_run(2);
    ck_assert_msg(strcmp(one, two) == 0, "1 worker:\n%s\n2 workers:\n%s", one, two);
    ck_assert_str_eq(two, again);
    /* Different systems, and two default generators of one system, differ; the seeded
     * generators agree everywhere. */
    char *lines[16], *seeded = NULL;
    int n = 0;
    for (char *save, *l = strtok_r(one, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strncmp(l, "seeded|", 7) == 0) {
            ck_assert_str_eq(l, seeded ? seeded : l);
            seeded = l;
            continue;
        }
        ck_assert_int_lt(n, 16);
        lines[n++] = l;
    }
    ck_assert_int_eq(n, 7);
    /* Seed 12345 and seed "x" differ. */
    ck_assert_ptr_nonnull(seeded);
    char *x = strchr(seeded + 7, '|');
    ck_assert(x && strncmp(seeded + 7, x + 1, strlen(x + 1)) != 0);
    char firsts[7][128];
    for (int i = 0; i < n; i++) {
        char *a = strchr(lines[i], '|') + 1, *b = strchr(a, '|') + 1;
        ck_assert_msg(strncmp(a, b, strlen(b)) != 0, "two default generators agree: %s", lines[i]);
        snprintf(firsts[i], sizeof firsts[i], "%.*s", (int)(b - a - 1), a);
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            ck_assert_msg(strcmp(firsts[i], firsts[j]) != 0, "%s == %s", firsts[i], firsts[j]);
    free(one);
    free(two);
    free(again);
    game_dir_end();
}
END_TEST

/* A native system's default seeds: the same from run to run and on any thread count, different
 * from each other, below 2^53, and equal to those of a Lua system with its name and spawn order. */
typedef struct native_seeds {
    uint64_t seed[2];
    double first[2];
} native_seeds;

static int native_seeds_init(ona_ctx *ctx, void *state) {
    native_seeds *ns = ona_ctx_user(ctx);
    (void)state;
    for (int i = 0; i < 2; i++) {
        ona_random r;
        ns->seed[i] = ona_ctx_random(ctx, &r);
        ns->first[i] = ona_random_next(&r);
    }
    return 0;
}

static native_seeds native_seeds_run(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, 0);
    spawn_collector(rt); /* spawn order 0, as in the Lua run below */
    native_seeds ns = {0};
    ona_system h;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "seeder", .init = native_seeds_init, .user = &ns}, &h),
        0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ona_runtime_destroy(rt);
    collector_free();
    return ns;
}

START_TEST(test_time_random_native_default_seeds) {
    game_dir_begin("time-random-native");
    native_seeds one = native_seeds_run(1), two = native_seeds_run(2);
    ck_assert(memcmp(&one, &two, sizeof one) == 0);
    ck_assert(one.seed[0] != one.seed[1] && one.first[0] != one.first[1]);
    ck_assert(one.seed[0] < (1ull << 53) && one.seed[1] < (1ull << 53));
    /* The Lua system "seeder" at the same spawn order takes the same first default seed. */
    game_write("seeder.lua", "return { init = function(s, a)\n"
                             "  ona.send(a.report, string.format('%.17g', ona.random():seed()))\n"
                             "end, process = function() end }\n");
    ona_runtime *rt = make_runtime(2, 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "seeder.lua", "seeder", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    char want[64];
    snprintf(want, sizeof want, "%.17g", (double)one.seed[0]);
    ck_assert_int_eq(coll->count, 1);
    ck_assert_str_eq(coll->items[0].text, want);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* The C generator: a seed gives one sequence; other seeds give others; int() covers its range,
 * both ends included, and nothing outside it. */
START_TEST(test_time_random_c_api) {
    ona_random a, b, c;
    ona_random_seed(&a, 7);
    ona_random_seed(&b, 7);
    ona_random_seed(&c, 8);
    int same_as_c = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = ona_random_u64(&a);
        ck_assert(x == ona_random_u64(&b));
        same_as_c += x == ona_random_u64(&c);
    }
    ck_assert_int_eq(same_as_c, 0);
    ck_assert(a.seed == 7);
    bool seen[3] = {false};
    for (int i = 0; i < 1000; i++) {
        int64_t v = ona_random_int(&a, -1, 1);
        ck_assert(v >= -1 && v <= 1);
        seen[v + 1] = true;
        double f = ona_random_next(&a);
        ck_assert(f >= 0 && f < 1);
        double g = ona_random_float(&a, 2, 3);
        ck_assert(g >= 2 && g < 3);
    }
    ck_assert(seen[0] && seen[1] && seen[2]);
    ck_assert(ona_random_int(&a, 5, 5) == 5);
    ck_assert(ona_random_int(&a, 5, 4) == 5);
    (void)ona_random_int(&a, INT64_MIN, INT64_MAX); /* the whole range */
}
END_TEST

/* Misuse of ona.random and its generators raises at the author's line. */
START_TEST(test_time_random_misuse_raises) {
    game_dir_begin("time-random-misuse");
    game_write("misuse.lua",
               "local report\n"
               "local function try(f, ...) local ok, e = pcall(f, ...); ona.send(report, e) end\n"
               "return { init = function(s, args) report = args.report\n"
               "  local g = ona.random(1)\n"
               "  try(function() local _ = ona.random(-1) end)\n"
               "  try(function() local _ = ona.random(1.5) end)\n"
               "  try(function() local _ = ona.random({}) end)\n"
               "  try(function() local _ = g.next() end)\n"
               "  try(function() local _ = g:int(3, 1) end)\n"
               "  try(function() local _ = g:int(1.5, 2) end)\n"
               "  try(function() local _ = g:float(0, 1/0) end)\n"
               "end, process = function() end }\n");
    ona_runtime *rt = make_runtime(1, 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "misuse.lua", "misuse", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    static const char *const want[] = {
        "misuse.lua:5: ona.random: bad argument #1 (the seed must be an integer",
        "misuse.lua:6: ona.random: bad argument #1 (the seed must be an integer",
        "misuse.lua:7: ona.random: bad argument #1 (a seed (an integer or a string) expected)",
        "misuse.lua:8: random:next: call it on a generator with ':'",
        "misuse.lua:9: random:int: the range is empty: 3 > 1",
        "misuse.lua:10: random:int: bad argument #1 (an integer",
        "misuse.lua:11: random:float: the bounds must be finite numbers",
    };
    ck_assert_int_eq(coll->count, 7);
    for (int i = 0; i < 7; i++)
        ck_assert_msg(strstr(coll->items[i].text, want[i]), "got '%s', want '%s'",
                      coll->items[i].text, want[i]);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* --- The launcher ---------------------------------------------------------------------------- */

typedef struct run_result {
    int status;
    char out[8192];
} run_result;

/* Runs the launcher with args (NULL-terminated), stdout and stderr together in `out`. */
static run_result run_ona(const char *const *args) {
    char *argv[32] = {(char *)ONA_LAUNCHER_PATH};
    int n = 1;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    char path[256];
    snprintf(path, sizeof path, "%s/out-XXXXXX", game_dir());
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
    char **env = child_environment();
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, ONA_LAUNCHER_PATH, &actions, NULL, argv, env), 0);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    run_result r = {.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1};
    ssize_t got = pread(fd, r.out, sizeof r.out - 1, 0);
    r.out[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(path);
    return r;
}

START_TEST(test_time_launcher_options) {
    game_dir_begin("time-launcher");
    char game[512];
    snprintf(game, sizeof game, "%s/game", game_dir());
    ck_assert_int_eq(mkdir(game, 0755), 0);
    game_write("game/main.lua", "ona.spawn('clock.lua')\n");
    game_write("game/clock.lua",
               "return { process = function(s, e, dt)\n"
               "  if ona.frame() == 6 then\n"
               "    print(string.format('time=%.17g dt=%.17g', ona.time(), dt)) end end }\n");
    char want[128];
    /* --frames alone: the fixed 1/60. */
    run_result r = run_ona((const char *[]){game, "--headless", "--frames", "6", NULL});
    snprintf(want, sizeof want, "time=%.17g dt=%.17g", 6 * (1.0 / 60), 1.0 / 60);
    ck_assert_msg(r.status == 0 && strstr(r.out, want), "exit %d, want '%s':\n%s", r.status, want,
                  r.out);
    r = run_ona((const char *[]){game, "--headless", "--frames", "6", "--fixed-dt", "0.05",
                                 "--max-fps", "1000", NULL});
    snprintf(want, sizeof want, "time=%.17g dt=%.17g", 6 * 0.05, 0.05);
    ck_assert_msg(r.status == 0 && strstr(r.out, want), "exit %d, want '%s':\n%s", r.status, want,
                  r.out);
    r = run_ona((const char *[]){game, "--headless", "--frames", "6", "--fixed-dt=off", NULL});
    ck_assert_msg(r.status == 0 && strstr(r.out, "time="), "%s", r.out);
    /* No cap at all, as a replay played as fast as it runs wants; the step is still 1/60. */
    r = run_ona((const char *[]){game, "--headless", "--frames", "6", "--max-fps", "off", NULL});
    snprintf(want, sizeof want, "time=%.17g dt=%.17g", 6 * (1.0 / 60), 1.0 / 60);
    ck_assert_msg(r.status == 0 && strstr(r.out, want), "exit %d, want '%s':\n%s", r.status, want,
                  r.out);
    static const char *const bad[][2] = {
        {"--fixed-dt", "0"}, {"--fixed-dt", "2"}, {"--fixed-dt", "fast"},
        {"--max-fps", "0"},  {"--max-fps", "-3"}, {"--max-fps", "10001"}, {"--max-fps", "of"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_ona((const char *[]){game, "--headless", bad[i][0], bad[i][1], NULL});
        char needs[64];
        snprintf(needs, sizeof needs, "ona: %s needs", bad[i][0]);
        ck_assert_msg(r.status == 2 && strstr(r.out, needs), "%s %s: exit %d:\n%s", bad[i][0],
                      bad[i][1], r.status, r.out);
    }
    r = run_ona((const char *[]){"--help", NULL});
    ck_assert(strstr(r.out, "--fixed-dt SECONDS") && strstr(r.out, "--max-fps N") &&
              strstr(r.out, "--save-dir PATH"));
    game_dir_end();
}
END_TEST

static Suite *time_suite(void) {
    Suite *s = suite_create("time");
    TCase *tc = tcase_create("time");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_time_fixed_step_is_exact);
    tcase_add_test(tc, test_time_script_and_desc_choose_the_step);
    tcase_add_test(tc, test_time_frame_dt_measured_and_capped);
    tcase_add_test(tc, test_time_window_options_are_checked);
    tcase_add_test(tc, test_time_random_same_on_any_thread_count);
    tcase_add_test(tc, test_time_random_native_default_seeds);
    tcase_add_test(tc, test_time_random_c_api);
    tcase_add_test(tc, test_time_random_misuse_raises);
    tcase_add_test(tc, test_time_launcher_options);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(time_suite());
}
