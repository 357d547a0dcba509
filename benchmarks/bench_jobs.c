/*
 * bench_jobs: the seed's Xbox One job-size table (Farrier, "Thread Synchronization on the Xbox
 * One Family"): 5,200,000 operations split as 52,000 jobs x 100, 5,200 x 1,000, 520 x 10,000 and
 * 52 x 100,000. An operation reads an element of an input array, multiplies it by a random
 * number, and writes the product at a random index of an output array. The arrays (ARRAY floats
 * each, in and out) and the xorshift random state belong to each worker (worker system or
 * thread): no two workers share a cache line of operation data.
 *
 * Configurations, each timed from the first job handed out to the last operation done:
 *   single thread   a plain loop over the jobs on the main thread, no queue (the baseline);
 *   Ona runtime     a native dispatcher system sends each job as a message (one number: its
 *                   operation count) to a pool of native worker systems (pool size = runtime
 *                   threads), BATCH messages at a time through ona_ctx_send_many, each batch
 *                   to the worker with the fewest jobs waiting (sent - done, which each
 *                   worker counts per job); each worker drains its mailbox with
 *                   ona_ctx_try_receive every turn and runs the jobs. The dispatcher sends
 *                   until every job is out or every worker's mailbox is full (then it goes on next frame); worker mailboxes
 *                   hold 65536 messages. Frames are stepped until every operation is done. One
 *                   runtime per configuration, kept across runs (a warm-up run first); a run
 *                   starts with ona_runtime_send of (jobs, ops) to the dispatcher. threads = 1
 *                   and 2;
 *   uv_queue_work   every job queued with uv_queue_work (libuv's pool: one shared queue under a
 *                   mutex, UV_THREADPOOL_SIZE=2 set from main before the pool's first use), then
 *                   uv_run until every after_work callback ran; arrays and random state are
 *                   thread-local to the pool threads.
 * Each figure is the median of RUNS runs after one warm-up run; speedup = single-thread median /
 * this median.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

enum {
    TOTAL_OPS = 5200000,
    ARRAY = 4096, /* floats per array: 16 KB in + 16 KB out per worker */
    RUNS = 21,
    MAX_WORKERS = 2,
    WORKER_MAILBOX = 65536,
    BATCH = 64, /* jobs per ona_ctx_send_many */
};

static const int job_counts[] = {52000, 5200, 520, 52};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_jobs: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

/* --- The operation --------------------------------------------------------------------------- */

typedef struct job_state {
    uint32_t rng; /* xorshift32 state */
    float in[ARRAY];
    float out[ARRAY];
} job_state;

static void job_state_init(job_state *s, uint32_t seed) {
    s->rng = seed ? seed : 1;
    for (int i = 0; i < ARRAY; i++)
        s->in[i] = (float)(i % 97) * 0.5f;
}

static inline uint32_t xorshift32(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* One job: `ops` operations. */
__attribute__((noinline)) static void run_job(job_state *s, long ops) {
    uint32_t rng = s->rng;
    for (long i = 0; i < ops; i++) {
        float r = (float)(xorshift32(&rng) & 0xFFFF) * (1.0f / 65536.0f);
        float v = s->in[i & (ARRAY - 1)] * r;
        s->out[xorshift32(&rng) & (ARRAY - 1)] = v;
    }
    s->rng = rng;
}

/* --- Single thread --------------------------------------------------------------------------- */

static double run_single(int jobs, long ops) {
    static job_state s;
    static bool ready;
    if (!ready) {
        job_state_init(&s, 2463534242u);
        ready = true;
    }
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < jobs; j++)
        run_job(&s, ops);
    uint64_t ns = bench_now_ns() - t0;
    bench_escape(s.out);
    return (double)ns / 1e6;
}

/* --- Ona runtime ----------------------------------------------------------------------------- */

/* Shared with the worker systems through their user pointer. Each worker writes only its own
 * counter (on its own cache line); main reads them between frames, which the frame's end orders. */
typedef struct pool {
    struct {
        _Alignas(64) long long ops_done;
        atomic_llong jobs_done; /* for the dispatcher, during the frame: relaxed, a hint */
    } done[MAX_WORKERS];
    ona_system workers[MAX_WORKERS];
    int worker_count;
} pool;

typedef struct dispatcher_state {
    long jobs_left;
    long ops;
    long long sent[MAX_WORKERS]; /* jobs sent to each worker, ever */
} dispatcher_state;

static int read_numbers(ona_message *m, double *out, int max) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    int n = 0;
    while (n < max && ona_message_read(&r, &v) == 0 && v.type == ONA_VALUE_NUMBER)
        out[n++] = v.as.number;
    return n;
}

static int dispatcher_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    dispatcher_state *d = state;
    pool *p = ona_ctx_user(ctx);
    ona_message *in;
    while (ona_ctx_try_receive(ctx, &in) == 0) {
        double v[2];
        if (read_numbers(in, v, 2) == 2) {
            d->jobs_left += (long)v[0];
            d->ops = (long)v[1];
        }
    }
    /* Jobs go out BATCH at a time through ona_ctx_send_many (one reservation in the worker's
     * mailbox and one wake per batch; each job is still its own message), each batch to the
     * worker with the fewest jobs waiting (sent - done): a worker that started while the
     * dispatcher still sends takes more, the one that waits for the dispatcher's thread fewer,
     * as a shared queue would balance them. */
    ona_message batch[BATCH];
    bool full[MAX_WORKERS] = {false};
    int fulls = 0;
    while (d->jobs_left > 0 && fulls < p->worker_count) {
        int to = 0;
        long long least = -1;
        for (int i = 0; i < p->worker_count; i++) {
            if (full[i])
                continue;
            /* relaxed: a hint of how far the worker got; nothing is read through it. */
            long long waiting =
                d->sent[i] - atomic_load_explicit(&p->done[i].jobs_done, memory_order_relaxed);
            if (least < 0 || waiting < least) {
                least = waiting;
                to = i;
            }
        }
        /* At most a worker's share of what is left, so that a few big jobs (52 x 100,000) are
         * not all handed to one worker in one batch. */
        long share = (d->jobs_left + p->worker_count - 1) / p->worker_count;
        uint32_t n = share < BATCH ? (uint32_t)share : BATCH;
        for (uint32_t i = 0; i < n; i++) {
            ona_message_init(&batch[i]);
            ona_message_writer w;
            ona_message_writer_begin(&w, &batch[i]);
            ona_message_write_number(&w, (double)d->ops);
            int rc = ona_message_writer_end(&w);
            if (rc)
                return rc;
        }
        uint32_t sent = 0;
        int rc = ona_ctx_send_many(ctx, p->workers[to], batch, n, &sent);
        for (uint32_t i = sent; i < n; i++)
            ona_message_release(&batch[i]);
        d->jobs_left -= sent;
        d->sent[to] += sent;
        if (rc == ONA_EFULL) {
            full[to] = true; /* until the next turn */
            fulls++;
            continue;
        }
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct worker_state {
    job_state job;
    int index;
} worker_state;

static int worker_init(ona_ctx *ctx, void *state) {
    worker_state *w = state;
    pool *p = ona_ctx_user(ctx);
    for (int i = 0; i < p->worker_count; i++)
        if (p->workers[i].id == ona_ctx_self(ctx).id)
            w->index = i;
    job_state_init(&w->job, 2463534242u + 7919u * (uint32_t)w->index);
    return 0;
}

static int worker_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    worker_state *w = state;
    pool *p = ona_ctx_user(ctx);
    ona_message *m;
    long long done = 0;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        double ops;
        if (read_numbers(m, &ops, 1) == 1) {
            run_job(&w->job, (long)ops);
            done += (long long)ops;
            /* relaxed: only the dispatcher's hint (its own cache line, one writer). */
            atomic_llong *jobs_done = &p->done[w->index].jobs_done;
            atomic_store_explicit(
                jobs_done, atomic_load_explicit(jobs_done, memory_order_relaxed) + 1,
                memory_order_relaxed);
        }
    }
    p->done[w->index].ops_done += done;
    return 0;
}

typedef struct runtime_run {
    ona_runtime *rt;
    ona_system dispatcher;
    pool *p;
} runtime_run;

static runtime_run runtime_open(uint32_t threads) {
    runtime_run rr;
    ona_runtime_desc desc = {.threads = threads};
    int rc = ona_runtime_create(&desc, &rr.rt);
    if (rc)
        die("ona_runtime_create", rc);
    rr.p = aligned_alloc(64, sizeof(pool));
    memset(rr.p, 0, sizeof(pool));
    rr.p->worker_count = (int)threads;
    ona_system_desc dd = {.name = "dispatcher", .size = sizeof(dispatcher_state),
                          .process = dispatcher_process, .user = rr.p};
    if ((rc = ona_runtime_spawn_native(rr.rt, &dd, &rr.dispatcher)))
        die("spawn dispatcher", rc);
    for (uint32_t i = 0; i < threads; i++) {
        ona_system_desc wd = {.name = "worker", .size = sizeof(worker_state), .init = worker_init,
                              .process = worker_process, .user = rr.p,
                              .mailbox_capacity = WORKER_MAILBOX};
        if ((rc = ona_runtime_spawn_native(rr.rt, &wd, &rr.p->workers[i])))
            die("spawn worker", rc);
    }
    return rr;
}

static long long ops_done(pool *p) {
    long long sum = 0;
    for (int i = 0; i < p->worker_count; i++)
        sum += p->done[i].ops_done;
    return sum;
}

static uint64_t turn_ns(ona_runtime *rt, ona_system h) {
    ona_system_stats st;
    ona_runtime_system_stats(rt, h, &st);
    return st.turn_ns_total;
}

/* One run; returns ms, the frames it took, and the time the dispatcher's turns and the slowest
 * worker's turns took in it (ms, from the runtime's statistics). */
static double runtime_run_once(runtime_run *rr, int jobs, long ops, uint64_t *frames,
                               double *dispatch_ms, double *worker_ms) {
    uint64_t d0 = turn_ns(rr->rt, rr->dispatcher), w0[MAX_WORKERS];
    for (int i = 0; i < rr->p->worker_count; i++)
        w0[i] = turn_ns(rr->rt, rr->p->workers[i]);
    long long target = ops_done(rr->p) + (long long)jobs * ops;
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, jobs);
    ona_message_write_number(&w, (double)ops);
    int rc = ona_message_writer_end(&w);
    if (rc)
        die("message", rc);
    uint64_t t0 = bench_now_ns();
    if ((rc = ona_runtime_send(rr->rt, rr->dispatcher, &m)))
        die("ona_runtime_send", rc);
    uint64_t n = 0;
    while (ops_done(rr->p) < target) {
        if ((rc = ona_runtime_step(rr->rt, 1.0 / 60)))
            die("step", rc);
        n++;
        if (n > 1000000)
            die("jobs never finished", ONA_EINVAL);
    }
    uint64_t ns = bench_now_ns() - t0;
    *frames = n;
    *dispatch_ms = (double)(turn_ns(rr->rt, rr->dispatcher) - d0) / 1e6;
    *worker_ms = 0;
    for (int i = 0; i < rr->p->worker_count; i++) {
        double ms = (double)(turn_ns(rr->rt, rr->p->workers[i]) - w0[i]) / 1e6;
        if (ms > *worker_ms)
            *worker_ms = ms;
    }
    return (double)ns / 1e6;
}

/* --- uv_queue_work --------------------------------------------------------------------------- */

static _Thread_local job_state *tls_job;
static job_state *uv_states[16];
static atomic_int uv_state_count;

typedef struct uv_job {
    uv_work_t req;
    long ops;
} uv_job;

static void uv_job_work(uv_work_t *req) {
    uv_job *j = (uv_job *)req;
    if (!tls_job) {
        tls_job = aligned_alloc(64, (sizeof(job_state) + 63) / 64 * 64);
        int i = atomic_fetch_add(&uv_state_count, 1);
        job_state_init(tls_job, 2463534242u + 7919u * (uint32_t)i);
        if (i < 16)
            uv_states[i] = tls_job;
    }
    run_job(tls_job, j->ops);
}

static long uv_done;

static void uv_job_after(uv_work_t *req, int status) {
    (void)req, (void)status;
    uv_done++;
}

static double run_uv(uv_loop_t *loop, uv_job *jobs_buf, int jobs, long ops) {
    uv_done = 0;
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < jobs; j++) {
        jobs_buf[j].ops = ops;
        uv_queue_work(loop, &jobs_buf[j].req, uv_job_work, uv_job_after);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    uint64_t ns = bench_now_ns() - t0;
    if (uv_done != jobs)
        die("uv jobs missing", ONA_EINVAL);
    return (double)ns / 1e6;
}

/* --- Report ---------------------------------------------------------------------------------- */

typedef struct cell {
    bench_stats s;
    double frames;      /* runtime only: median frames per run */
    double dispatch_ms; /* runtime only: median time in the dispatcher's turns per run */
    double worker_ms;   /* runtime only: median time in the busiest worker's turns per run */
} cell;

/* `bench_jobs once THREADS JOBS OPS`: one Ona run (no warm-up, no table), for profiling the
 * dispatcher and the workers with perf or callgrind (perf12.md, third wave). */
static int run_once_only(char **argv) {
    uint32_t threads = (uint32_t)atoi(argv[2]);
    int jobs = atoi(argv[3]);
    long ops = atol(argv[4]);
    if (threads < 1 || threads > MAX_WORKERS || jobs < 1 || ops < 1) {
        fprintf(stderr, "usage: bench_jobs [once THREADS(1-2) JOBS OPS]\n");
        return 2;
    }
    runtime_run rr = runtime_open(threads);
    uint64_t frames;
    double dms, wms;
    double ms = runtime_run_once(&rr, jobs, ops, &frames, &dms, &wms);
    printf("%d x %ld, threads = %u: %.2f ms, %llu frames, dispatcher %.2f ms, busiest worker "
           "%.2f ms\n",
           jobs, ops, threads, ms, (unsigned long long)frames, dms, wms);
    ona_runtime_destroy(rr.rt);
    free(rr.p);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "once") == 0)
        return run_once_only(argv);
    setenv("UV_THREADPOOL_SIZE", "2", 1); /* before libuv's pool first starts */

    cell single[4], rt1[4], rt2[4], uvc[4];
    double samples[RUNS], frame_samples[RUNS], dispatch_samples[RUNS], worker_samples[RUNS];

    for (int k = 0; k < 4; k++) {
        long ops = TOTAL_OPS / job_counts[k];
        run_single(job_counts[k], ops);
        for (int i = 0; i < RUNS; i++)
            samples[i] = run_single(job_counts[k], ops);
        single[k].s = bench_summarise(samples, RUNS);
    }

    for (uint32_t threads = 1; threads <= 2; threads++) {
        runtime_run rr = runtime_open(threads);
        for (int k = 0; k < 4; k++) {
            long ops = TOTAL_OPS / job_counts[k];
            uint64_t frames;
            double dms, wms;
            runtime_run_once(&rr, job_counts[k], ops, &frames, &dms, &wms);
            for (int i = 0; i < RUNS; i++) {
                samples[i] = runtime_run_once(&rr, job_counts[k], ops, &frames, &dms, &wms);
                frame_samples[i] = (double)frames;
                dispatch_samples[i] = dms;
                worker_samples[i] = wms;
            }
            cell *c = threads == 1 ? &rt1[k] : &rt2[k];
            c->s = bench_summarise(samples, RUNS);
            c->frames = bench_summarise(frame_samples, RUNS).median;
            c->dispatch_ms = bench_summarise(dispatch_samples, RUNS).median;
            c->worker_ms = bench_summarise(worker_samples, RUNS).median;
        }
        ona_runtime_destroy(rr.rt);
        free(rr.p);
    }

    uv_loop_t loop;
    uv_loop_init(&loop);
    uv_job *jobs_buf = calloc((size_t)job_counts[0], sizeof *jobs_buf);
    for (int k = 0; k < 4; k++) {
        long ops = TOTAL_OPS / job_counts[k];
        run_uv(&loop, jobs_buf, job_counts[k], ops);
        for (int i = 0; i < RUNS; i++)
            samples[i] = run_uv(&loop, jobs_buf, job_counts[k], ops);
        uvc[k].s = bench_summarise(samples, RUNS);
    }
    uv_loop_close(&loop);
    free(jobs_buf);

    bench_report *r = bench_report_open(
        "jobs", "Job size: the Xbox One job table on the Ona runtime",
        "a single-thread loop (baseline) and libuv 1.44 uv_queue_work (one locked shared queue, "
        "UV_THREADPOOL_SIZE=2), same run, same compiler");
    bench_report_printf(r, "5,200,000 operations (read in[i], multiply by a random number, write "
                           "out[random]), %d-float arrays and xorshift state per worker. The "
                           "machine has 2 cores: the ideal speedup is 2x. Wall time in ms, "
                           "median of %d runs after a warm-up run; speedup = single-thread "
                           "median / median.\n\n",
                        ARRAY, RUNS);
    bench_report_printf(r, "| jobs x ops | single thread ms | Ona threads = 1 ms | speedup | "
                           "Ona threads = 2 ms | speedup | uv_queue_work ms | speedup |\n");
    bench_report_printf(r, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    bool met_speedup = true, met_uv = true;
    bench_report_chart(r, "Speedup over a single-thread loop, 2 cores (higher is better)",
                       "speedup (x)", false, 3,
                       (const char *const[]){"Ona threads = 1", "Ona threads = 2",
                                             "uv_queue_work"});
    for (int k = 0; k < 4; k++) {
        double base = single[k].s.median;
        char label[64];
        snprintf(label, sizeof label, "%d x %d", job_counts[k], TOTAL_OPS / job_counts[k]);
        bench_report_chart_row(r, label,
                               (double[]){base / rt1[k].s.median, base / rt2[k].s.median,
                                          base / uvc[k].s.median});
        bench_report_printf(r, "| %d x %d | %.2f | %.2f | %.2fx | %.2f | %.2fx | %.2f | %.2fx |\n",
                            job_counts[k], TOTAL_OPS / job_counts[k], base, rt1[k].s.median,
                            base / rt1[k].s.median, rt2[k].s.median, base / rt2[k].s.median,
                            uvc[k].s.median, base / uvc[k].s.median);
        if (base / rt2[k].s.median < 1.85)
            met_speedup = false;
        if (rt2[k].s.median > uvc[k].s.median)
            met_uv = false;
    }
    bench_report_printf(r, "\nMean and standard deviation (ms), and the frames an Ona run took "
                           "(median):\n\n");
    bench_report_printf(r, "| jobs x ops | single thread | Ona threads = 1 | frames | "
                           "Ona threads = 2 | frames | uv_queue_work |\n");
    bench_report_printf(r, "|---|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < 4; k++)
        bench_report_printf(r, "| %d x %d | %.2f ± %.2f | %.2f ± %.2f | %.0f | %.2f ± %.2f | "
                               "%.0f | %.2f ± %.2f |\n",
                            job_counts[k], TOTAL_OPS / job_counts[k], single[k].s.mean,
                            single[k].s.stddev, rt1[k].s.mean, rt1[k].s.stddev, rt1[k].frames,
                            rt2[k].s.mean, rt2[k].s.stddev, rt2[k].frames, uvc[k].s.mean,
                            uvc[k].s.stddev);
    bench_report_printf(r, "\nWhere an Ona run's time goes (medians, ms, from the runtime's turn "
                           "statistics): the dispatcher's turns (building and sending every job "
                           "message) and the busiest worker's turns (receiving and running its "
                           "jobs).\n\n");
    bench_report_printf(r, "| jobs x ops | threads = 1: dispatcher | worker | threads = 2: "
                           "dispatcher | busiest worker |\n|---|---:|---:|---:|---:|\n");
    for (int k = 0; k < 4; k++)
        bench_report_printf(r, "| %d x %d | %.2f | %.2f | %.2f | %.2f |\n", job_counts[k],
                            TOTAL_OPS / job_counts[k], rt1[k].dispatch_ms, rt1[k].worker_ms,
                            rt2[k].dispatch_ms, rt2[k].worker_ms);
    bench_report_printf(r, "\nTargets (issue): Ona threads = 2 >= 1.85x single-thread at every "
                           "size: %s; never behind uv_queue_work: %s.\n",
                        met_speedup ? "met" : "missed", met_uv ? "met" : "missed");
    for (int i = 0; i < 16 && uv_states[i]; i++)
        free(uv_states[i]);
    return bench_report_close(r) == 0 ? 0 : 1;
}
