/*
 * soak: memory over a long run. A game of ~50 systems runs for a duration (argument in seconds,
 * else $ONA_SOAK_SECONDS, else 600): 4 sinks, 2 steady senders that wait on full mailboxes, a
 * spawner that spawns and kills short-lived blips and spawns one-shots every few frames, ~40
 * worker senders of which one is killed and replaced every 10 frames, and a native tally that
 * takes the reports. Scripts: tests/lua/chaos/ (the chaos test's; no command is ever sent, so
 * their flaky module is never loaded).
 *
 * Every 10 s it samples the resident set (/proc/self/statm) and the Lua heaps (the sum of
 * ona_system_stats.memory), and at the end prints both over time with their least-squares
 * slopes in KiB per minute, over the whole run and over its second half (after warm-up). A leak
 * shows as a steady positive slope; a flat or shrinking second half is what we want.
 *
 * Frames are stepped back to back (dt = 1/60, no sleeping), so a minute here is ~minutes of
 * a real game's churn.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SINKS = 4, STEADY = 2, WORKERS = 40, SAMPLE_S = 10, MAX_SAMPLES = 4096 };

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/chaos", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "soak: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

static long reports;

static int tally_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0)
        reports++; /* one thread at a time: the tally's turns never overlap */
    return 0;
}

static ona_system spawn(ona_runtime *rt, const char *script, const char *name, ona_system report,
                        const char *key1, double v1, const char *key2, double v2,
                        uint32_t mailbox) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "report", 6);
    ona_message_write_number(&w, (double)report.id);
    ona_message_write_string(&w, "sinks", 5);
    ona_message_write_number(&w, SINKS);
    if (key1) {
        ona_message_write_string(&w, key1, strlen(key1));
        ona_message_write_number(&w, v1);
    }
    if (key2) {
        ona_message_write_string(&w, key2, strlen(key2));
        ona_message_write_number(&w, v2);
    }
    ona_message_write_table_end(&w);
    int rc = ona_message_writer_end(&w);
    if (rc)
        die("args", rc);
    ona_spawn_desc d = {.script = script, .name = name, .args = &m, .mailbox_capacity = mailbox};
    ona_system h;
    rc = ona_runtime_spawn(rt, &d, &h);
    if (rc)
        die(script, rc);
    return h;
}

static double rss_mib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2)
        die("/proc/self/statm", ONA_EIO);
    fclose(f);
    return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static double lua_mib(ona_runtime *rt) {
    static ona_system live[256];
    uint32_t n = ona_runtime_systems(rt, live, 256);
    double total = 0;
    for (uint32_t i = 0; i < n && i < 256; i++) {
        ona_system_stats st;
        if (ona_runtime_system_stats(rt, live[i], &st) == 0)
            total += (double)st.memory;
    }
    return total / (1024.0 * 1024.0);
}

typedef struct sample {
    double t_s, rss, lua;
    uint64_t frames;
    uint32_t systems;
    uint64_t messages;
} sample;

/* Least-squares slope of y over t, in y units per minute, for samples [from, n). */
static double slope(const sample *s, int from, int n, bool lua) {
    double st = 0, sy = 0, stt = 0, sty = 0;
    int k = n - from;
    if (k < 2)
        return 0;
    for (int i = from; i < n; i++) {
        double y = lua ? s[i].lua : s[i].rss;
        st += s[i].t_s, sy += y, stt += s[i].t_s * s[i].t_s, sty += s[i].t_s * y;
    }
    double den = k * stt - st * st;
    return den > 0 ? (k * sty - st * sy) / den * 60.0 : 0;
}

int main(int argc, char **argv) {
    double seconds = 600;
    const char *env = getenv("ONA_SOAK_SECONDS");
    if (argc > 1)
        seconds = atof(argv[1]);
    else if (env)
        seconds = atof(env);
    if (!(seconds > 0)) {
        fprintf(stderr, "usage: soak [seconds] (or ONA_SOAK_SECONDS; default 600)\n");
        return 2;
    }

    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("ona_runtime_create", rc);
    ona_system_desc td = {.name = "tally", .process = tally_process, .mailbox_capacity = 4096};
    ona_system tally;
    if ((rc = ona_runtime_spawn_native(rt, &td, &tally)))
        die("tally", rc);
    char name[32];
    for (int k = 1; k <= SINKS; k++) {
        snprintf(name, sizeof name, "sink%d", k);
        spawn(rt, "sink.lua", name, tally, "index", k, NULL, 0, 16);
    }
    if ((rc = ona_runtime_step(rt, 1.0 / 60)))
        die("step", rc);
    for (int i = 0; i < STEADY; i++) {
        snprintf(name, sizeof name, "steady%d", i);
        spawn(rt, "steady.lua", name, tally, "id", 100 + i, "burst", 4, 0);
    }
    spawn(rt, "spawner.lua", "spawner", tally, NULL, 0, NULL, 0, 0);
    ona_system workers[WORKERS];
    int next_id = 1;
    for (int i = 0; i < WORKERS; i++)
        workers[i] = spawn(rt, "sender.lua", NULL, tally, "id", next_id++, "burst", 1 + i % 6, 8);

    static sample samples[MAX_SAMPLES];
    int n = 0;
    uint64_t start = bench_now_ns(), next_sample = start, frames = 0;
    for (;;) {
        uint64_t now = bench_now_ns();
        if (now >= next_sample && n < MAX_SAMPLES) {
            ona_runtime_stats rs;
            ona_runtime_stats_get(rt, &rs);
            samples[n++] = (sample){.t_s = (double)(now - start) / 1e9,
                                    .rss = rss_mib(),
                                    .lua = lua_mib(rt),
                                    .frames = frames,
                                    .systems = rs.systems,
                                    .messages = rs.messages};
            next_sample += (uint64_t)SAMPLE_S * 1000000000ull;
        }
        if ((double)(now - start) / 1e9 >= seconds)
            break;
        if (frames % 10 == 9) {
            int i = (int)((frames / 10) % WORKERS);
            if ((rc = ona_runtime_kill(rt, workers[i])))
                die("kill", rc);
            workers[i] =
                spawn(rt, "sender.lua", NULL, tally, "id", next_id++, "burst", 1 + i % 6, 8);
        }
        if ((rc = ona_runtime_step(rt, 1.0 / 60)))
            die("step", rc);
        frames++;
    }
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);

    char peers[96];
    snprintf(peers, sizeof peers, "none (RSS over time of one run, %.0f s)", seconds);
    bench_report *r = bench_report_open("soak", "Soak: memory over a long run", peers);
    bench_report_printf(
        r,
        "~50 systems (4 sinks, 2 steady senders, a spawner of blips and one-shots, "
        "%d workers of which one is killed and replaced every 10 frames, a native "
        "tally), frames stepped back to back on 2 threads for %.0f s; scripts "
        "tests/lua/chaos/. %llu frames, %llu messages delivered, %d workers spawned, "
        "%ld reports tallied.\n\n",
        WORKERS, seconds, (unsigned long long)frames, (unsigned long long)rs.messages, next_id - 1,
        reports);
    bench_report_printf(r, "| t (s) | frames | frames/s since the last sample | systems | messages "
                           "| RSS MiB | Lua heaps MiB |\n");
    bench_report_printf(r, "|---:|---:|---:|---:|---:|---:|---:|\n");
    bench_report_chart(r, "Soak: memory over the run (flat is good)", "MiB", false, 2,
                       (const char *const[]){"resident set", "Lua heaps"});
    for (int i = 0; i < n; i++) {
        char label[32];
        snprintf(label, sizeof label, "%.0f s", samples[i].t_s);
        bench_report_chart_row(r, label, (double[]){samples[i].rss, samples[i].lua});
        double rate = i ? (double)(samples[i].frames - samples[i - 1].frames) /
                              (samples[i].t_s - samples[i - 1].t_s)
                        : 0;
        bench_report_printf(r, "| %.0f | %llu | %.0f | %u | %llu | %.1f | %.2f |\n", samples[i].t_s,
                            (unsigned long long)samples[i].frames, rate, samples[i].systems,
                            (unsigned long long)samples[i].messages, samples[i].rss,
                            samples[i].lua);
    }
    /* Sample 0 is taken before the first frame, so the slopes start at sample 1 (10 s in). */
    bench_report_printf(r,
                        "\nSlope (least squares), KiB per minute: RSS %.1f from 10 s on, %.1f over "
                        "the second half; Lua heaps %.1f and %.1f. The first 10 s (start-up, "
                        "the first spawns) are left out of both.%s\n",
                        slope(samples, 1, n, false) * 1024, slope(samples, n / 2, n, false) * 1024,
                        slope(samples, 1, n, true) * 1024, slope(samples, n / 2, n, true) * 1024,
                        seconds < 600 ? " A shorter run than the default 10 minutes." : "");
    ona_runtime_destroy(rt);
    return bench_report_close(r) ? 1 : 0;
}
