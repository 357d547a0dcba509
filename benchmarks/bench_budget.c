/*
 * bench_budget: the turn budget (runtime/watchdog.c). Two measures:
 *
 *   interrupt latency  how long after its budget a runaway Lua turn is interrupted. A system
 *                      (benchmarks/lua/spin_budget.lua) spins in the interpreter from its first
 *                      turn; its spawn desc gives it a budget of B ms. The sample is the wall time
 *                      of the ona_runtime_step that runs it (bench_now_ns around the call) minus
 *                      B: the watchdog's wake-up (it sleeps until the earliest deadline, 10 ms at
 *                      most), the hook, the error and the frame's own cost (an empty frame is
 *                      ~1 us), and up to the coarse clock's resolution (the watchdog's start
 *                      stamp is never early, so it may be that late). SAMPLES
 *                      spawns per budget and thread count; each spinner ends at the next boundary
 *                      (policy stop).
 *   turn cost          what publishing every turn to the watchdog costs: frames of 1,000 Lua
 *                      systems with an empty process, in a runtime with the budget on (1000 ms)
 *                      and one with it off (ONA_BUDGET_OFF), stepped side by side in alternating
 *                      blocks of BLOCK frames so a disturbance falls on both alike.
 *
 * JIT-compiled loops are not measured: with a LuaJIT built without LUAJIT_ENABLE_CHECKHOOK they
 * are never interrupted (the watchdog names them once a second instead; see the README).
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>

enum { SAMPLES = 25, SYSTEMS = 1000, WARMUP = 100, FRAMES = 2000, BLOCK = 250 };

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_budget: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

static ona_runtime *make_runtime(uint32_t threads, uint32_t budget_ms) {
    ona_runtime_desc desc = {
        .threads = threads, .script_roots = roots, .turn_budget_ms = budget_ms};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("create", rc);
    return rt;
}

static void quiet_log(void *user, ona_log_level level, const char *where, const char *message) {
    (void)level, (void)where, (void)message, (void)user;
}

static bench_stats latency(uint32_t threads, uint32_t budget_ms) {
    ona_runtime *rt = make_runtime(threads, 1000);
    double samples[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        ona_spawn_desc d = {.script = "spin_budget.lua",
                            .name = "spinner",
                            .policy = ONA_POLICY_STOP,
                            .budget_ms = budget_ms};
        ona_system h;
        int rc = ona_runtime_spawn(rt, &d, &h);
        if (rc)
            die("spawn", rc);
        uint64_t t0 = bench_now_ns();
        rc = ona_runtime_step(rt, 1.0 / 60);
        uint64_t t1 = bench_now_ns();
        if (rc)
            die("step", rc);
        samples[i] = (double)(t1 - t0) / 1e6 - budget_ms;
        if ((rc = ona_runtime_step(rt, 1.0 / 60)) != 0) /* the boundary ends it */
            die("step", rc);
    }
    ona_runtime_destroy(rt);
    return bench_summarise(samples, SAMPLES);
}

static void spawn_idle(ona_runtime *rt) {
    for (int i = 0; i < SYSTEMS; i++) {
        ona_spawn_desc d = {.script = "empty.lua"};
        ona_system h;
        int rc = ona_runtime_spawn(rt, &d, &h);
        if (rc)
            die("spawn", rc);
    }
}

static void turn_cost(uint32_t threads, bench_stats *on, bench_stats *off) {
    ona_runtime *rt[2] = {make_runtime(threads, 1000), make_runtime(threads, ONA_BUDGET_OFF)};
    static double samples[2][FRAMES];
    for (int k = 0; k < 2; k++) {
        spawn_idle(rt[k]);
        for (int f = 0; f < WARMUP; f++)
            ona_runtime_step(rt[k], 1.0 / 60);
    }
    for (int block = 0; block < FRAMES / BLOCK; block++)
        for (int k = 0; k < 2; k++)
            for (int f = 0; f < BLOCK; f++) {
                uint64_t t0 = bench_now_ns();
                ona_runtime_step(rt[k], 1.0 / 60);
                samples[k][block * BLOCK + f] = (double)(bench_now_ns() - t0) / 1e3;
            }
    *on = bench_summarise(samples[0], FRAMES);
    *off = bench_summarise(samples[1], FRAMES);
    ona_runtime_destroy(rt[0]);
    ona_runtime_destroy(rt[1]);
}

int main(void) {
    ona_log_set_sink(quiet_log, NULL, ONA_LOG_ERROR);
    bench_report *r = bench_report_open(
        "budget", "Turn budget: interrupt latency and per-turn cost",
        "none (the same runtime with the budget off, side by side, for the turn cost)");
    bench_report_printf(
        r,
        "Interrupt latency: wall time of the frame whose only turn spins in the interpreter, "
        "minus the budget, in ms; %d spawns per row. The watchdog looks every 10 ms.\n\n",
        SAMPLES);
    bench_report_printf(r,
                        "| budget | threads | median ms | mean ms | stddev ms | min ms | max ms |\n"
                        "|---:|---:|---:|---:|---:|---:|---:|\n");
    const uint32_t budgets[] = {20, 100, 1000};
    bench_report_chart(r, "Runaway turn: interrupt latency after its budget (lower is better)",
                       "ms", false, 2, (const char *const[]){"threads = 1", "threads = 2"});
    double lat[2];
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++)
        for (uint32_t threads = 1; threads <= 2; threads++) {
            bench_stats s = latency(threads, budgets[b]);
            bench_report_printf(r, "| %u ms | %u | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
                                budgets[b], threads, s.median, s.mean, s.stddev, s.min, s.max);
            lat[threads - 1] = s.median;
            if (threads == 2) {
                char label[32];
                snprintf(label, sizeof label, "budget %u ms", budgets[b]);
                bench_report_chart_row(r, label, lat);
            }
        }
    bench_report_printf(
        r,
        "\nTurn cost: wall time of one frame of %d Lua systems with an empty process, in us; "
        "%d frames per row after %d warm-up frames, alternating blocks of %d.\n\n",
        SYSTEMS, FRAMES, WARMUP, BLOCK);
    bench_report_printf(r, "| threads | budget on: median us | mean us | budget off: median us | "
                           "mean us | on/off (median) |\n|---:|---:|---:|---:|---:|---:|\n");
    for (uint32_t threads = 1; threads <= 2; threads++) {
        bench_stats on, off;
        turn_cost(threads, &on, &off);
        bench_report_printf(r, "| %u | %.1f | %.1f | %.1f | %.1f | %.3fx |\n", threads, on.median,
                            on.mean, off.median, off.mean, on.median / off.median);
    }
    return bench_report_close(r) ? 1 : 0;
}
