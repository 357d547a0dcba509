/*
 * bench_mailbox: mailbox throughput in messages per second, end to end through Lua systems and
 * for the raw C mailbox underneath, in the same run.
 *
 *   Lua, end to end  1 -> 1 and 4 -> 1: sender systems (benchmarks/lua/sender.lua) loop ona.send
 *                    to one receiver system (receiver.lua) that drains its mailbox with
 *                    ona.messages(). The receiver's mailbox has the runtime's default capacity
 *                    (64); a sender that finds it full waits in ona.send. Senders send
 *                    PER_FRAME messages a frame between them, and frames are stepped until the
 *                    receiver's messages_in reaches the total. Payloads: one number; a 16-byte
 *                    string; the table {x = 1, y = 2, name = "abc"}. Runtime threads = 1 and 2.
 *                    A figure is total messages / wall time of all the frames (encode, push,
 *                    parking, pop, decode into Lua), median of REPEATS runs, each in a fresh
 *                    runtime (spawning is not timed; JIT warm-up is).
 *   C, raw           runtime/core/mailbox.h: ona__mailbox_push of a pre-encoded one-number message
 *                    (a struct copy of it each time) and ona__mailbox_pop, between pthreads:
 *                    1 -> 1 and 4 -> 1, capacity 64 and 1024. A producer that finds the mailbox
 *                    full, or the consumer finding it empty, spins briefly and then calls
 *                    sched_yield (4 -> 1 runs 5 threads on 2 cores). Median of RAW_REPEATS runs
 *                    of RAW_COUNT messages.
 *   Loaded           the 1 -> 1 and 4 -> 1 number cases and the 1 -> 1 table again while another
 *                    process spins on one of the two cores (bench_load_start): the targets hold
 *                    "loaded or not".
 *   LÖVE 11.4        benchmarks/peers/love_channel (love.thread channels, unbounded) on the same
 *                    workloads and a round trip, run as a child process LOVE_REPEATS times
 *                    (median); skipped when `love` is not on PATH.
 */
#include "bench_support.h"
#include "mailbox.h"
#include "ona/ona.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    REPEATS = 5,
    PER_FRAME = 20000,
    RAW_COUNT = 4000000,
    RAW_REPEATS = 5,
    MAX_SENDERS = 4,
    LOVE_REPEATS = 3,
    LOVE_COUNT = 2000000,
};

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_mailbox: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

/* --- Lua, end to end ------------------------------------------------------------------------- */

typedef struct payload {
    const char *name;
    const char *label;
    int count; /* messages per run */
} payload;

static const payload payloads[] = {
    {"number", "one number", 1000000},
    {"string", "16-byte string", 1000000},
    {"table", "table {x=1,y=2,name=\"abc\"}", 500000},
};

static ona_system spawn_sender(ona_runtime *rt, const char *payload_name, int count, int per_turn,
                               int index) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "target", 6);
    ona_message_write_string(&w, "receiver", 8);
    ona_message_write_string(&w, "payload", 7);
    ona_message_write_string(&w, payload_name, strlen(payload_name));
    ona_message_write_string(&w, "count", 5);
    ona_message_write_number(&w, count);
    ona_message_write_string(&w, "per_turn", 8);
    ona_message_write_number(&w, per_turn);
    ona_message_write_table_end(&w);
    int rc = ona_message_writer_end(&w);
    if (rc)
        die("args", rc);
    char name[32];
    snprintf(name, sizeof name, "sender%d", index);
    ona_spawn_desc d = {.script = "sender.lua", .name = name, .args = &m};
    ona_system h;
    if ((rc = ona_runtime_spawn(rt, &d, &h)))
        die("spawn sender.lua", rc);
    return h;
}

typedef struct lua_result {
    double mps;      /* median messages per second */
    double frames;   /* frames a run took */
    uint64_t steals; /* in the median run */
    uint64_t parks;  /* receiver + senders, in the median run */
} lua_result;

static double run_lua_once(uint32_t threads, int senders, const payload *p, uint64_t *frames,
                           uint64_t *steals, uint64_t *parks) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("ona_runtime_create", rc);
    ona_spawn_desc rd = {.script = "receiver.lua", .name = "receiver"};
    ona_system receiver;
    if ((rc = ona_runtime_spawn(rt, &rd, &receiver)))
        die("spawn receiver.lua", rc);
    ona_system hs[MAX_SENDERS];
    int per_sender = p->count / senders;
    for (int i = 0; i < senders; i++)
        hs[i] = spawn_sender(rt, p->name, per_sender, PER_FRAME / senders, i);
    uint64_t total = (uint64_t)per_sender * senders;
    uint64_t n = 0;
    ona_system_stats st;
    uint64_t t0 = bench_now_ns();
    do {
        if ((rc = ona_runtime_step(rt, 1.0 / 60)))
            die("step", rc);
        n++;
        ona_runtime_system_stats(rt, receiver, &st);
    } while (st.messages_in < total && n < 100000);
    uint64_t ns = bench_now_ns() - t0;
    if (st.messages_in != total)
        fprintf(stderr, "bench_mailbox: received %llu of %llu\n",
                (unsigned long long)st.messages_in, (unsigned long long)total);
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    *frames = n;
    *steals = rs.steals;
    *parks = st.parks;
    for (int i = 0; i < senders; i++) {
        ona_system_stats ss;
        ona_runtime_system_stats(rt, hs[i], &ss);
        *parks += ss.parks;
    }
    ona_runtime_destroy(rt);
    return (double)total / ((double)ns / 1e9);
}

static lua_result run_lua(uint32_t threads, int senders, const payload *p) {
    double mps[REPEATS];
    uint64_t frames[REPEATS], steals[REPEATS], parks[REPEATS];
    for (int i = 0; i < REPEATS; i++)
        mps[i] = run_lua_once(threads, senders, p, &frames[i], &steals[i], &parks[i]);
    /* Report the counters of the run whose rate is the median. */
    double sorted[REPEATS];
    memcpy(sorted, mps, sizeof sorted);
    double median = bench_summarise(sorted, REPEATS).median;
    int at = 0;
    for (int i = 0; i < REPEATS; i++)
        if (mps[i] == median)
            at = i;
    return (lua_result){median, (double)frames[at], steals[at], parks[at]};
}

/* --- C, raw ---------------------------------------------------------------------------------- */

typedef struct raw_run {
    ona__mailbox *mb;
    ona_message msg; /* the pre-encoded message every push copies */
    long per_producer;
    long total;
    atomic_int go;
} raw_run;

static void backoff(int *spins) {
    if (++*spins < 64) {
        __asm__ volatile("pause");
    } else {
        *spins = 0;
        sched_yield();
    }
}

static void *raw_producer(void *arg) {
    raw_run *r = arg;
    /* acquire: start together. */
    while (!atomic_load_explicit(&r->go, memory_order_acquire))
        sched_yield();
    for (long i = 0; i < r->per_producer; i++) {
        ona_message m = r->msg;
        int spins = 0;
        while (ona__mailbox_push(r->mb, &m) != 0)
            backoff(&spins);
    }
    return NULL;
}

static void *raw_consumer(void *arg) {
    raw_run *r = arg;
    while (!atomic_load_explicit(&r->go, memory_order_acquire))
        sched_yield();
    ona_message out;
    ona_message_init(&out);
    double sum = 0;
    for (long i = 0; i < r->total; i++) {
        int spins = 0;
        while (ona__mailbox_pop(r->mb, &out) != 0)
            backoff(&spins);
        sum += out.size; /* touch the message */
        ona_message_release(&out);
    }
    bench_escape(&sum);
    return NULL;
}

static double run_raw_once(int producers, uint32_t capacity) {
    raw_run r;
    memset(&r, 0, sizeof r);
    int rc = ona__mailbox_create(capacity, &r.mb);
    if (rc)
        die("mailbox", rc);
    ona_message_init(&r.msg);
    ona_message_writer w;
    ona_message_writer_begin(&w, &r.msg);
    ona_message_write_number(&w, 42);
    if ((rc = ona_message_writer_end(&w)))
        die("message", rc);
    r.per_producer = RAW_COUNT / producers;
    r.total = r.per_producer * producers;
    atomic_init(&r.go, 0);
    pthread_t threads[MAX_SENDERS + 1];
    for (int i = 0; i < producers; i++)
        pthread_create(&threads[i], NULL, raw_producer, &r);
    pthread_create(&threads[producers], NULL, raw_consumer, &r);
    uint64_t t0 = bench_now_ns();
    /* release: the threads see the mailbox and message. */
    atomic_store_explicit(&r.go, 1, memory_order_release);
    for (int i = 0; i <= producers; i++)
        pthread_join(threads[i], NULL);
    uint64_t ns = bench_now_ns() - t0;
    ona_message_release(&r.msg);
    ona__mailbox_destroy(r.mb);
    return (double)r.total / ((double)ns / 1e9);
}

static bench_stats run_raw(int producers, uint32_t capacity) {
    double mps[RAW_REPEATS];
    for (int i = 0; i < RAW_REPEATS; i++)
        mps[i] = run_raw_once(producers, capacity);
    return bench_summarise(mps, RAW_REPEATS);
}

/* --- LÖVE: love.thread channels, a child process ------------------------------------------- */

static const char *const love_workloads[] = {"1to1_number", "1to1_table", "4to1_number",
                                             "round_trip"};
enum { LOVE_WORKLOADS = 4 };

typedef struct love_result {
    bool ran;
    double per_s[LOVE_WORKLOADS]; /* median messages (or round trips) a second */
    double ns[LOVE_WORKLOADS];    /* median ns a message (or round trip) */
} love_result;

static love_result run_love(void) {
    love_result res = {0};
    char love[1024];
    if (!bench_find_program("love", love, sizeof love))
        return res;
    double per_s[LOVE_WORKLOADS][LOVE_REPEATS], ns[LOVE_WORKLOADS][LOVE_REPEATS];
    char count[32];
    snprintf(count, sizeof count, "%d", LOVE_COUNT);
    char *argv[] = {love, ONA_SOURCE_DIR "/benchmarks/peers/love_channel", count, NULL};
    for (int i = 0; i < LOVE_REPEATS; i++) {
        static char out[4096];
        if (bench_run_capture(argv, out, sizeof out, 300) != 0)
            return res;
        for (int w = 0; w < LOVE_WORKLOADS; w++) {
            char key[64];
            snprintf(key, sizeof key, "love-channel %s ", love_workloads[w]);
            const char *line = strstr(out, key);
            if (!line ||
                sscanf(line + strlen(key), "per_s=%lf ns=%lf", &per_s[w][i], &ns[w][i]) != 2)
                return res;
        }
    }
    for (int w = 0; w < LOVE_WORKLOADS; w++) {
        res.per_s[w] = bench_summarise(per_s[w], LOVE_REPEATS).median;
        res.ns[w] = bench_summarise(ns[w], LOVE_REPEATS).median;
    }
    res.ran = true;
    return res;
}

/* --- Report ---------------------------------------------------------------------------------- */

/* `bench_mailbox SENDERS PAYLOAD THREADS [COUNT]` runs one Lua case and prints it (for profiling
 * with perf; writes no table). With COUNT, one run of COUNT messages (for callgrind). */
static int run_one(int argc, char **argv) {
    int senders = atoi(argv[1]);
    uint32_t threads = (uint32_t)atoi(argv[3]);
    for (int p = 0; p < 3; p++) {
        if (strcmp(argv[2], payloads[p].name) != 0)
            continue;
        if (senders < 1 || senders > MAX_SENDERS || threads < 1)
            break;
        lua_result r;
        if (argc == 5) {
            payload one = payloads[p];
            one.count = atoi(argv[4]);
            uint64_t frames;
            double mps = run_lua_once(threads, senders, &one, &frames, &r.steals, &r.parks);
            r = (lua_result){mps, (double)frames, r.steals, r.parks};
        } else {
            r = run_lua(threads, senders, &payloads[p]);
        }
        printf("%d -> 1 %s, threads = %u: %.2f M/s, frames %.0f, steals %llu, parks %llu\n",
               senders, payloads[p].name, threads, r.mps / 1e6, r.frames,
               (unsigned long long)r.steals, (unsigned long long)r.parks);
        return 0;
    }
    fprintf(stderr, "usage: bench_mailbox [SENDERS(1-4) number|string|table THREADS [COUNT]]\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc == 4 || argc == 5)
        return run_one(argc, argv);
    static const int topologies[] = {1, 4};
    /* One untimed run first: the process's first runtime pays its first touches (page faults of
     * the allocator's arenas, the mailboxes), which made the first timed case (1 -> 1 numbers,
     * 1 thread) read 12 M/s in one run and 27 in the next. */
    {
        uint64_t frames, steals, parks;
        (void)run_lua_once(1, 1, &payloads[0], &frames, &steals, &parks);
    }
    lua_result lua[2][3][2]; /* topology, payload, threads-1 */
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 3; p++)
            for (uint32_t th = 1; th <= 2; th++)
                lua[t][p][th - 1] = run_lua(th, topologies[t], &payloads[p]);
    bench_stats raw[2][2]; /* topology, capacity */
    static const uint32_t capacities[] = {64, 1024};
    for (int t = 0; t < 2; t++)
        for (int c = 0; c < 2; c++)
            raw[t][c] = run_raw(topologies[t], capacities[c]);
    /* Loaded: another process spinning on a core. [case][threads-1]: 1 -> 1 number, 4 -> 1
     * number, 1 -> 1 table. */
    static const struct { int senders, payload; } loaded_cases[] = {{1, 0}, {4, 0}, {1, 2}};
    lua_result loaded[3][2];
    int hog = bench_load_start();
    for (int c = 0; c < 3; c++)
        for (uint32_t th = 1; th <= 2; th++)
            loaded[c][th - 1] =
                run_lua(th, loaded_cases[c].senders, &payloads[loaded_cases[c].payload]);
    bench_load_stop(hog);
    love_result love = run_love();

    bench_report *r = bench_report_open(
        "mailbox", "Mailbox throughput",
        "the raw C mailbox (runtime/core/mailbox.h) between pthreads, same run, same compiler; "
        "LÖVE 11.4 love.thread channels (benchmarks/peers/love_channel), same machine, after");
    bench_report_printf(r, "Messages per second (M/s = millions). The machine has 2 cores; "
                           "runtime threads = 1 and 2.\n\n");
    bench_report_printf(r, "## Lua systems, end to end\n\n");
    bench_report_printf(r,
                        "Senders loop `ona.send`, the receiver drains with `ona.messages()`; "
                        "receiver mailbox capacity 64 (the default); %d messages a frame "
                        "between the senders. Median of %d runs; frames, steals and parks "
                        "(receiver + senders) are those of the median run.\n\n",
                        PER_FRAME, REPEATS);
    bench_report_printf(r, "| senders -> receiver | payload | messages | threads = 1 M/s | "
                           "threads = 2 M/s | 2t/1t | frames | steals (2t) | parks 1t / 2t |\n");
    bench_report_printf(r, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    bench_report_chart(r, "Messages through Lua systems (higher is better)", "M messages/s", false,
                       2, (const char *const[]){"threads = 1", "threads = 2"});
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 3; p++) {
            lua_result *a = &lua[t][p][0], *b = &lua[t][p][1];
            char label[96];
            snprintf(label, sizeof label, "%d -> 1, %s", topologies[t], payloads[p].label);
            bench_report_chart_row(r, label, (double[]){a->mps / 1e6, b->mps / 1e6});
            bench_report_printf(r,
                                "| %d -> 1 | %s | %d | %.2f | %.2f | %.2fx | %.0f | %llu | "
                                "%llu / %llu |\n",
                                topologies[t], payloads[p].label,
                                payloads[p].count / topologies[t] * topologies[t], a->mps / 1e6,
                                b->mps / 1e6, b->mps / a->mps, a->frames,
                                (unsigned long long)b->steals, (unsigned long long)a->parks,
                                (unsigned long long)b->parks);
        }
    bench_report_printf(r, "\n## Raw C mailbox\n\n");
    bench_report_printf(r,
                        "`ona__mailbox_push` of a pre-encoded one-number message (88-byte "
                        "struct copy) and `ona__mailbox_pop`, one pthread per producer and one "
                        "consumer; %d messages; median (mean, stddev) of %d runs.\n\n",
                        RAW_COUNT, RAW_REPEATS);
    bench_report_printf(r, "| producers -> consumer | capacity | median M/s | mean M/s | "
                           "stddev M/s |\n|---|---:|---:|---:|---:|\n");
    for (int t = 0; t < 2; t++)
        for (int c = 0; c < 2; c++)
            bench_report_printf(r,
                                "| %d -> 1 (%d threads on 2 cores) | %u | %.2f | %.2f | "
                                "%.2f |\n",
                                topologies[t], topologies[t] + 1, capacities[c],
                                raw[t][c].median / 1e6, raw[t][c].mean / 1e6,
                                raw[t][c].stddev / 1e6);
    bench_report_printf(r, "\n## Loaded: another process spinning on one of the two cores\n\n");
    bench_report_printf(r,
                        "The same runs (median of %d) while a child process spins on a core "
                        "for the whole section, as a second program busy on the machine "
                        "would.\n\n",
                        REPEATS);
    bench_report_printf(r,
                        "| senders -> receiver | payload | threads = 1 M/s | threads = 2 M/s "
                        "| quiet 1t / 2t M/s | parks 1t / 2t |\n|---|---|---:|---:|---:|---:|\n");
    for (int c = 0; c < 3; c++) {
        int t = loaded_cases[c].senders == 1 ? 0 : 1, p = loaded_cases[c].payload;
        bench_report_printf(r, "| %d -> 1 | %s | %.2f | %.2f | %.2f / %.2f | %llu / %llu |\n",
                            loaded_cases[c].senders, payloads[p].label, loaded[c][0].mps / 1e6,
                            loaded[c][1].mps / 1e6, lua[t][p][0].mps / 1e6, lua[t][p][1].mps / 1e6,
                            (unsigned long long)loaded[c][0].parks,
                            (unsigned long long)loaded[c][1].parks);
    }
    bench_report_printf(r, "\n## Peer: LÖVE 11.4 love.thread channels\n\n");
    if (!love.ran) {
        bench_report_printf(r, "Skipped: `love` is not on PATH (benchmarks/run_all installs "
                               "Debian's).\n");
    } else {
        bench_report_printf(
            r,
            "benchmarks/peers/love_channel, %d messages (tables: half), median of %d runs of "
            "`love`, each timed from its threads' start to the last message received; LÖVE's "
            "channels are unbounded (a mutex and a condition variable around a queue). Ona: "
            "the quiet rows above (its mailbox holds 64). The round trip's Ona figure is "
            "actor.md's.\n\n",
            LOVE_COUNT, LOVE_REPEATS);
        bench_report_printf(r, "| workload | LÖVE M/s | LÖVE ns each | Ona 1t M/s | Ona 2t M/s | "
                               "Ona 2t / LÖVE |\n|---|---:|---:|---:|---:|---:|\n");
        const lua_result *ona_rows[] = {lua[0][0], lua[0][2], lua[1][0]};
        for (int w = 0; w < 3; w++)
            bench_report_printf(r, "| %s | %.2f | %.1f | %.2f | %.2f | %.2fx |\n",
                                love_workloads[w], love.per_s[w] / 1e6, love.ns[w],
                                ona_rows[w][0].mps / 1e6, ona_rows[w][1].mps / 1e6,
                                ona_rows[w][1].mps / love.per_s[w]);
        bench_report_printf(r, "| round trip (main <-> a thread) | %.3f | %.1f | | | |\n",
                            love.per_s[3] / 1e6, love.ns[3]);
    }
    /* The performance targets: 1 -> 1 numbers >= 15 M/s on 1 and 2 threads, loaded or not; 1 -> 1
     * tables >= 3 M/s; 4 -> 1 numbers on 2 threads >= 10 M/s. */
    double one = lua[0][0][0].mps, two = lua[0][0][1].mps;
    double one_l = loaded[0][0].mps, two_l = loaded[0][1].mps;
    double tab = lua[0][2][0].mps < lua[0][2][1].mps ? lua[0][2][0].mps : lua[0][2][1].mps;
    double fan = lua[1][0][1].mps;
    bench_report_printf(r, "\nTargets:\n\n| target | this run | |\n|---|---:|---|\n");
    bench_report_printf(r,
                        "| 1 -> 1 numbers >= 15 M/s, 1 and 2 threads, quiet | %.2f / %.2f M/s "
                        "| %s |\n",
                        one / 1e6, two / 1e6, one >= 15e6 && two >= 15e6 ? "met" : "missed");
    bench_report_printf(r,
                        "| 1 -> 1 numbers >= 15 M/s, 1 and 2 threads, loaded | %.2f / %.2f M/s "
                        "| %s |\n",
                        one_l / 1e6, two_l / 1e6,
                        one_l >= 15e6 && two_l >= 15e6 ? "met" : "missed");
    bench_report_printf(r,
                        "| 1 -> 1 tables >= 3 M/s (worse of 1 and 2 threads) | %.2f M/s | "
                        "%s |\n",
                        tab / 1e6, tab >= 3e6 ? "met" : "missed");
    bench_report_printf(r, "| 4 -> 1 numbers >= 10 M/s, 2 threads | %.2f M/s | %s |\n", fan / 1e6,
                        fan >= 10e6 ? "met" : "missed");
    return bench_report_close(r) == 0 ? 0 : 1;
}
