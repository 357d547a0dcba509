/*
 * bench_order: what ordered delivery (the default, ona_runtime_desc.delivery = 0) costs against
 * immediate delivery (ONA_DELIVERY_IMMEDIATE) and against LÖVE's channels, side by side in one
 * run, on the same machine and build.
 *
 *   1 -> 1 numbers   benchmarks/lua/sender.lua sends PER_FRAME numbers a frame to receiver.lua,
 *                    which drains them with ona.messages(). Ordered delivery lets a sender send a
 *                    receiver at most (capacity - its backlog at the frame's start) messages a
 *                    frame, so the throughput rows give the receiver a mailbox of BIG_CAPACITY
 *                    (the default 64 would allow 64, or 32 a frame on average for an unordered
 *                    pair, whose frame's messages are still waiting at the next frame's start;
 *                    one row shows that). Rows: immediate (capacity 64 and BIG_CAPACITY);
 *                    ordered with the receiver `after` the sender (same frame) and unordered
 *                    (next frame). WARM messages first, untimed, in the same runtime (the JIT
 *                    warms up and every cell of the ring is touched once: a fresh 2^20-cell ring
 *                    pays ~30k page faults); then COUNT messages timed from a frame's start to
 *                    the end of the frame that completed them. Median of REPEATS runs, each in a
 *                    fresh runtime.
 *   LÖVE 11.4        benchmarks/peers/love_channel's 1to1_number (a thread pushes numbers into an
 *                    unbounded love.thread channel, main demands them), LOVE_REPEATS runs.
 *   chain of 8       CHAIN systems, each `after` the one before, each passing a number on
 *                    (benchmarks/lua/chain.lua; native systems doing the same in C) against the
 *                    same eight systems unordered; the last link of an ordered chain checks that
 *                    the value it got went through every hop in this frame. Per-hop cost: the
 *                    chain's frame over 8, and what the order adds over 7 hops.
 *   idle systems     IDLE_SMALL and IDLE_LARGE unordered systems with an empty turn
 *                    (benchmarks/lua/empty.lua, and native), ordered against immediate; and
 *                    IDLE_LARGE sleeping ones (benchmarks/lua/asleep.lua: no process, a
 *                    handler for messages that never come; native: no process), which the
 *                    frame gives no turn.
 *
 * Frame timings: every runtime of a comparison exists side by side (but for the 10,000 Lua and
 * native systems: one runtime at a time, see run_idle_alone) and they are stepped in
 * alternating blocks of BLOCK frames after a warm-up (as bench_frames does), one sample a frame
 * (bench_now_ns around ona_runtime_step); median, mean and p90; and the process's CPU time a
 * frame over each block (median of the blocks), which holds where other programs on the machine
 * stretch the wall time. Throughput rows give messages per CPU second beside the wall rate.
 * Threads = 1 and 2.
 *
 * `bench_order tp ordered|immediate PAIRED(0|1) CAPACITY THREADS [COUNT]` runs one throughput
 * case (for perf), `bench_order frames chain|native-chain|N|nN` one frame comparison (N idle Lua
 * systems, nN native ones), `bench_order frames N|nN|sN|snN ordered|immediate THREADS [FRAMES]` one
 * runtime of it alone (sN: sleeping systems); none writes a table.
 */
#include "bench_args.h"
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    PER_FRAME = 20000,
    COUNT = 1000000,
    BIG_CAPACITY = 1 << 20,
    REPEATS = 3,
    LOVE_REPEATS = 3,
    LOVE_COUNT = 2000000,
    CHAIN = 8,
    IDLE_SMALL = 1000,
    IDLE_LARGE = 10000,
    BLOCK = 100,
};

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

/* The process's CPU time in ns (every thread): on a machine shared with other work, what a frame
 * cost in CPU holds where its wall time is stretched by waiting for a core. */
static uint64_t cpu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_order: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

static ona_runtime *make_runtime(uint32_t threads, ona_delivery delivery, uint32_t max_systems) {
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .delivery = delivery,
                             .max_systems = max_systems};
    return bench_runtime(&desc, "bench_order");
}

static void step(ona_runtime *rt) {
    bench_step(rt, "bench_order");
}

static const char *delivery_name(ona_delivery d) {
    return d == ONA_DELIVERY_IMMEDIATE ? "immediate" : "ordered";
}

/* --- 1 -> 1 numbers ---------------------------------------------------------------------------- */

typedef struct tp_case {
    const char *label;
    ona_delivery delivery;
    bool paired; /* the receiver is `after` the sender */
    uint32_t capacity;
    int count, warm;
} tp_case;

static const tp_case tp_cases[] = {
    {"immediate, capacity 64 (the default)", ONA_DELIVERY_IMMEDIATE, false, 64, COUNT, 200000},
    {"immediate, capacity 2^20", ONA_DELIVERY_IMMEDIATE, false, BIG_CAPACITY, COUNT,
     BIG_CAPACITY},
    {"ordered, receiver after sender (same frame), capacity 2^20", ONA_DELIVERY_ORDERED, true,
     BIG_CAPACITY, COUNT, BIG_CAPACITY},
    {"ordered, unordered pair (next frame), capacity 2^20", ONA_DELIVERY_ORDERED, false,
     BIG_CAPACITY, COUNT, BIG_CAPACITY},
    {"ordered, unordered pair, capacity 64 (the default)", ONA_DELIVERY_ORDERED, false, 64, 50000,
     5000},
};
enum { TP_CASES = sizeof tp_cases / sizeof tp_cases[0] };

typedef struct tp_result {
    double mps;     /* median */
    double frames;  /* timed frames of the median run */
    double cpu_mps; /* median messages per second of the process's CPU time */
} tp_result;

static double tp_once(const tp_case *c, uint32_t threads, uint64_t *frames, double *cpu_mps) {
    ona_runtime *rt = make_runtime(threads, c->delivery, 0);
    const char *after[] = {"sender"};
    ona_spawn_desc rd = {.script = "receiver.lua",
                         .name = "receiver",
                         .mailbox_capacity = c->capacity,
                         .after_names = c->paired ? after : NULL,
                         .after_name_count = c->paired ? 1 : 0};
    ona_system receiver, sender;
    int rc = ona_runtime_spawn(rt, &rd, &receiver);
    if (rc)
        die("spawn receiver.lua", rc);
    bench_args a;
    bench_args_begin(&a);
    bench_args_string(&a, "target", "receiver");
    bench_args_string(&a, "payload", "number");
    bench_args_number(&a, "count", (double)c->warm + c->count);
    bench_args_number(&a, "per_turn", PER_FRAME);
    ona_spawn_desc sd = {.script = "sender.lua", .name = "sender", .args = bench_args_end(&a)};
    if ((rc = ona_runtime_spawn(rt, &sd, &sender)))
        die("spawn sender.lua", rc);
    ona_system_stats st;
    uint64_t total = (uint64_t)c->warm + (uint64_t)c->count, n = 0;
    do {
        step(rt);
        ona_runtime_system_stats(rt, receiver, &st);
    } while (st.messages_in < (uint64_t)c->warm && ++n < 10000000);
    uint64_t start = st.messages_in, t0 = bench_now_ns(), c0 = cpu_now_ns();
    n = 0;
    do {
        step(rt);
        n++;
        ona_runtime_system_stats(rt, receiver, &st);
    } while (st.messages_in < total && n < 10000000);
    uint64_t ns = bench_now_ns() - t0, cpu = cpu_now_ns() - c0;
    if (st.messages_in != total)
        fprintf(stderr, "bench_order: received %llu of %llu\n",
                (unsigned long long)st.messages_in, (unsigned long long)total);
    ona_runtime_destroy(rt);
    *frames = n;
    *cpu_mps = (double)(st.messages_in - start) / ((double)cpu / 1e9);
    return (double)(st.messages_in - start) / ((double)ns / 1e9);
}

static tp_result tp_run(const tp_case *c, uint32_t threads) {
    double mps[REPEATS], sorted[REPEATS], cpu[REPEATS];
    uint64_t frames[REPEATS];
    for (int i = 0; i < REPEATS; i++)
        mps[i] = tp_once(c, threads, &frames[i], &cpu[i]);
    memcpy(sorted, mps, sizeof sorted);
    double median = bench_summarise(sorted, REPEATS).median;
    int at = 0;
    for (int i = 0; i < REPEATS; i++)
        if (mps[i] == median)
            at = i;
    return (tp_result){median, (double)frames[at], bench_summarise(cpu, REPEATS).median};
}

/* LÖVE's 1to1_number, median messages a second; 0 when `love` is not there or failed. */
static double love_one_to_one(void) {
    char love[1024];
    if (!bench_find_program("love", love, sizeof love))
        return 0;
    char count[32];
    snprintf(count, sizeof count, "%d", LOVE_COUNT);
    char *argv[] = {love, ONA_SOURCE_DIR "/benchmarks/peers/love_channel", count, NULL};
    double per_s[LOVE_REPEATS];
    for (int i = 0; i < LOVE_REPEATS; i++) {
        static char out[4096];
        if (bench_run_capture(argv, out, sizeof out, 300) != 0)
            return 0;
        const char *line = strstr(out, "love-channel 1to1_number ");
        double ns;
        if (!line || sscanf(line + strlen("love-channel 1to1_number "), "per_s=%lf ns=%lf",
                            &per_s[i], &ns) != 2)
            return 0;
    }
    return bench_summarise(per_s, LOVE_REPEATS).median;
}

/* --- Frames: chains and idle systems ----------------------------------------------------------- */

/* A native link: what the Lua chain does, in C. */
typedef struct native_link {
    ona_system next; /* 0 for the last */
    bool first, check;
    uint64_t mismatches;
} native_link;

static int native_chain_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    native_link *l = ona_ctx_user(ctx);
    double v = 0;
    bool got = false;
    ona_message *in;
    while (ona_ctx_try_receive(ctx, &in) == 0) {
        ona_message_reader r;
        ona_value val;
        ona_message_reader_begin(&r, in);
        if (ona_message_read(&r, &val) == 0 && val.type == ONA_VALUE_NUMBER) {
            v = val.as.number;
            got = true;
        }
    }
    uint64_t frame = ona_ctx_frame(ctx);
    if (l->first) {
        v = (double)frame;
        got = true;
    }
    if (l->next.id && got) {
        ona_message m;
        ona_message_init(&m);
        ona_message_writer w;
        ona_message_writer_begin(&w, &m);
        ona_message_write_number(&w, v + 1);
        if (ona_message_writer_end(&w) == 0 && ona_ctx_try_send(ctx, l->next, &m) != 0)
            ona_message_release(&m);
    } else if (!l->next.id && l->check && (!got || v != (double)frame + 7)) {
        l->mismatches++;
    }
    return 0;
}

static int native_idle_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx;
    (void)state;
    (void)dt;
    return 0;
}

/* A sleeping native system's handler (it has no process). */
static int native_asleep_receive(ona_ctx *ctx, void *state, ona_message *msg) {
    (void)ctx;
    (void)msg;
    ++*(uint64_t *)state;
    return 0;
}

/* What a comparison's runtime holds. */
typedef enum frame_kind { KIND_CHAIN, KIND_SPREAD, KIND_IDLE, KIND_ASLEEP } frame_kind;

typedef struct frame_rt {
    const char *label;
    ona_delivery delivery;
    uint32_t threads;
    ona_runtime *rt;
    native_link links[CHAIN];
    ona_system chain[CHAIN];
    double *samples;
    bench_stats stats;
    double p90;
    double cpu_us; /* median over the blocks of the process's CPU time a frame */
    uint64_t errors; /* Lua chain: the last link's errors; native: mismatches */
} frame_rt;

/* Spawns link `i` of `f`'s chain (names c1..c8); `ordered`: each after the one before. */
static void spawn_link(frame_rt *f, bool native, bool ordered, int i) {
    char name[16], prev[16], next[16];
    snprintf(name, sizeof name, "c%d", i + 1);
    snprintf(prev, sizeof prev, "c%d", i);
    snprintf(next, sizeof next, "c%d", i + 2);
    const char *after[] = {prev};
    uint32_t after_count = ordered && i > 0 ? 1 : 0;
    int rc;
    if (native) {
        native_link *l = &f->links[i];
        *l = (native_link){.next = i + 1 < CHAIN ? f->chain[i + 1] : (ona_system){0},
                           .first = i == 0,
                           .check = ordered && f->delivery == ONA_DELIVERY_ORDERED};
        ona_system_desc d = {.name = name,
                             .process = native_chain_process,
                             .user = l,
                             .after_names = after,
                             .after_name_count = after_count};
        rc = ona_runtime_spawn_native(f->rt, &d, &f->chain[i]);
    } else {
        bench_args a;
        bench_args_begin(&a);
        if (i + 1 < CHAIN)
            bench_args_string(&a, "next", next);
        bench_args_bool(&a, "first", i == 0);
        bench_args_bool(&a, "check", ordered && f->delivery == ONA_DELIVERY_ORDERED);
        ona_spawn_desc d = {.script = "chain.lua",
                            .name = name,
                            .args = bench_args_end(&a),
                            .after_names = after,
                            .after_name_count = after_count};
        rc = ona_runtime_spawn(f->rt, &d, &f->chain[i]);
    }
    if (rc)
        die(native ? "spawn native link" : "spawn chain.lua", rc);
}

/* An idle system: an empty process each frame, or (`asleep`) none, sleeping until a message. */
static void spawn_idle(frame_rt *f, bool native, bool asleep) {
    int rc;
    ona_system h;
    if (native) {
        ona_system_desc d = {.name = "idle"};
        if (asleep) {
            d.size = sizeof(uint64_t);
            d.receive = native_asleep_receive;
        } else {
            d.process = native_idle_process;
        }
        rc = ona_runtime_spawn_native(f->rt, &d, &h);
    } else {
        ona_spawn_desc d = {.script = asleep ? "asleep.lua" : "empty.lua"};
        rc = ona_runtime_spawn(f->rt, &d, &h);
    }
    if (rc)
        die("spawn idle", rc);
}

/* Builds the runtimes of one comparison (spawning their systems in turn, so that no runtime's
 * states all lie after another's), steps them in alternating blocks and summarises. */
static void run_frames(frame_rt *f, int nrt, frame_kind kind, const bool *ordered, bool native,
                       int systems, int warmup, int frames) {
    uint32_t max_systems = systems + 16 > 4096 ? (uint32_t)systems + 16 : 0;
    for (int t = 0; t < nrt; t++) {
        f[t].rt = make_runtime(f[t].threads, f[t].delivery, max_systems);
        f[t].samples = malloc((size_t)frames * sizeof *f[t].samples);
        if (!f[t].samples)
            die("samples", ONA_ENOMEM);
    }
    if (kind == KIND_IDLE || kind == KIND_ASLEEP) {
        for (int i = 0; i < systems; i++)
            for (int t = 0; t < nrt; t++)
                spawn_idle(&f[t], native, kind == KIND_ASLEEP);
    } else {
        /* Native links know the next link's handle: spawned last to first. */
        for (int k = 0; k < CHAIN; k++)
            for (int t = 0; t < nrt; t++)
                spawn_link(&f[t], native, ordered[t], native ? CHAIN - 1 - k : k);
    }
    for (int i = 0; i < warmup; i++)
        for (int t = 0; t < nrt; t++)
            step(f[t].rt);
    int blocks = (frames + BLOCK - 1) / BLOCK;
    double *cpu = malloc((size_t)nrt * (size_t)blocks * sizeof *cpu);
    if (!cpu)
        die("samples", ONA_ENOMEM);
    for (int done = 0; done < frames; done += BLOCK)
        for (int t = 0; t < nrt; t++) {
            uint64_t c0 = cpu_now_ns();
            int i = done;
            for (; i < done + BLOCK && i < frames; i++) {
                uint64_t t0 = bench_now_ns();
                step(f[t].rt);
                f[t].samples[i] = (double)(bench_now_ns() - t0) / 1000.0;
            }
            cpu[t * blocks + done / BLOCK] = (double)(cpu_now_ns() - c0) / 1000.0 / (i - done);
        }
    for (int t = 0; t < nrt; t++)
        f[t].cpu_us = bench_summarise(cpu + t * blocks, (size_t)blocks).median;
    free(cpu);
    for (int t = 0; t < nrt; t++) {
        f[t].stats = bench_summarise(f[t].samples, (size_t)frames);
        f[t].p90 = f[t].samples[frames * 90 / 100];
        f[t].errors = 0;
        if (kind == KIND_CHAIN || kind == KIND_SPREAD) {
            if (native) {
                f[t].errors = f[t].links[CHAIN - 1].mismatches;
            } else {
                ona_system_stats st;
                ona_runtime_system_stats(f[t].rt, f[t].chain[CHAIN - 1], &st);
                f[t].errors = st.errors;
            }
        }
        ona_runtime_destroy(f[t].rt);
        free(f[t].samples);
    }
}

/* A chain comparison: ordered and immediate delivery, chain and spread (unordered), 1 and 2
 * threads: eight runtimes. Index: delivery * 4 + spread * 2 + (threads - 1). */
static void run_chain(frame_rt *f, bool native) {
    bool ordered[8];
    for (int i = 0; i < 8; i++) {
        f[i] = (frame_rt){.delivery = i / 4 ? ONA_DELIVERY_IMMEDIATE : ONA_DELIVERY_ORDERED,
                          .threads = (uint32_t)(i % 2 + 1)};
        ordered[i] = (i / 2) % 2 == 0;
    }
    run_frames(f, 8, KIND_CHAIN, ordered, native, CHAIN, 200, 3000);
}

/* An idle comparison: ordered and immediate, 1 and 2 threads. Index: delivery * 2 + threads-1. */
static void run_idle(frame_rt *f, frame_kind kind, bool native, int systems, int warmup,
                     int frames) {
    for (int i = 0; i < 4; i++)
        f[i] = (frame_rt){.delivery = i / 2 ? ONA_DELIVERY_IMMEDIATE : ONA_DELIVERY_ORDERED,
                          .threads = (uint32_t)(i % 2 + 1)};
    run_frames(f, 4, kind, NULL, native, systems, warmup, frames);
}

/* As run_idle, but one runtime at a time (ordered 1t, immediate 1t, ordered 2t, immediate 2t):
 * several runtimes of 10,000 Lua states each in one process (20,000 LuaJIT states and more) make
 * LuaJIT's machine-code allocation fail (each state maps its own areas within +-2 GB of the VM)
 * and every failed trace then unwinds an error through _Unwind_Find_FDE, whose search grows with
 * the frames registered; the frames would measure that instead of the runtime. */
static void run_idle_alone(frame_rt *f, frame_kind kind, bool native, int systems, int warmup,
                           int frames) {
    for (int th = 0; th < 2; th++)
        for (int d = 0; d < 2; d++) {
            frame_rt *x = &f[d * 2 + th];
            *x = (frame_rt){.delivery = d ? ONA_DELIVERY_IMMEDIATE : ONA_DELIVERY_ORDERED,
                            .threads = (uint32_t)(th + 1)};
            run_frames(x, 1, kind, NULL, native, systems, warmup, frames);
        }
}

/* --- Report ---------------------------------------------------------------------------------- */

static void frame_row(bench_report *r, const char *what, const frame_rt *f, const frame_rt *base) {
    char ratio[32] = "";
    if (base)
        snprintf(ratio, sizeof ratio, "%.2fx", f->stats.median / base->stats.median);
    char cpu_ratio[32] = "";
    if (base)
        snprintf(cpu_ratio, sizeof cpu_ratio, "%.2fx", f->cpu_us / base->cpu_us);
    bench_report_printf(r, "| %s | %s | %u | %.2f | %.2f | %.2f | %s | %.2f | %s |\n", what,
                        delivery_name(f->delivery), f->threads, f->stats.median, f->stats.mean,
                        f->p90, ratio, f->cpu_us, cpu_ratio);
}

static void report_chain(bench_report *r, const char *title, const frame_rt *f) {
    bench_report_printf(r, "\n### %s\n\n", title);
    bench_report_printf(r, "| systems | delivery | threads | median us | mean us | p90 us | "
                           "ordered / immediate | CPU us a frame | CPU ordered / immediate |\n"
                           "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int spread = 0; spread < 2; spread++)
        for (int th = 0; th < 2; th++)
            for (int d = 0; d < 2; d++) {
                const frame_rt *x = &f[d * 4 + spread * 2 + th];
                frame_row(r, spread ? "8 unordered" : "chain of 8 (each after the last)", x,
                          d ? NULL : &f[4 + spread * 2 + th]);
            }
    bench_report_printf(r, "\n| threads | ordered chain / 8 (us a hop) | (ordered chain - "
                           "ordered unordered) / 7 (us the order adds a hop) | last link's "
                           "checks failed (ordered chain) |\n|---:|---:|---:|---:|\n");
    for (int th = 0; th < 2; th++)
        bench_report_printf(r, "| %d | %.3f | %.3f | %llu |\n", th + 1,
                            f[th].stats.median / CHAIN,
                            (f[th].stats.median - f[2 + th].stats.median) / (CHAIN - 1),
                            (unsigned long long)f[th].errors);
}

static void report_idle(bench_report *r, const char *title, const frame_rt *f, int frames) {
    bench_report_printf(r, "\n### %s (%d frames each)\n\n", title, frames);
    bench_report_printf(r, "| systems | delivery | threads | median us | mean us | p90 us | "
                           "ordered / immediate | CPU us a frame | CPU ordered / immediate |\n"
                           "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int th = 0; th < 2; th++)
        for (int d = 0; d < 2; d++)
            frame_row(r, title, &f[d * 2 + th], d ? NULL : &f[2 + th]);
}

/* An idle case's argument: N idle Lua systems, nN native ones, sN / snN sleeping ones. */
static int idle_arg(const char *a, frame_kind *kind, bool *native) {
    *kind = *a == 's' ? KIND_ASLEEP : KIND_IDLE;
    a += *a == 's';
    *native = *a == 'n';
    return atoi(a + *native);
}

/* A target row: the best ordered median (1t, 2t) of the Lua and native runtimes, <= 1 ms. */
static void large_row(bench_report *r, const char *what, const frame_rt *lua,
                      const frame_rt *native) {
    double l = lua[0].stats.median < lua[1].stats.median ? lua[0].stats.median
                                                         : lua[1].stats.median;
    double n = native[0].stats.median < native[1].stats.median ? native[0].stats.median
                                                               : native[1].stats.median;
    bench_report_printf(r,
                        "| %s, one frame <= 1 ms (best of 1t, 2t): Lua / native | %.0f / %.0f "
                        "us | %s / %s |\n",
                        what, l, n, l <= 1000 ? "met" : "missed", n <= 1000 ? "met" : "missed");
}

static int run_single(int argc, char **argv) {
    if ((argc == 6 || argc == 7) && strcmp(argv[1], "tp") == 0) {
        tp_case c = {"cli",
                     strcmp(argv[2], "immediate") == 0 ? ONA_DELIVERY_IMMEDIATE
                                                       : ONA_DELIVERY_ORDERED,
                     atoi(argv[3]) != 0, (uint32_t)atoi(argv[4]),
                     argc == 7 ? atoi(argv[6]) : COUNT * 5, 0};
        c.warm = (int)c.capacity;
        uint64_t frames;
        double cpu;
        double mps = tp_once(&c, (uint32_t)atoi(argv[5]), &frames, &cpu);
        printf("%s paired=%d capacity=%u threads=%s: %.2f M/s (%.2f M per CPU second), %llu "
               "frames\n",
               argv[2], (int)c.paired, c.capacity, argv[5], mps / 1e6, cpu / 1e6,
               (unsigned long long)frames);
        return 0;
    }
    frame_kind kind;
    bool native;
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "frames") == 0 &&
        idle_arg(argv[2], &kind, &native) > 0) {
        /* One runtime alone: N idle systems, one delivery and thread count (for perf). */
        frame_rt f = {.delivery = strcmp(argv[3], "immediate") == 0 ? ONA_DELIVERY_IMMEDIATE
                                                                   : ONA_DELIVERY_ORDERED,
                      .threads = (uint32_t)atoi(argv[4])};
        int n = idle_arg(argv[2], &kind, &native);
        int frames = argc == 6 ? atoi(argv[5]) : n >= IDLE_LARGE ? 400 : 4000;
        run_frames(&f, 1, kind, NULL, native, n, 20, frames > 0 ? frames : 1);
        printf("%d idle, %s threads=%u: median %.2f us, CPU %.2f us a frame\n", n,
               delivery_name(f.delivery), f.threads, f.stats.median, f.cpu_us);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "frames") == 0) {
        static frame_rt f[8];
        if (strcmp(argv[2], "chain") == 0 || strcmp(argv[2], "native-chain") == 0) {
            run_chain(f, argv[2][0] == 'n');
            for (int i = 0; i < 8; i++)
                printf("%s %s threads=%u: median %.2f us, checks failed %llu\n",
                       delivery_name(f[i].delivery), (i / 2) % 2 ? "spread" : "chain",
                       f[i].threads, f[i].stats.median, (unsigned long long)f[i].errors);
            return 0;
        }
        int n = idle_arg(argv[2], &kind, &native);
        if (n > 0) {
            if (n >= IDLE_LARGE)
                run_idle_alone(f, kind, native, n, 20, 400);
            else
                run_idle(f, kind, native, n, 20, 2000);
            for (int i = 0; i < 4; i++)
                printf("%d idle, %s threads=%u: median %.2f us\n", n,
                       delivery_name(f[i].delivery), f[i].threads, f[i].stats.median);
            return 0;
        }
    }
    fprintf(stderr, "usage: bench_order [tp ordered|immediate PAIRED CAPACITY THREADS [COUNT] | "
                    "frames chain|native-chain|N|nN|sN|snN [ordered|immediate THREADS]]\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc > 1)
        return run_single(argc, argv);
    /* One untimed run first: the process's first runtime pays its first touches. */
    {
        uint64_t frames;
        double cpu;
        (void)tp_once(&tp_cases[0], 1, &frames, &cpu);
    }
    tp_result tp[TP_CASES][2];
    for (int c = 0; c < TP_CASES; c++)
        for (uint32_t th = 1; th <= 2; th++) {
            tp[c][th - 1] = tp_run(&tp_cases[c], th);
            fprintf(stderr, "bench_order: %s, threads = %u: %.2f M/s\n", tp_cases[c].label, th,
                    tp[c][th - 1].mps / 1e6);
        }
    double love = love_one_to_one();
    fprintf(stderr, "bench_order: LÖVE 1to1_number %.2f M/s\n", love / 1e6);
    static frame_rt lua_chain[8], native_chain[8], lua_small[4], native_small[4], lua_large[4],
        native_large[4], lua_asleep[4], native_asleep[4];
    run_chain(lua_chain, false);
    fprintf(stderr, "bench_order: Lua chain done\n");
    run_chain(native_chain, true);
    run_idle(lua_small, KIND_IDLE, false, IDLE_SMALL, 100, 2000);
    fprintf(stderr, "bench_order: 1,000 idle Lua done\n");
    run_idle(native_small, KIND_IDLE, true, IDLE_SMALL, 100, 2000);
    run_idle_alone(lua_large, KIND_IDLE, false, IDLE_LARGE, 20, 300);
    fprintf(stderr, "bench_order: 10,000 idle Lua done\n");
    run_idle_alone(native_large, KIND_IDLE, true, IDLE_LARGE, 20, 1000);
    run_idle_alone(lua_asleep, KIND_ASLEEP, false, IDLE_LARGE, 20, 1000);
    run_idle_alone(native_asleep, KIND_ASLEEP, true, IDLE_LARGE, 20, 1000);
    fprintf(stderr, "bench_order: 10,000 sleeping done\n");

    bench_report *r = bench_report_open(
        "order", "Ordered delivery against immediate delivery and LÖVE's channels",
        "the same runtime with ONA_DELIVERY_IMMEDIATE, side by side in the same run; LÖVE 11.4 "
        "love.thread channels (benchmarks/peers/love_channel), same machine, after");
    bench_report_printf(r, "The machine has 2 cores; runtime threads = 1 and 2.\n\n");
    bench_report_printf(r, "## 1 -> 1 numbers through Lua systems\n\n");
    bench_report_printf(
        r,
        "sender.lua sends %d numbers a frame, receiver.lua drains them with `ona.messages()`. "
        "Ordered delivery lets a sender send at most (capacity - the receiver's backlog at the "
        "frame's start) a frame, so the throughput rows give the receiver a mailbox of 2^20 "
        "(only the receiver; the default is 64). Each run: the warm-up messages untimed (the "
        "capacity's worth, so every cell of the ring was touched once, or 200,000 / 5,000), then "
        "the timed ones, in whole frames; median of %d runs, each a fresh runtime.\n\n",
        PER_FRAME, REPEATS);
    bench_report_printf(r, "| delivery | timed messages | threads = 1 M/s | threads = 2 M/s | "
                           "frames (1t / 2t) | vs LÖVE (best of 1t, 2t) | M per CPU second "
                           "(1t / 2t) |\n|---|---:|---:|---:|---:|---:|---:|\n");
    bench_report_chart(r, "1 -> 1 numbers (higher is better)", "M messages/s", false, 2,
                       (const char *const[]){"threads = 1", "threads = 2"});
    for (int c = 0; c < TP_CASES; c++) {
        double best = tp[c][0].mps > tp[c][1].mps ? tp[c][0].mps : tp[c][1].mps;
        char vs[32] = "";
        if (love > 0)
            snprintf(vs, sizeof vs, "%.2fx", best / love);
        bench_report_chart_row(r, tp_cases[c].label,
                               (double[]){tp[c][0].mps / 1e6, tp[c][1].mps / 1e6});
        bench_report_printf(r, "| %s | %d | %.2f | %.2f | %.0f / %.0f | %s | %.2f / %.2f |\n",
                            tp_cases[c].label, tp_cases[c].count, tp[c][0].mps / 1e6,
                            tp[c][1].mps / 1e6, tp[c][0].frames, tp[c][1].frames, vs,
                            tp[c][0].cpu_mps / 1e6, tp[c][1].cpu_mps / 1e6);
    }
    if (love > 0)
        bench_report_printf(r,
                            "| LÖVE 11.4 channel, 1to1_number (%d numbers, median of %d runs) "
                            "| | %.2f | | | 1.00x | |\n",
                            LOVE_COUNT, LOVE_REPEATS, love / 1e6);
    else
        bench_report_printf(r, "| LÖVE 11.4: skipped (`love` is not on PATH) | | | | | | |\n");

    bench_report_printf(r, "\n## Frames (wall time of one `ona_runtime_step`)\n\n");
    bench_report_printf(r,
                        "The runtimes of each table side by side, stepped in alternating "
                        "blocks of %d frames after a warm-up; one wall-time sample a frame. "
                        "CPU us a frame: the process's CPU time (all threads, "
                        "CLOCK_PROCESS_CPUTIME_ID) over a block over its frames, median of "
                        "the blocks: what a frame cost where the machine's other load stretched "
                        "its wall time (with 2 threads it counts the helper's spinning too).\n",
                        BLOCK);
    report_chain(r, "A chain of 8 Lua systems (chain.lua) passing a number on, 3000 frames",
                 lua_chain);
    report_chain(r, "A chain of 8 native systems passing a number on, 3000 frames", native_chain);
    report_idle(r, "1,000 idle Lua systems", lua_small, 2000);
    report_idle(r, "1,000 idle native systems", native_small, 2000);
    report_idle(r, "10,000 idle Lua systems", lua_large, 300);
    bench_report_printf(r, "\n(10,000 systems: one runtime at a time, not side by side: two or "
                           "more runtimes of 10,000 LuaJIT states in one process make LuaJIT's "
                           "machine-code allocation fail, and each failed trace then costs an "
                           "unwind through _Unwind_Find_FDE.)\n");
    report_idle(r, "10,000 idle native systems", native_large, 1000);
    report_idle(r, "10,000 sleeping Lua systems (asleep.lua: no process)", lua_asleep, 1000);
    report_idle(r, "10,000 sleeping native systems (no process)", native_asleep, 1000);
    bench_report_printf(r, "\n");

    double ordered_best = tp[2][0].mps > tp[2][1].mps ? tp[2][0].mps : tp[2][1].mps;
    double unpaired_best = tp[3][0].mps > tp[3][1].mps ? tp[3][0].mps : tp[3][1].mps;
    bench_report_printf(r, "\nTargets:\n\n| target | this run | |\n|---|---:|---|\n");
    bench_report_printf(r,
                        "| 1 -> 1 numbers, ordered, >= 15 M/s (after / unordered, best of 1t "
                        "and 2t) | %.2f / %.2f M/s | %s |\n",
                        ordered_best / 1e6, unpaired_best / 1e6,
                        ordered_best >= 15e6 && unpaired_best >= 15e6 ? "met" : "missed");
    if (love > 0)
        bench_report_printf(r, "| 1 -> 1 numbers, ordered, >= 2x LÖVE | %.2fx / %.2fx | %s |\n",
                            ordered_best / love, unpaired_best / love,
                            ordered_best >= 2 * love && unpaired_best >= 2 * love ? "met"
                                                                                  : "missed");
    double hop = lua_chain[0].stats.median / CHAIN;
    if (lua_chain[1].stats.median / CHAIN > hop)
        hop = lua_chain[1].stats.median / CHAIN;
    bench_report_printf(r, "| ordered chain of 8 Lua systems, <= 1 us a hop (worse of 1t, 2t) | "
                           "%.3f us | %s |\n",
                        hop, hop <= 1.0 ? "met" : "missed");
    double worst = 0;
    for (int th = 0; th < 2; th++) {
        double q = lua_small[th].stats.median / lua_small[2 + th].stats.median;
        if (q > worst)
            worst = q;
    }
    bench_report_printf(r,
                        "| 1,000 idle Lua systems, ordered <= immediate (worse of 1t, 2t, "
                        "medians) | %.2fx | %s |\n",
                        worst, worst <= 1.0 ? "met" : "over");
    large_row(r, "10,000 idle systems, ordered", lua_large, native_large);
    large_row(r, "10,000 sleeping systems (no process, no mail), ordered", lua_asleep,
              native_asleep);
    return bench_report_close(r) == 0 ? 0 : 1;
}
