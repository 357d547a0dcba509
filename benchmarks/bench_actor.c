/*
 * bench_actor: the actor core's basic costs, in the style of the seed's Cforall tables (one row
 * per operation; median, mean and standard deviation in ns), with two peers measured in the same
 * run. The machine has 2 cores; the runtime runs with threads = 1 or 2 as each row says.
 *
 *   spawn Lua system     ona_runtime_spawn of benchmarks/lua/empty.lua ({process = function()
 *                        end}) between frames; one sample per spawn (SPAWN_PER_RUNTIME spawns into
 *                        each of SPAWN_RUNTIMES fresh runtimes, so the registry never fills), in
 *                        rounds: ONA__LUA_PREBUILT spawns taking the states built ahead, as many
 *                        building their own ("none ready"), the build of the next ready states
 *                        (timed on its own), a frame. `bench_actor spawn` runs these rows alone.
 *                        Peer: a bare LuaJIT state (lua_newstate with a realloc allocator +
 *                        luaL_openlibs), made between the spawns, closed after them.
 *                        Memory per system: after its first turn, the system's Lua heap
 *                        (ona_system_stats.memory), the bytes the C core allocated for it
 *                        (counted through ona_set_allocator), malloc's in-use growth (mallinfo2)
 *                        and the resident set growth, each divided by MEM_SYSTEMS systems.
 *   spawn native system  ona_runtime_spawn_native of a system with an empty process callback.
 *   empty turn           EMPTY_SYSTEMS systems with an empty process, threads = 1: the wall time
 *                        of one ona_runtime_step divided by EMPTY_SYSTEMS; one sample per frame.
 *                        Lua and native systems separately.
 *   park + resume        two Lua systems (benchmarks/lua/pingpong.lua) bounce a number through
 *                        ona.send / ona.receive on 1 thread, HOPS hops in a frame: every hop is a
 *                        send, a park of the sender in receive and a resume of the receiver. One
 *                        sample per frame: frame time / HOPS. "send + receive, no park" is the
 *                        same send and receive to itself with no wait (selfsend.lua), so the
 *                        difference is the park and resume alone.
 *   message round trip   the same ping-pong with threads = 1 and threads = 2: frame time /
 * (HOPS/2). The runtime's steals counter and an untimed traced run (each hop carries the sender's
 * pthread_self through the FFI) say whether the two systems really ran on different threads.
 * Placement is whatever the scheduler did. peers                libuv's uv_queue_work round trip
 * (queue one work item with an empty work callback, uv_run until its after_work callback ran,
 * repeat; UV_THREADPOOL_SIZE=2), and a pthread mutex + condvar queue round trip (one thread pushes
 * a request and waits for the response a second thread pushes back; two queues, each a mutex, a
 * condvar and a count). One sample per batch of PEER_BATCH round trips.
 */
#include "bench_args.h"
#include "bench_support.h"
#include "lua_host.h"
#include "mailbox.h"
#include "ona/ona.h"
#include "runtime_internal.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

enum {
    SPAWN_RUNTIMES = 5,
    SPAWN_PER_RUNTIME = 400,
    MEM_SYSTEMS = 1000,
    EMPTY_SYSTEMS = 1000,
    EMPTY_WARMUP = 50,
    EMPTY_FRAMES = 500,
    HOPS = 2000,
    PING_WARMUP = 20,
    PING_FRAMES = 200,
    PEER_BATCH = 2000,
    PEER_SAMPLES = 100,
};

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_actor: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

static ona_runtime *make_runtime(uint32_t threads) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("ona_runtime_create", rc);
    return rt;
}

/* --- Spawn arguments: a table of key = value pairs ------------------------------------------- */

static ona_system spawn_lua(ona_runtime *rt, const char *script, const char *name,
                            ona_message *args_msg) {
    ona_spawn_desc d = {.script = script, .name = name, .args = args_msg};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &d, &h);
    if (rc)
        die(script, rc);
    return h;
}

static void step(ona_runtime *rt) {
    int rc = ona_runtime_step(rt, 1.0 / 60);
    if (rc)
        die("ona_runtime_step", rc);
}

/* --- Rows ------------------------------------------------------------------------------------ */

typedef struct row {
    char label[96];
    char note[160];
    bench_stats s;
    size_t n;
} row;

enum { MAX_ROWS = 16 };
static row rows[MAX_ROWS];
static int row_count;

static row *add_row(const char *label, const char *note, double *samples, size_t n) {
    row *r = &rows[row_count++];
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->note, sizeof r->note, "%s", note);
    r->s = bench_summarise(samples, n);
    r->n = n;
    return r;
}

/* --- Spawning -------------------------------------------------------------------------------- */

static int empty_native(ona_ctx *ctx, void *state, double dt) {
    (void)ctx, (void)state, (void)dt;
    return 0;
}

/* The bare LuaJIT peer: a state with a realloc allocator, as Ona makes one, and the standard
 * libraries, nothing else. */
static void *bare_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud, (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

/* Rounds of ONA__LUA_PREBUILT spawns with a built state ready, then as many with none (the
 * runtime's ready states taken: built at the spawn, as every spawn was before the states built
 * ahead), then the build of the next ready states as main does it between frames, then a frame. */
static clockid_t spawn_clock = CLOCK_MONOTONIC;

static uint64_t spawn_now_ns(void) {
    struct timespec ts;
    clock_gettime(spawn_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void bench_spawn(void) {
    enum { ROUND = 2 * ONA__LUA_PREBUILT, SAMPLES = SPAWN_RUNTIMES * SPAWN_PER_RUNTIME / 2 };
    static double lua[SAMPLES], lua_fresh[SAMPLES], refill[SAMPLES / ONA__LUA_PREBUILT];
    static double native[SPAWN_RUNTIMES * SPAWN_PER_RUNTIME];
    static double bare[SPAWN_RUNTIMES * SPAWN_PER_RUNTIME];
    static lua_State *states[SPAWN_PER_RUNTIME];
    size_t n = 0, nl = 0, nf = 0, nr = 0;
    for (int r = 0; r < SPAWN_RUNTIMES; r++) {
        ona_runtime *rt = make_runtime(1);
        ona__core *core = &rt->core;
        for (int i = 0; i < SPAWN_PER_RUNTIME; i++) {
            if (i % ROUND == 0 && i > 0) {
                uint64_t f0 = spawn_now_ns();
                uint32_t built = ona__lua_prebuilt_fill(core);
                if (built != ONA__LUA_PREBUILT)
                    die("the states built ahead", ONA_ENOMEM);
                refill[nr++] = (double)(spawn_now_ns() - f0) / built;
                step(rt);
            }
            bool ready = ona__lua_prebuilt_count(core) > 0;
            uint64_t b0 = spawn_now_ns();
            lua_State *L = lua_newstate(bare_alloc, NULL);
            if (!L)
                die("lua_newstate", ONA_ENOMEM);
            luaL_openlibs(L);
            bare[n] = (double)(spawn_now_ns() - b0);
            states[i] = L;
            ona_spawn_desc d = {.script = "empty.lua"};
            ona_system h;
            uint64_t t0 = spawn_now_ns();
            int rc = ona_runtime_spawn(rt, &d, &h);
            uint64_t t1 = spawn_now_ns();
            if (rc)
                die("spawn empty.lua", rc);
            ona_system_desc nd = {.name = "native", .process = empty_native};
            rc = ona_runtime_spawn_native(rt, &nd, &h);
            uint64_t t2 = spawn_now_ns();
            if (rc)
                die("spawn native", rc);
            if (ready && nl < SAMPLES)
                lua[nl++] = (double)(t1 - t0);
            else if (!ready && nf < SAMPLES)
                lua_fresh[nf++] = (double)(t1 - t0);
            native[n] = (double)(t2 - t1);
            n++;
        }
        ona_runtime_destroy(rt);
        for (int i = 0; i < SPAWN_PER_RUNTIME; i++)
            lua_close(states[i]);
    }
    add_row("spawn Lua system",
            "ona_runtime_spawn of empty.lua, threads = 1, a state built ahead ready", lua, nl);
    add_row("spawn Lua system, none ready",
            "the same once the ready states are taken: the state is built at the spawn",
            lua_fresh, nf);
    char note[96];
    snprintf(note, sizeof note, "ona__lua_prebuilt_fill of %d states (main), per state",
             ONA__LUA_PREBUILT);
    add_row("build of a state ahead, between frames", note, refill, nr);
    add_row("spawn native system", "ona_runtime_spawn_native, empty process", native, n);
    add_row("peer: bare LuaJIT state",
            "lua_newstate (realloc allocator) + luaL_openlibs, "
            "interleaved with the spawns",
            bare, n);
}

/* --- Memory per system ----------------------------------------------------------------------- */

/* Counts the C core's live bytes: every block carries its size in a 16-byte header. */
static atomic_llong core_bytes;

static void *count_realloc(void *user, void *ptr, size_t size) {
    (void)user;
    size_t old = 0;
    char *base = NULL;
    if (ptr) {
        base = (char *)ptr - 16;
        memcpy(&old, base, sizeof old);
    }
    char *p = realloc(base, size + 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    atomic_fetch_add_explicit(&core_bytes, (long long)size - (long long)old, memory_order_relaxed);
    return p + 16;
}

static void count_free(void *user, void *ptr) {
    (void)user;
    if (!ptr)
        return;
    char *base = (char *)ptr - 16;
    size_t old;
    memcpy(&old, base, sizeof old);
    atomic_fetch_sub_explicit(&core_bytes, (long long)old, memory_order_relaxed);
    free(base);
}

static long resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE);
}

static size_t malloc_in_use(void) {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

typedef struct memory_report {
    double lua_heap_kb, lua_peak_kb, core_lua_kb, core_native_kb, mailbox_kb, malloc_kb, rss_kb;
} memory_report;

static memory_report bench_memory(void) {
    memory_report m = {0};
    ona_allocator counting = {count_realloc, count_free, NULL};
    ona_set_allocator(&counting);

    /* The mailbox alone, at the default capacity of 64. */
    long long before = atomic_load(&core_bytes);
    ona__mailbox *mb;
    int rc = ona__mailbox_create(64, &mb);
    if (rc)
        die("mailbox", rc);
    m.mailbox_kb = (double)(atomic_load(&core_bytes) - before) / 1024.0;
    ona__mailbox_destroy(mb);

    ona_runtime *rt = make_runtime(1);
    static ona_system hs[MEM_SYSTEMS];
    step(rt);
    long rss0 = resident_bytes();
    size_t heap0 = malloc_in_use();
    before = atomic_load(&core_bytes);
    for (int i = 0; i < MEM_SYSTEMS; i++)
        hs[i] = spawn_lua(rt, "empty.lua", NULL, NULL);
    long long core_lua = atomic_load(&core_bytes) - before;
    step(rt); /* every system's first turn */
    long rss1 = resident_bytes();
    size_t heap1 = malloc_in_use();
    double lua = 0, peak = 0;
    for (int i = 0; i < MEM_SYSTEMS; i++) {
        ona_system_stats st;
        ona_runtime_system_stats(rt, hs[i], &st);
        lua += (double)st.memory;
        peak += (double)st.memory_peak;
    }
    m.lua_heap_kb = lua / MEM_SYSTEMS / 1024.0;
    m.lua_peak_kb = peak / MEM_SYSTEMS / 1024.0;
    m.core_lua_kb = (double)core_lua / MEM_SYSTEMS / 1024.0;
    m.malloc_kb = (double)(heap1 - heap0) / MEM_SYSTEMS / 1024.0;
    m.rss_kb = (double)(rss1 - rss0) / MEM_SYSTEMS / 1024.0;

    before = atomic_load(&core_bytes);
    for (int i = 0; i < 100; i++) {
        ona_system_desc nd = {.name = "native", .process = empty_native};
        ona_system h;
        if ((rc = ona_runtime_spawn_native(rt, &nd, &h)))
            die("spawn native", rc);
    }
    m.core_native_kb = (double)(atomic_load(&core_bytes) - before) / 100 / 1024.0;
    ona_runtime_destroy(rt);
    ona_set_allocator(NULL);
    return m;
}

/* --- Empty turns ----------------------------------------------------------------------------- */

static void bench_empty_turn(bool lua) {
    ona_runtime *rt = make_runtime(1);
    for (int i = 0; i < EMPTY_SYSTEMS; i++) {
        if (lua) {
            spawn_lua(rt, "empty.lua", NULL, NULL);
        } else {
            ona_system_desc nd = {.name = "native", .process = empty_native};
            ona_system h;
            int rc = ona_runtime_spawn_native(rt, &nd, &h);
            if (rc)
                die("spawn native", rc);
        }
    }
    for (int i = 0; i < EMPTY_WARMUP; i++)
        step(rt);
    static double samples[EMPTY_FRAMES];
    for (int i = 0; i < EMPTY_FRAMES; i++) {
        uint64_t t0 = bench_now_ns();
        step(rt);
        samples[i] = (double)(bench_now_ns() - t0) / EMPTY_SYSTEMS;
    }
    ona_runtime_destroy(rt);
    char note[160];
    snprintf(note, sizeof note, "frame time / %d systems, threads = 1, median of %d frames",
             EMPTY_SYSTEMS, EMPTY_FRAMES);
    add_row(lua ? "empty turn, Lua system" : "empty turn, native system", note, samples,
            EMPTY_FRAMES);
}

/* --- Ping-pong ------------------------------------------------------------------------------- */

typedef struct trace_sum {
    double seen, cross;
} trace_sum;

static int collect_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    trace_sum *sum = ona_ctx_user(ctx);
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        ona_message_reader r;
        ona_message_reader_begin(&r, m);
        ona_value v;
        double vals[2] = {0, 0};
        int i = 0;
        while (ona_message_read(&r, &v) == 0 && v.type == ONA_VALUE_NUMBER && i < 2)
            vals[i++] = v.as.number;
        sum->seen += vals[0];
        sum->cross += vals[1];
    }
    return 0;
}

typedef struct ping_result {
    double samples[PING_FRAMES];
    uint64_t steals;
    double cross_fraction; /* from the traced run; < 0 when not traced */
    double cross, seen;    /* hops that crossed threads, hops, in the traced run */
    uint64_t traced_steals;
} ping_result;

static void spawn_pair(ona_runtime *rt, bool trace, ona_system report) {
    bench_args a;
    bench_args_begin(&a);
    bench_args_string(&a, "peer", "pong");
    bench_args_bool(&a, "serve", true);
    bench_args_number(&a, "hops", HOPS);
    bench_args_bool(&a, "trace", trace);
    if (report.id)
        bench_args_number(&a, "report", report.id);
    spawn_lua(rt, "pingpong.lua", "ping", bench_args_end(&a));
    bench_args_begin(&a);
    bench_args_string(&a, "peer", "ping");
    bench_args_bool(&a, "serve", false);
    bench_args_number(&a, "hops", HOPS);
    bench_args_bool(&a, "trace", trace);
    if (report.id)
        bench_args_number(&a, "report", report.id);
    spawn_lua(rt, "pingpong.lua", "pong", bench_args_end(&a));
}

static void bench_pingpong(uint32_t threads, ping_result *out) {
    ona_runtime *rt = make_runtime(threads);
    spawn_pair(rt, false, (ona_system){0});
    for (int i = 0; i < PING_WARMUP; i++)
        step(rt);
    ona_runtime_stats st0, st1;
    ona_runtime_stats_get(rt, &st0);
    for (int i = 0; i < PING_FRAMES; i++) {
        uint64_t t0 = bench_now_ns();
        step(rt);
        out->samples[i] = (double)(bench_now_ns() - t0) / HOPS;
    }
    ona_runtime_stats_get(rt, &st1);
    out->steals = st1.steals - st0.steals;
    if (st1.messages - st0.messages < (uint64_t)PING_FRAMES * HOPS)
        fprintf(stderr, "bench_actor: ping-pong delivered %llu messages, expected %llu\n",
                (unsigned long long)(st1.messages - st0.messages),
                (unsigned long long)PING_FRAMES * HOPS);
    ona_runtime_destroy(rt);

    /* The traced, untimed run: which threads did the hops run on? */
    out->cross_fraction = -1;
    rt = make_runtime(threads);
    static trace_sum sum;
    memset(&sum, 0, sizeof sum);
    ona_system_desc cd = {.name = "collector", .process = collect_process, .user = &sum};
    ona_system report;
    int rc = ona_runtime_spawn_native(rt, &cd, &report);
    if (rc)
        die("collector", rc);
    spawn_pair(rt, true, report);
    for (int i = 0; i < PING_WARMUP + PING_FRAMES + 1; i++)
        step(rt);
    if (sum.seen > 0)
        out->cross_fraction = sum.cross / sum.seen;
    out->cross = sum.cross;
    out->seen = sum.seen;
    ona_runtime_stats ts;
    ona_runtime_stats_get(rt, &ts);
    out->traced_steals = ts.steals;
    ona_runtime_destroy(rt);
}

static row *bench_selfsend(void) {
    ona_runtime *rt = make_runtime(1);
    bench_args a;
    bench_args_begin(&a);
    bench_args_number(&a, "count", HOPS);
    spawn_lua(rt, "selfsend.lua", NULL, bench_args_end(&a));
    for (int i = 0; i < PING_WARMUP; i++)
        step(rt);
    static double samples[PING_FRAMES];
    for (int i = 0; i < PING_FRAMES; i++) {
        uint64_t t0 = bench_now_ns();
        step(rt);
        samples[i] = (double)(bench_now_ns() - t0) / HOPS;
    }
    ona_runtime_destroy(rt);
    return add_row("send + receive, no park",
                   "a system sends a number to itself and receives it at once, "
                   "threads = 1",
                   samples, PING_FRAMES);
}

/* --- Peer: uv_queue_work --------------------------------------------------------------------- */

static void uv_work_empty(uv_work_t *req) {
    bench_escape(req);
}

static void uv_after_work(uv_work_t *req, int status) {
    (void)status;
    (*(int *)req->data)++;
}

static void bench_uv_queue_work(void) {
    uv_loop_t loop;
    uv_loop_init(&loop);
    uv_work_t req;
    int done = 0;
    req.data = &done;
    static double samples[PEER_SAMPLES];
    for (int s = -2; s < PEER_SAMPLES; s++) { /* two warm-up batches start the pool */
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < PEER_BATCH; i++) {
            uv_queue_work(&loop, &req, uv_work_empty, uv_after_work);
            uv_run(&loop, UV_RUN_DEFAULT);
        }
        if (s >= 0)
            samples[s] = (double)(bench_now_ns() - t0) / PEER_BATCH;
    }
    uv_loop_close(&loop);
    add_row("peer: uv_queue_work round trip",
            "queue one item, uv_run to its after_work; "
            "UV_THREADPOOL_SIZE=2",
            samples, PEER_SAMPLES);
}

/* --- Peer: mutex + condvar queues ------------------------------------------------------------ */

typedef struct cv_queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    long count;
} cv_queue;

static cv_queue requests = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
static cv_queue responses = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void cv_push(cv_queue *q, long n) {
    pthread_mutex_lock(&q->lock);
    q->count += n;
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

static void cv_pop(cv_queue *q) {
    pthread_mutex_lock(&q->lock);
    while (q->count == 0)
        pthread_cond_wait(&q->cond, &q->lock);
    q->count--;
    pthread_mutex_unlock(&q->lock);
}

static void *cv_server(void *arg) {
    long total = (long)(intptr_t)arg;
    for (long i = 0; i < total; i++) {
        cv_pop(&requests);
        cv_push(&responses, 1);
    }
    return NULL;
}

static void bench_condvar(void) {
    long total = (long)(PEER_SAMPLES + 2) * PEER_BATCH;
    pthread_t server;
    pthread_create(&server, NULL, cv_server, (void *)(intptr_t)total);
    static double samples[PEER_SAMPLES];
    for (int s = -2; s < PEER_SAMPLES; s++) {
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < PEER_BATCH; i++) {
            cv_push(&requests, 1);
            cv_pop(&responses);
        }
        if (s >= 0)
            samples[s] = (double)(bench_now_ns() - t0) / PEER_BATCH;
    }
    pthread_join(server, NULL);
    add_row("peer: mutex + condvar queue round trip",
            "request queue and response queue, two "
            "threads",
            samples, PEER_SAMPLES);
}

/* --- Report ---------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    /* libuv reads it when its pool first starts. */
    setenv("UV_THREADPOOL_SIZE", "2", 1);
    if (argc > 1 && strcmp(argv[1], "spawn") == 0) {
        /* `bench_actor spawn [cpu]`: the spawn rows alone, printed, no report written; `cpu`
         * times them on the thread's CPU clock, which other load on the machine does not
         * stretch. */
        if (argc > 2 && strcmp(argv[2], "cpu") == 0)
            spawn_clock = CLOCK_THREAD_CPUTIME_ID;
        bench_spawn();
        for (int i = 0; i < row_count; i++)
            printf("%-40s median %9.0f ns  mean %9.0f  stddev %9.0f  (%zu)  %s\n",
                   rows[i].label, rows[i].s.median, rows[i].s.mean, rows[i].s.stddev, rows[i].n,
                   rows[i].note);
        return 0;
    }

    memory_report mem = bench_memory();
    bench_spawn();
    bench_empty_turn(true);
    bench_empty_turn(false);

    row *self = bench_selfsend();
    static ping_result p1, p2;
    bench_pingpong(1, &p1);
    row *hop = add_row("park + resume (ping-pong hop)",
                       "one send, one park in receive, one "
                       "resume; threads = 1",
                       p1.samples, PING_FRAMES);
    /* Round trips: two hops each. The samples were sorted by add_row; scale a copy. */
    double rt1[PING_FRAMES], rt2[PING_FRAMES];
    for (int i = 0; i < PING_FRAMES; i++)
        rt1[i] = p1.samples[i] * 2;
    add_row("message round trip, threads = 1", "ping-pong, two hops", rt1, PING_FRAMES);
    bench_pingpong(2, &p2);
    for (int i = 0; i < PING_FRAMES; i++)
        rt2[i] = p2.samples[i] * 2;
    add_row("message round trip, threads = 2", "ping-pong, two hops", rt2, PING_FRAMES);
    bench_uv_queue_work();
    bench_condvar();

    bench_report *r = bench_report_open(
        "actor", "Actor core: spawn, turn, park/resume, round trip",
        "libuv 1.44 uv_queue_work round trip and a pthread mutex + condvar queue round trip, "
        "same run, same compiler");
    bench_report_printf(r,
                        "All figures in ns. Runtime threads as each row says (the machine has "
                        "2 cores). Each sample of a per-operation row is one spawn, or one "
                        "frame (frame time / operations in it), or one batch of %d peer round "
                        "trips.\n\n",
                        PEER_BATCH);
    bench_report_printf(r, "| operation | median | mean | stddev | samples | how |\n");
    bench_report_printf(r, "|---|---:|---:|---:|---:|---|\n");
    bench_report_chart(r, "Actor operations and peer round trips: median ns (log scale)", "ns",
                       true, 1, (const char *const[]){"median"});
    for (int i = 0; i < row_count; i++) {
        row *w = &rows[i];
        bench_report_printf(r, "| %s | %.1f | %.1f | %.1f | %zu | %s |\n", w->label, w->s.median,
                            w->s.mean, w->s.stddev, w->n, w->note);
        bench_report_chart_row(r, w->label, (double[]){w->s.median});
        if (w == hop)
            bench_report_printf(r,
                                "| park + resume alone (derived) | %.1f | %.1f | | | "
                                "hop minus send + receive, medians and means |\n",
                                hop->s.median - self->s.median, hop->s.mean - self->s.mean);
    }

    bench_report_printf(r, "\nPlacement of the ping-pong (do the two systems run on different "
                           "threads?):\n\n");
    bench_report_printf(r,
                        "| threads | steals in %d timed frames | traced run: steals | hops "
                        "that crossed threads |\n|---:|---:|---:|---:|\n",
                        PING_FRAMES);
    ping_result *ps[2] = {&p1, &p2};
    for (int t = 0; t < 2; t++)
        bench_report_printf(r, "| %d | %llu | %llu | %.0f of %.0f (%.2f%%) |\n", t + 1,
                            (unsigned long long)ps[t]->steals,
                            (unsigned long long)ps[t]->traced_steals, ps[t]->cross, ps[t]->seen,
                            ps[t]->cross_fraction * 100);

    bench_report_printf(r, "\nThe runtime's round trip is only comparable to the peers' when its "
                           "hops cross threads: the peers always hand work to another thread and "
                           "wake it from sleep (on this KVM guest such a wake-up costs tens of us "
                           "when the other vCPU is idle), while a ping-pong hop that stays on one "
                           "thread wakes nobody.\n");
    bench_report_printf(r,
                        "\nMemory per Lua system (empty.lua, after its first turn; mean of "
                        "%d systems):\n\n",
                        MEM_SYSTEMS);
    bench_report_printf(r, "| what | KB |\n|---|---:|\n");
    bench_report_printf(r, "| Lua heap (ona_system_stats.memory) | %.1f |\n", mem.lua_heap_kb);
    bench_report_printf(r, "| Lua heap peak (ona_system_stats.memory_peak) | %.1f |\n",
                        mem.lua_peak_kb);
    bench_report_printf(r,
                        "| C core allocations (record, mailbox, path; ona_set_allocator "
                        "count) | %.1f |\n",
                        mem.core_lua_kb);
    bench_report_printf(r, "| of which the 64-slot mailbox | %.1f |\n", mem.mailbox_kb);
    bench_report_printf(r, "| Lua heap + C core | %.1f |\n", mem.lua_heap_kb + mem.core_lua_kb);
    bench_report_printf(r, "| malloc in use, all of it (mallinfo2 growth) | %.2f |\n",
                        mem.malloc_kb);
    bench_report_printf(r, "| resident set growth | %.1f |\n", mem.rss_kb);
    bench_report_printf(r, "| (a native system's C core allocations, for comparison) | %.1f |\n",
                        mem.core_native_kb);

    /* The performance targets, each against this run's median. */
    static const struct {
        const char *label;
        double limit;
        const char *unit;
        double scale;
    } targets[] = {
        {"send + receive, no park", 60, "ns", 1},
        {"empty turn, Lua system", 150, "ns", 1},
        {"message round trip, threads = 2", 400, "ns", 1},
        {"spawn Lua system", 20, "us", 1e-3},
    };
    bench_report_printf(r, "\nTargets:\n\n| target | this run | |\n|---|---:|---|\n");
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        const row *t = NULL;
        for (int j = 0; j < row_count; j++)
            if (strcmp(rows[j].label, targets[i].label) == 0)
                t = &rows[j];
        if (!t)
            continue;
        double v = t->s.median * targets[i].scale;
        bench_report_printf(r, "| %s <= %.0f %s | %.1f %s | %s |\n", targets[i].label,
                            targets[i].limit, targets[i].unit, v, targets[i].unit,
                            v <= targets[i].limit ? "met" : "missed");
    }
    bench_report_printf(r, "| Lua heap per system <= 64 KB | %.1f KB | %s |\n", mem.lua_heap_kb,
                        mem.lua_heap_kb <= 64 ? "met" : "missed");
    return bench_report_close(r) == 0 ? 0 : 1;
}
