/*
 * bench_inspect: what the inspector costs.
 *
 *   invaders, frame time   samples/invaders (autoplay, offscreen, no audio, 2 threads) stepped
 *                          at 1/60 s: inspector off, then on with a client asking for
 *                          /api/systems and /api/frame every 50 ms (what the page's stream sends
 *                          at its 20 ticks a second), in alternating runs of RUN frames after a
 *                          warm-up. Median and mean of the per-frame wall time of ona_runtime_step.
 *   1,000 systems listed   1,000 idle Lua systems (benchmarks/lua/empty.lua), headless: the time
 *                          main spends making a frame's snapshot (ona__inspect_snap_make, at the
 *                          end of every frame), the time the inspector's thread spends writing
 *                          the /api/systems document from one, and the round trip a client sees
 *                          for GET /api/systems (a new connection each time) while main steps
 *                          frames back to back, and while it steps one every 16.7 ms (a 60 Hz
 *                          game): the server's thread answers without waiting for a frame.
 */
#include "bench_support.h"
#include "inspect.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { WARMUP = 200, RUN = 600, RUNS = 3, SYSTEMS = 1000, LISTS = 50 };

#define TOKEN "bench-inspect-token"

static int port;
static atomic_bool stop_polling;

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_inspect: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

/* One GET with the token; the answer is read to the end (the server closes nothing: it says its
 * length, and the connection is closed here). Returns the bytes of the body's text read. */
static size_t get(const char *path) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char head[256];
    int n =
        snprintf(head, sizeof head,
                 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer " TOKEN "\r\n\r\n",
                 path, port);
    send(fd, head, (size_t)n, MSG_NOSIGNAL);
    static char buf[1 << 20];
    size_t len = 0;
    long want = -1;
    char *body = NULL;
    for (;;) {
        ssize_t k = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0)
            break;
        len += (size_t)k;
        buf[len] = '\0';
        if (!body && (body = strstr(buf, "\r\n\r\n")) != NULL) {
            body += 4;
            const char *cl = strcasestr(buf, "content-length:");
            want = cl ? strtol(cl + 15, NULL, 10) : -1;
        }
        if (body && want >= 0 && (long)(len - (size_t)(body - buf)) >= want)
            break;
    }
    close(fd);
    return body ? len - (size_t)(body - buf) : 0;
}

static void *poller(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop_polling, memory_order_relaxed)) {
        get("/api/systems");
        get("/api/frame");
        usleep(50000);
    }
    return NULL;
}

static void set_port(ona_runtime *rt) {
    char url[256];
    if (ona_runtime_inspect_url(rt, url, sizeof url) != 0 ||
        sscanf(url, "http://127.0.0.1:%d/", &port) != 1)
        die("inspect url", ONA_EINVAL);
}

/* --- invaders -------------------------------------------------------------------------------- */

static ona_runtime *invaders(bool inspect) {
    static const char *const roots[] = {ONA_SOURCE_DIR "/samples/invaders", NULL};
    ona_runtime_desc desc = {.threads = 2,
                             .script_roots = roots,
                             .video = ONA_VIDEO_OFFSCREEN,
                             .no_audio = true,
                             .window = {.width = 640, .height = 480},
                             .inspect = inspect ? "127.0.0.1:0" : NULL,
                             .inspect_token = TOKEN};
    ona_runtime *rt = bench_runtime(&desc, "bench_inspect");
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "autoplay", 8);
    ona_message_write_number(&w, 1);
    ona_message_write_table_end(&w);
    if (ona_message_writer_end(&w))
        die("args", ONA_EINVAL);
    ona_system main_system;
    int rc =
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "main.lua", .args = &args}, &main_system);
    if (rc)
        die("spawn invaders", rc);
    return rt;
}

/* Appends RUN frame times (us) of one run to `samples`. */
static void invaders_run(bool inspect, double *samples) {
    ona_runtime *rt = invaders(inspect);
    pthread_t t;
    if (inspect) {
        set_port(rt);
        atomic_store(&stop_polling, false);
        pthread_create(&t, NULL, poller, NULL);
    }
    for (int i = 0; i < WARMUP; i++)
        bench_step(rt, "bench_inspect");
    for (int i = 0; i < RUN; i++) {
        uint64_t t0 = bench_now_ns();
        bench_step(rt, "bench_inspect");
        samples[i] = (double)(bench_now_ns() - t0) / 1e3;
    }
    if (inspect) {
        atomic_store(&stop_polling, true);
        while (pthread_tryjoin_np(t, NULL) != 0)
            bench_step(rt, "bench_inspect"); /* its last request needs a boundary */
    }
    ona_runtime_destroy(rt);
}

/* --- 1,000 systems --------------------------------------------------------------------------- */

typedef struct lister {
    double round_trip_us[LISTS];
    size_t bytes;
    atomic_bool done;
} lister;

static void *list_many(void *arg) {
    lister *l = arg;
    for (int i = 0; i < LISTS; i++) {
        uint64_t t0 = bench_now_ns();
        l->bytes = get("/api/systems");
        l->round_trip_us[i] = (double)(bench_now_ns() - t0) / 1e3;
    }
    atomic_store_explicit(&l->done, true, memory_order_release);
    return NULL;
}

int main(void) {
    bench_report *r =
        bench_report_open("inspect", "The inspector: off, and on with a client polling",
                          "none (the runtime against itself, inspector off)");
    double off[RUNS * RUN], on[RUNS * RUN];
    for (int run = 0; run < RUNS; run++) {
        invaders_run(false, off + run * RUN);
        invaders_run(true, on + run * RUN);
    }
    bench_stats so = bench_summarise(off, RUNS * RUN), sn = bench_summarise(on, RUNS * RUN);
    bench_report_printf(r, "## invaders (autoplay, offscreen, 2 threads), %d x %d frames each\n\n",
                        RUNS, RUN);
    bench_report_printf(
        r, "| inspector | median us | mean us | stddev us |\n| --- | --- | --- | --- |\n");
    bench_report_printf(r, "| off | %.0f | %.0f | %.0f |\n", so.median, so.mean, so.stddev);
    bench_report_printf(r, "| on, polled every 50 ms | %.0f | %.0f | %.0f |\n", sn.median, sn.mean,
                        sn.stddev);
    bench_report_printf(r, "| on / off | %.3f | %.3f | |\n\n", sn.median / so.median,
                        sn.mean / so.mean);

    static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};
    ona_runtime_desc desc = {
        .threads = 2, .script_roots = roots, .inspect = "127.0.0.1:0", .inspect_token = TOKEN};
    ona_runtime *rt = bench_runtime(&desc, "bench_inspect");
    for (int i = 0; i < SYSTEMS; i++) {
        ona_system h;
        int rc = ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "empty.lua"}, &h);
        if (rc)
            die("spawn", rc);
    }
    for (int i = 0; i < 20; i++)
        bench_step(rt, "bench_inspect");
    double snap_us[LISTS], doc_us[LISTS];
    size_t doc_bytes = 0;
    for (int i = 0; i < LISTS; i++) {
        uint64_t t0 = bench_now_ns();
        ona__inspect_snap *snap = ona__inspect_snap_make(rt->inspect);
        uint64_t t1 = bench_now_ns();
        if (!snap)
            die("snapshot", ONA_ENOMEM);
        ona__inspect_snap_systems(snap, &doc_bytes);
        doc_us[i] = (double)(bench_now_ns() - t1) / 1e3;
        snap_us[i] = (double)(t1 - t0) / 1e3;
        ona__inspect_snap_free(snap);
        bench_step(rt, "bench_inspect");
    }
    set_port(rt);
    double trip_ms[2], trip_max_ms[2], frame_ms[2];
    for (int paced = 0; paced < 2; paced++) {
        lister l = {0};
        pthread_t t;
        pthread_create(&t, NULL, list_many, &l);
        uint64_t frames = 0, frame_ns = 0;
        while (!atomic_load_explicit(&l.done, memory_order_acquire)) {
            uint64_t t0 = bench_now_ns();
            bench_step(rt, "bench_inspect");
            if (paced)
                while (bench_now_ns() - t0 < 16666667)
                    usleep(500);
            frame_ns += bench_now_ns() - t0;
            frames++;
        }
        pthread_join(t, NULL);
        bench_stats st = bench_summarise(l.round_trip_us, LISTS);
        trip_ms[paced] = st.median / 1e3;
        trip_max_ms[paced] = st.max / 1e3;
        frame_ms[paced] = frames ? (double)frame_ns / (double)frames / 1e6 : 0.0;
        if (l.bytes < doc_bytes / 2)
            fprintf(stderr, "bench_inspect: the answer was cut: %zu of %zu bytes\n", l.bytes,
                    doc_bytes);
    }
    ona_runtime_destroy(rt);
    bench_stats ss = bench_summarise(snap_us, LISTS), sd = bench_summarise(doc_us, LISTS);
    bench_report_printf(r, "## 1,000 idle systems listed (GET /api/systems, %zu bytes)\n\n",
                        doc_bytes);
    bench_report_printf(r, "| what | median ms | max ms |\n| --- | --- | --- |\n");
    bench_report_printf(r, "| main: the frame's snapshot made (every frame) | %.2f | %.2f |\n",
                        ss.median / 1e3, ss.max / 1e3);
    bench_report_printf(r, "| the inspector's thread: the document written | %.2f | %.2f |\n",
                        sd.median / 1e3, sd.max / 1e3);
    for (int paced = 0; paced < 2; paced++)
        bench_report_printf(r,
                            "| a client's round trip, frames %s (%.2f ms each) | %.2f | %.2f |\n",
                            paced ? "paced at 60 Hz" : "stepped back to back", frame_ms[paced],
                            trip_ms[paced], trip_max_ms[paced]);
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    bench_report_printf(
        r,
        "\nLoad average at the end: %.2f %.2f %.2f (the machine is shared: read the medians).\n\n"
        "The server has a thread of its own (at nice 10, below the game's threads) that answers "
        "from the snapshot main publishes at the end of each frame, so a read never waits for a "
        "frame boundary. A request finds the document already written when no frame ended since "
        "the one before (each snapshot's documents are written once, whoever asks), else the "
        "thread writes it first (the second row); the round trip's max is the thread waiting for "
        "a core on a busy machine.\n",
        load[0], load[1], load[2]);
    return bench_report_close(r) == 0 ? 0 : 1;
}
