/*
 * bench_physics.c: bodies stepped per frame at 60 FPS: ona.physics against LÖVE's love.physics.
 *
 * The scene, the same in every column: N dynamic 10 x 10 px boxes (density 1, friction 0.5) in
 * a grid of 40 columns, 14 px apart, falling into a static container of three edges, 32 px a
 * meter, gravity 900 px/s^2, stepped STEPS times by 1/60 s from the start (the fall, the pile's
 * contacts, some falling asleep): the mean time of a step.
 *
 *   Ona Lua     benchmarks/lua/physics_bench.lua, one system stepping its world once a turn;
 *               the time of a whole frame (ona_runtime_step: the turn, world:step and the
 *               runtime's frame), 1 thread
 *   Ona C API   the same world through ona_physics_* directly (the shim and Box2D 2.4.1 alone)
 *   LÖVE 11.4   benchmarks/peers/love_physics: love.physics' World:update, LÖVE's bundled
 *               Box2D (a 2.3-era copy), run after Ona's columns
 *
 * "At 60 FPS" is the largest N whose step fits in a 16.7 ms frame, interpolated between rows
 * (linearly in N). Times are process CPU time (LÖVE's os.clock), not wall time: the machine
 * is shared. Writes benchmarks/results/physics.md.
 */
#include "bench_support.h"

#include "ona/ona.h"
#include "ona/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { STEPS = 120 };
static const int sizes[] = {250, 500, 750, 1000, 1250, 1500, 2000};
#define SIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* Process CPU time (every thread's), in ns: the machine is shared, and CPU time is what the
 * step costs whatever else runs. */
static uint64_t cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

static double lua_ms(int n) {
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots};
    ona_runtime *rt = bench_runtime(&desc, "bench_physics");
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "n", 1);
    ona_message_write_number(&w, n);
    ona_message_write_string(&w, "steps", 5);
    ona_message_write_number(&w, STEPS);
    ona_message_write_table_end(&w);
    if (ona_message_writer_end(&w) != 0)
        abort();
    /* No turn budget: on a shared machine a 2,000-body step can take past it in wall time. */
    ona_spawn_desc d = {.script = "physics_bench.lua",
                        .name = "physics",
                        .args = &args,
                        .budget_ms = ONA_BUDGET_OFF};
    ona_system h;
    if (ona_runtime_spawn(rt, &d, &h) != 0) {
        fprintf(stderr, "bench_physics: spawn failed\n");
        exit(1);
    }
    ona_message_release(&args);
    bench_step(rt, "bench_physics"); /* frame 1: init builds the scene and steps once */
    uint64_t t0 = cpu_ns();
    for (int i = 1; i < STEPS; i++)
        bench_step(rt, "bench_physics");
    double ms = (double)(cpu_ns() - t0) / 1e6 / (STEPS - 1);
    ona_system_stats st;
    if (ona_runtime_system_stats(rt, h, &st) != 0 || st.errors || st.restarts || st.turns < STEPS) {
        fprintf(stderr, "bench_physics: the Lua system failed (%u errors, %llu turns)\n", st.errors,
                (unsigned long long)st.turns);
        exit(1);
    }
    ona_runtime_destroy(rt);
    return ms;
}

static double c_ms(int n) {
    ona_physics_world_desc wd = {.gravity_y = 900, .meter = 32};
    ona_physics_world *w;
    if (ona_physics_world_create(&wd, &w) != 0)
        abort();
    int rows = (n + 39) / 40;
    float width = 40 * 14 + 40, height = (float)rows * 14 + 140;
    float edges[3][4] = {{0, height, width, height}, {0, 0, 0, height}, {width, 0, width, height}};
    ona_physics_body_desc d;
    ona_physics_body b;
    for (int e = 0; e < 3; e++) {
        ona_physics_body_defaults(&d);
        d.shape = ONA_PHYSICS_EDGE, d.points = edges[e], d.point_count = 2;
        if (ona_physics_body_create(w, &d, &b) != 0)
            abort();
    }
    for (int i = 0; i < n; i++) {
        ona_physics_body_defaults(&d);
        d.type = ONA_PHYSICS_DYNAMIC, d.x = 27 + (float)(i % 40) * 14,
        d.y = 20 + (float)(i / 40) * 14;
        d.width = d.height = 10, d.friction = 0.5f;
        if (ona_physics_body_create(w, &d, &b) != 0)
            abort();
    }
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < STEPS; i++)
        if (ona_physics_step(w, 1.0f / 60, NULL, NULL) != 0)
            abort();
    double ms = (double)(cpu_ns() - t0) / 1e6 / STEPS;
    ona_physics_world_destroy(w);
    return ms;
}

/* LÖVE's mean ms a step for n bodies; NAN when `love` is not there or failed. */
static double love_ms(int n) {
    char love[1024];
    if (!bench_find_program("love", love, sizeof love))
        return NAN;
    char count[32], steps[32];
    snprintf(count, sizeof count, "%d", n);
    snprintf(steps, sizeof steps, "%d", STEPS);
    char *argv[] = {love, ONA_SOURCE_DIR "/benchmarks/peers/love_physics", count, steps, NULL};
    static char out[4096];
    if (bench_run_capture(argv, out, sizeof out, 600) != 0)
        return NAN;
    const char *line = strstr(out, "love-physics N=");
    int got;
    double ms;
    if (!line || sscanf(line, "love-physics N=%d ms=%lf", &got, &ms) != 2 || got != n)
        return NAN;
    return ms;
}

/* The largest N whose step fits in 1/60 s, linear between rows; past the last row: ">". */
static void at_60(const double *ms, char *out, size_t size) {
    const double frame = 1000.0 / 60;
    if (isnan(ms[0])) {
        snprintf(out, size, "-");
        return;
    }
    if (ms[0] > frame) {
        snprintf(out, size, "< %d", sizes[0]);
        return;
    }
    for (int i = 1; i < SIZES; i++) {
        if (ms[i] > frame) {
            double f = (frame - ms[i - 1]) / (ms[i] - ms[i - 1]);
            snprintf(out, size, "~%.0f", sizes[i - 1] + f * (sizes[i] - sizes[i - 1]));
            return;
        }
    }
    snprintf(out, size, "> %d", sizes[SIZES - 1]);
}

static double loadavg(void) {
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = NAN;
        fclose(f);
    }
    return l;
}

int main(void) {
    double lua[SIZES], c[SIZES], lv[SIZES];
    double load_before = loadavg();
    for (int i = 0; i < SIZES; i++) {
        c[i] = c_ms(sizes[i]);
        lua[i] = lua_ms(sizes[i]);
        fprintf(stderr, "bench_physics: %d bodies: C %.3f ms, Lua %.3f ms\n", sizes[i], c[i],
                lua[i]);
    }
    for (int i = 0; i < SIZES; i++) {
        lv[i] = love_ms(sizes[i]);
        fprintf(stderr, "bench_physics: %d bodies: LÖVE %.3f ms\n", sizes[i], lv[i]);
    }
    double load_after = loadavg();
    bench_report *r = bench_report_open(
        "physics", "Bodies stepped per frame: ona.physics against LÖVE's love.physics",
        "LÖVE 11.4 love.physics (benchmarks/peers/love_physics, LÖVE's bundled Box2D, a "
        "2.3-era copy; Ona links Debian's Box2D 2.4.1), same machine, after Ona's runs");
    bench_report_printf(r,
                        "Load average (1 min) %.2f before, %.2f after: the machine is shared, "
                        "so other processes may have run during the measurement.\n\n",
                        load_before, load_after);
    bench_report_printf(r,
                        "N dynamic 10 x 10 boxes falling into a container, %d steps of 1/60 s "
                        "from the start; the mean CPU time of a step (ms; process CPU time, LÖVE's "
                        "os.clock). Ona Lua is a whole "
                        "frame of a 1-thread runtime whose one system steps its world.\n\n",
                        STEPS);
    bench_report_printf(r,
                        "| bodies | Ona Lua (frame) | Ona C API | LÖVE 11.4 | LÖVE / Ona Lua |\n");
    bench_report_printf(r, "|---:|---:|---:|---:|---:|\n");
    const char *const series[] = {"Ona Lua", "Ona C API", "LÖVE 11.4"};
    bench_report_chart(r, "ms a step", "ms", true, 3, series);
    for (int i = 0; i < SIZES; i++) {
        char ratio[32] = "-";
        if (!isnan(lv[i]))
            snprintf(ratio, sizeof ratio, "%.2fx", lv[i] / lua[i]);
        bench_report_printf(r, "| %d | %.3f | %.3f | %.3f | %s |\n", sizes[i], lua[i], c[i], lv[i],
                            ratio);
        char label[16];
        snprintf(label, sizeof label, "%d", sizes[i]);
        double row[3] = {lua[i], c[i], lv[i]};
        bench_report_chart_row(r, label, row);
    }
    char a[32], b[32], l[32];
    at_60(lua, a, sizeof a);
    at_60(c, b, sizeof b);
    at_60(lv, l, sizeof l);
    bench_report_printf(r, "| **bodies at 60 FPS** | **%s** | **%s** | **%s** | |\n", a, b, l);
    return bench_report_close(r);
}
