/*
 * bench_reload: the frame that reloads one module used by many systems. SYSTEMS Lua systems
 * (1,000 by default; `bench_reload N`) run one script, sys.lua, that requires one module,
 * shared.lua (a few functions and a table); every system has a turn each frame. The module is
 * saved with new content (a changed constant) and ona_runtime_reload asks for it at once (no
 * settle wait, so only the reload is timed); the figure is the wall time of the ona_runtime_step
 * that applies it (the boundary, with the reload of every system, then the frame's turns),
 * against a frame without a reload. RUNS reloads per configuration, a warm-up reload first;
 * threads = 1, 2 and the machine's cores. Headless, no window.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { DEFAULT_SYSTEMS = 1000, RUNS = 9, QUIET_FRAMES = 20 };

static char dir[256];

static void write_text(const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0) {
        fprintf(stderr, "bench_reload: cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void write_module(int version) {
    char text[1024];
    snprintf(text, sizeof text,
             "local M = { version = %d, speed = 200 }\n"
             "function M.step(x, dt) return x + M.speed * dt end\n"
             "function M.wrap(x, w) if x > w then return x - w end return x end\n"
             "function M.describe() return 'shared v' .. M.version end\n"
             "return M\n",
             version);
    write_text("shared.lua", text);
}

static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Median and max wall time (ms) of RUNS frames, each reloading shared.lua when `reload`, and the
 * median CPU time the process spent in them (all threads). */
static void measure(ona_runtime *rt, bool reload, int *version, double *median, double *max,
                    double *cpu) {
    double samples[RUNS], cpus[RUNS];
    for (int r = -1; r < RUNS; r++) { /* r = -1: the warm-up */
        if (reload) {
            write_module(++*version);
            char path[512];
            snprintf(path, sizeof path, "%s/shared.lua", dir);
            int rc = ona_runtime_reload(rt, path);
            if (rc) {
                fprintf(stderr, "bench_reload: ona_runtime_reload: %s\n", ona_strerror(rc));
                exit(1);
            }
        }
        uint64_t t0 = bench_now_ns();
        double c0 = cpu_ms();
        bench_step(rt, "bench_reload");
        if (r >= 0) {
            samples[r] = (double)(bench_now_ns() - t0) / 1e6;
            cpus[r] = cpu_ms() - c0;
        }
        for (int i = 0; i < 3; i++)
            bench_step(rt, "bench_reload");
    }
    bench_stats s = bench_summarise(samples, RUNS);
    *median = s.median;
    *max = s.max;
    *cpu = bench_summarise(cpus, RUNS).median;
}

static void log_sink(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    (void)level;
    fprintf(stderr, "%s: %s\n", where, message);
}

int main(int argc, char **argv) {
    int systems = argc > 1 ? atoi(argv[1]) : DEFAULT_SYSTEMS;
    snprintf(dir, sizeof dir, "/tmp/ona-bench-reload-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    write_module(0);
    write_text("sys.lua", "local shared = require('shared')\n"
                          "return {\n"
                          "  init = function(state) state.x = 0 end,\n"
                          "  process = function(state, events, dt)\n"
                          "    state.x = shared.wrap(shared.step(state.x, dt), 640)\n"
                          "  end,\n"
                          "}\n");
    ona_log_set_sink(log_sink, NULL, ONA_LOG_WARN);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t counts[3] = {1, 2, (uint32_t)(cores > 2 ? cores : 0)};
    bench_report *rep = bench_report_open("reload", "Reloading one module used by many systems",
                                          "none: the target is one 16 ms frame");
    bench_report_printf(rep,
                        "Workload: %d Lua systems run sys.lua, which requires shared.lua; each "
                        "has a turn every frame. shared.lua is rewritten and "
                        "`ona_runtime_reload` asks for it (no settle wait); the figure is the "
                        "wall time of the `ona_runtime_step` that applies it (the boundary "
                        "reloading every system, then the turns), %d reloads after a warm-up, "
                        "against a frame with no reload; CPU is the process's CPU time over "
                        "the same frame (every thread), which a loaded machine does not "
                        "inflate. Headless.\n\n",
                        systems, RUNS);
    bench_report_printf(rep, "| threads | frame, no reload (median, wall and CPU) | reload "
                             "frame (median) | reload frame (max) | reload frame CPU, all "
                             "threads (median) |\n|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < 3; c++) {
        if (!counts[c])
            continue;
        const char *roots[] = {dir, NULL};
        ona_runtime_desc desc = {.threads = counts[c], .script_roots = roots,
                                 .max_systems = (uint32_t)systems + 16};
        ona_runtime *rt = bench_runtime(&desc, "bench_reload");
        for (int i = 0; i < systems; i++) {
            ona_spawn_desc d = {.script = "sys.lua"};
            ona_system h;
            if (ona_runtime_spawn(rt, &d, &h) != 0) {
                fprintf(stderr, "bench_reload: spawn failed\n");
                return 1;
            }
        }
        for (int i = 0; i < QUIET_FRAMES; i++)
            bench_step(rt, "bench_reload");
        int version = 0;
        double quiet_med, quiet_max, quiet_cpu, med, max, cpu;
        measure(rt, false, &version, &quiet_med, &quiet_max, &quiet_cpu);
        measure(rt, true, &version, &med, &max, &cpu);
        bench_report_printf(rep, "| %u | %.2f ms (%.2f CPU) | %.2f ms | %.2f ms | %.2f ms |\n",
                            counts[c], quiet_med, quiet_cpu, med, max, cpu);
        ona_runtime_destroy(rt);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_reload: could not remove %s\n", dir);
    return bench_report_close(rep) == 0 ? 0 : 1;
}
