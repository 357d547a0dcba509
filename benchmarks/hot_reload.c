/*
 * hot_reload: how long a saved script takes to run, and what a reload costs the frames around
 * it, while the bunnymark runs offscreen.
 *
 * Setup: samples/bunnymark's scripts and bunny.png are copied into a temporary folder (the
 * benchmark edits the copies, never the repository) with one more system, probe.lua, whose
 * process() logs its code's VERSION constant every turn (ona.log, caught here with
 * ona_log_set_sink). The runtime is offscreen (SDL's offscreen driver on EGL, Mesa llvmpipe
 * here), 1280x720, vsync off, threads = 2, hot_reload = true; main.lua runs with mode=parallel
 * (8 movers, each moving and drawing its share) and 1000 32-pixel bunnies (frames of ~8-15 ms
 * on llvmpipe with 2 cores; `bunnies=N` changes it). Frames are stepped back to back with
 * dt = 1/60; a frame's time is the wall time of its ona_runtime_step call (boundary with any
 * reload, turns, merge, draw, swap). The renderer keeps up to three frames in flight, so the
 * first cases (the runtime as it runs) are repeated with the driver's glFinish called after
 * every step, which puts each frame's GL work inside its own time.
 *
 * Each case saves a file RELOADS times the way editors do (write a temporary file in the same
 * folder, rename it over the script), WAIT frames apart:
 *   probe, between frames: probe.lua gets the next VERSION, written between two steps;
 *   probe, mid-frame:      the same, written by another thread at a random point inside a frame
 *                          (as an editor does, whatever the game is doing);
 *   mover.lua, as shipped: a changed comment in the mover all 8 mover systems run;
 *   mover.lua, cdef guarded: the same after bunnies.lua's ffi.cdef is made idempotent in the
 *                          copy (see the report: the shipped bunnies.lua cannot be run twice in
 *                          one lua_State, so every reload of mover.lua fails);
 *   and the probe and guarded mover cases again with glFinish after every step.
 * Per save it records (a) the wall time from the moment before the write to the end of the
 * frame whose turn ran the new code (the probe's log of its new VERSION; for mover.lua, the frame
 * whose boundary logged "mover.lua: 8 reloaded": the runtime applies a reload before the frame's
 * turns, so that frame's mover turns are the first in the new code), (b) how many frames began
 * after the write up to that one (1 = the first frame after the write), (c) the time of the frame
 * that applied it and of its neighbours (the frame before it, during which or after which the
 * file was written, and the frame after it). Frames outside those windows are the baseline.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { SHIPPED = 2, NCASES = 7 }; /* the shipped mover.lua case; all cases */

enum {
    DEFAULT_BUNNIES = 1000, /* frames of ~10-20 ms on llvmpipe with 2 cores */
    DEFAULT_RELOADS = 20,
    WARMUP_FRAMES = 120,
    WAIT_FRAMES = 10,    /* frames between one reload's window and the next save */
    SETTLE_FRAMES = 2,   /* of which the first are not counted (another case ran before) */
    MAX_WAIT_NEW = 120,  /* frames to wait for new code before calling a save lost */
    MAX_RELOADS = 100,
    MAX_FRAMES = 8192,   /* per case */
};

static char dir[512];

/* --- Files ----------------------------------------------------------------------------------- */

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        return NULL;
    }
    text[n] = '\0';
    fclose(f);
    return text;
}

static bool copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    FILE *out = in ? fopen(to, "wb") : NULL;
    bool ok = in && out;
    char block[65536];
    size_t n;
    while (ok && (n = fread(block, 1, sizeof block, in)) > 0)
        ok = fwrite(block, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/* Saves like an editor: a new file in the same folder, renamed over the old one. */
static void save(const char *name, const char *text) {
    char path[600], tmp[610];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "hot_reload: cannot save %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void copy_sample(void) {
    char src[600];
    snprintf(src, sizeof src, "%s/samples/bunnymark", ONA_SOURCE_DIR);
    DIR *d = opendir(src);
    if (!d) {
        fprintf(stderr, "hot_reload: cannot open %s\n", src);
        exit(1);
    }
    struct dirent *e;
    int copied = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        bool lua = n > 4 && strcmp(e->d_name + n - 4, ".lua") == 0;
        if (!lua && strcmp(e->d_name, "bunny.png") != 0)
            continue;
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
        if (!copy_file(from, to)) {
            fprintf(stderr, "hot_reload: cannot copy %s\n", from);
            exit(1);
        }
        copied++;
    }
    closedir(d);
    if (copied < 6) {
        fprintf(stderr, "hot_reload: %s is missing files (%d copied)\n", src, copied);
        exit(1);
    }
}

static void remove_dir(void) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static const char *PROBE =
    "-- probe.lua: logs the version of its code every turn (the hot-reload benchmark's probe).\n"
    "local VERSION = %d\n"
    "return {\n"
    "  process = function(state)\n"
    "    ona.log(\"info\", \"version=\" .. VERSION)\n"
    "  end,\n"
    "}\n";

static void save_probe(int version) {
    char text[512];
    snprintf(text, sizeof text, PROBE, version);
    save("probe.lua", text);
}

/* --- The log sink: the probe's version, the reloads applied, and errors ---------------------- */

static atomic_int probe_version = -1; /* last VERSION the probe logged */

typedef struct applied {
    char name[64]; /* file name of the changed script */
    uint64_t seq;  /* reloads applied so far (main thread writes, main thread reads) */
    unsigned count;
    bool failed;
    uint64_t ns;   /* when the boundary logged it */
} applied;

static struct {
    pthread_mutex_t lock;
    applied files[8];
    int file_count;
    uint64_t errors;  /* error/warn messages other than the reload summaries */
    char first_error[1024];
    char gl[256]; /* the driver line the renderer logs at start */
} logs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool verbose_logs = true; /* before the measurement: show the driver and setup lines */

static void sink(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    uint64_t now = bench_now_ns();
    if (strcmp(where, "probe") == 0 && strncmp(message, "version=", 8) == 0) {
        /* relaxed: read by main after ona_runtime_step returned, which orders the turn's writes. */
        atomic_store_explicit(&probe_version, atoi(message + 8), memory_order_relaxed);
        return;
    }
    pthread_mutex_lock(&logs.lock);
    if (strcmp(where, "hot reload") == 0) {
        /* "<path>: <n> reloaded[, some failed (old code kept)]", logged by main at the boundary. */
        const char *colon = strstr(message, ": ");
        const char *slash = colon ? colon : message;
        while (slash > message && slash[-1] != '/')
            slash--;
        unsigned count = 0;
        if (colon && sscanf(colon + 2, "%u reloaded", &count) == 1) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(colon - slash), slash);
            applied *a = NULL;
            for (int i = 0; i < logs.file_count && !a; i++)
                if (strcmp(logs.files[i].name, name) == 0)
                    a = &logs.files[i];
            if (!a && logs.file_count < 8) {
                a = &logs.files[logs.file_count++];
                snprintf(a->name, sizeof a->name, "%s", name);
            }
            if (a) {
                a->seq++;
                a->count = count;
                a->failed = strstr(colon, "some failed") != NULL;
                a->ns = now;
            }
        }
    } else if (level >= ONA_LOG_WARN) {
        if (logs.errors++ == 0)
            snprintf(logs.first_error, sizeof logs.first_error, "%s: %s", where, message);
        if (verbose_logs)
            fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
    } else if (strcmp(where, "gfx") == 0 && strncmp(message, "OpenGL", 6) == 0) {
        snprintf(logs.gl, sizeof logs.gl, "%s", message);
        if (verbose_logs)
            fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
    } else if (verbose_logs) {
        fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
    }
    pthread_mutex_unlock(&logs.lock);
}

static applied applied_get(const char *name) {
    applied a = {0};
    pthread_mutex_lock(&logs.lock);
    for (int i = 0; i < logs.file_count; i++)
        if (strcmp(logs.files[i].name, name) == 0)
            a = logs.files[i];
    pthread_mutex_unlock(&logs.lock);
    return a;
}

static uint64_t errors_get(void) {
    pthread_mutex_lock(&logs.lock);
    uint64_t n = logs.errors;
    pthread_mutex_unlock(&logs.lock);
    return n;
}

/* --- Frames ---------------------------------------------------------------------------------- */

static ona_runtime *rt;

typedef struct frame {
    uint64_t start, end;
    uint64_t turn_ns; /* every system's turn time in the frame, added up */
    bool in_window; /* a reload's frame or neighbour */
    bool settling;  /* first frames after another case ran: not counted */
} frame;

typedef enum mode { BETWEEN_FRAMES, MID_FRAME } mode;

typedef struct reload {
    bool seen;          /* new code ran (or, for a failing save, the reload was attempted) */
    bool ok;            /* the reload succeeded */
    double latency_ms;  /* write -> end of the frame that ran the new code */
    double detect_ms;   /* write -> the boundary's "reloaded" log */
    double boundary_ms; /* start of that frame's step -> the boundary's log (the reload's cost) */
    int frames;         /* frames begun after the write, up to the one running the new code */
    double window_ms[3]; /* the frame before, the applying frame, the frame after */
    double turns_ms;     /* the applying frame's turn time, all systems added up */
    int errors;          /* error messages logged during this save */
} reload;

typedef struct bench_case {
    const char *label;
    const char *tag;  /* short label for the per-save table */
    const char *file; /* file saved */
    mode how;
    bool sync;        /* glFinish after every step: one frame in flight */
    int reloads;
    reload r[MAX_RELOADS];
    frame frames[MAX_FRAMES];
    int frame_count;
} bench_case;

/* glFinish from the driver the runtime loaded (the benchmark links no GL of its own): a frame
 * whose GL work is done when its step returns. NULL where it cannot be found. */
static void (*gl_finish)(void);

static int step(bench_case *c) {
    if (c->frame_count >= MAX_FRAMES) {
        fprintf(stderr, "hot_reload: too many frames in case '%s'\n", c->label);
        exit(1);
    }
    frame *f = &c->frames[c->frame_count];
    f->start = bench_now_ns();
    int rc = ona_runtime_step(rt, 1.0 / 60);
    if (c->sync && gl_finish)
        gl_finish(); /* the runtime's context is current on this (its main) thread */
    f->end = bench_now_ns();
    f->in_window = false;
    f->settling = false;
    if (rc) {
        fprintf(stderr, "hot_reload: ona_runtime_step: %s\n", ona_strerror(rc));
        exit(1);
    }
    ona_system systems[64];
    uint32_t n = ona_runtime_systems(rt, systems, 64);
    f->turn_ns = 0;
    for (uint32_t i = 0; i < n && i < 64; i++) {
        ona_system_stats st;
        if (ona_runtime_system_stats(rt, systems[i], &st) == 0 && st.status == ONA_SYSTEM_RUNNING)
            f->turn_ns += st.last_turn_ns;
    }
    return c->frame_count++;
}

/* Saves from another thread at an absolute time. */
typedef struct timed_save {
    uint64_t at;
    int version;
    _Atomic uint64_t written; /* when the write began; 0 until it is done */
} timed_save;

static void *timed_save_thread(void *arg) {
    timed_save *t = arg;
    struct timespec ts = {(time_t)(t->at / 1000000000ull), (long)(t->at % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    uint64_t began = bench_now_ns();
    save_probe(t->version);
    /* release: main reads the time after the file is in place. */
    atomic_store_explicit(&t->written, began, memory_order_release);
    return NULL;
}

static char *mover_text;   /* the shipped mover.lua */
static int next_version = 1; /* the probe's VERSION */
static int mover_edits = 0;

/* Save number `k` of case `c`: WAIT_FRAMES frames (the first SETTLE_FRAMES not counted, since
 * the cases take turns), the save, frames until the new code runs, and one frame more. */
static void run_save(bench_case *c, int k) {
    bool probe = strcmp(c->file, "probe.lua") == 0;
    reload *r = &c->r[k];
    int last = 0;
    for (int w = 0; w < WAIT_FRAMES; w++) {
        last = step(c);
        c->frames[last].settling = w < SETTLE_FRAMES;
    }
    uint64_t before_errors = errors_get();
    uint64_t seq = applied_get(c->file).seq;
    int version = next_version++;
    uint64_t written = 0;
    pthread_t thread;
    timed_save ts = {0};
    if (c->how == MID_FRAME) {
        /* A random point inside the next frame (the last frame's length as the estimate). */
        double len = (double)(c->frames[last].end - c->frames[last].start);
        ts.at = bench_now_ns() + (uint64_t)(len * (0.05 + 0.9 * (rand() / (double)RAND_MAX)));
        ts.version = version;
        if (pthread_create(&thread, NULL, timed_save_thread, &ts) != 0) {
            fprintf(stderr, "hot_reload: cannot start the saving thread\n");
            exit(1);
        }
    } else if (probe) {
        written = bench_now_ns();
        save_probe(version);
    } else {
        char *text = malloc(strlen(mover_text) + 64);
        sprintf(text, "%s-- edited by the hot-reload benchmark: %d\n", mover_text, ++mover_edits);
        written = bench_now_ns();
        save("mover.lua", text);
        free(text);
    }
    int before = last; /* the frame during or after which the file was written */
    int found = -1;
    for (int n = 0; n < MAX_WAIT_NEW && found < 0; n++) {
        int i = step(c);
        if (probe) {
            if (atomic_load_explicit(&probe_version, memory_order_relaxed) == version)
                found = i;
        } else if (applied_get(c->file).seq > seq) {
            found = i;
        }
    }
    if (c->how == MID_FRAME) {
        pthread_join(thread, NULL);
        written = atomic_load_explicit(&ts.written, memory_order_acquire);
        /* The frame the write happened in (or the last one that began before it). */
        before = found >= 0 ? found : c->frame_count - 1;
        while (before > 0 && c->frames[before].start > written)
            before--;
    }
    if (found < 0) {
        fprintf(stderr, "hot_reload: %s: save %d never ran (waited %d frames)\n", c->label,
                k + 1, MAX_WAIT_NEW);
        r->seen = false;
        return;
    }
    int after = step(c);
    applied a = applied_get(c->file);
    r->seen = true;
    r->ok = a.seq > seq && !a.failed && a.count > 0;
    r->latency_ms = (double)(c->frames[found].end - written) / 1e6;
    r->detect_ms = a.seq > seq ? (double)(a.ns - written) / 1e6 : NAN;
    r->frames = 0;
    for (int i = before; i <= found; i++)
        if (c->frames[i].start >= written)
            r->frames++;
    /* The boundary that applied it: the step during which the log was written. */
    r->boundary_ms = NAN;
    for (int i = before; i <= found && a.seq > seq; i++)
        if (c->frames[i].start <= a.ns && a.ns <= c->frames[i].end)
            r->boundary_ms = (double)(a.ns - c->frames[i].start) / 1e6;
    int window[3] = {found - 1, found, after};
    for (int j = 0; j < 3; j++) {
        c->frames[window[j]].in_window = true;
        r->window_ms[j] =
            (double)(c->frames[window[j]].end - c->frames[window[j]].start) / 1e6;
    }
    r->turns_ms = (double)c->frames[found].turn_ns / 1e6;
    r->errors = (int)(errors_get() - before_errors);
}

/* --- Statistics ------------------------------------------------------------------------------ */

/* Nearest-rank percentile of sorted samples. */
static double pct(const double *sorted, int n, double p) {
    if (n <= 0)
        return NAN;
    int rank = (int)ceil(p / 100.0 * n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

static int sort_doubles(double *v, int n) {
    if (n > 0)
        bench_summarise(v, (size_t)n);
    return n;
}

typedef struct summary {
    int attempted, seen, ok, errors;
    double lat[MAX_RELOADS];
    int nlat;
    double det[MAX_RELOADS];
    int ndet;
    double bnd[MAX_RELOADS];
    int nbnd;
    int frames_hist[4]; /* 1, 2, 3, more */
    double outside[MAX_FRAMES];
    int nout;
    double win[3 * MAX_RELOADS];
    int nwin;
    double applying[MAX_RELOADS];
    int napp;
    double turns_out[MAX_FRAMES];
    double turns_app[MAX_RELOADS];
    double sum3_win[MAX_RELOADS]; /* the three reload frames added up */
    double sum3_out[MAX_FRAMES];  /* every run of three consecutive frames outside reloads */
    int nsum3_out;
} summary;

static void summarise(const bench_case *c, summary *s) {
    memset(s, 0, sizeof *s);
    s->attempted = c->reloads;
    for (int k = 0; k < c->reloads; k++) {
        const reload *r = &c->r[k];
        s->errors += r->errors;
        if (!r->seen)
            continue;
        s->seen++;
        s->ok += r->ok;
        s->lat[s->nlat++] = r->latency_ms;
        if (!isnan(r->detect_ms))
            s->det[s->ndet++] = r->detect_ms;
        if (!isnan(r->boundary_ms))
            s->bnd[s->nbnd++] = r->boundary_ms;
        s->frames_hist[r->frames >= 4 ? 3 : (r->frames < 1 ? 0 : r->frames - 1)]++;
        for (int j = 0; j < 3; j++)
            s->win[s->nwin++] = r->window_ms[j];
        s->turns_app[s->napp] = r->turns_ms;
        s->sum3_win[s->napp] = r->window_ms[0] + r->window_ms[1] + r->window_ms[2];
        s->applying[s->napp++] = r->window_ms[1];
    }
    for (int i = 0; i < c->frame_count; i++)
        if (!c->frames[i].in_window && !c->frames[i].settling) {
            s->turns_out[s->nout] = (double)c->frames[i].turn_ns / 1e6;
            s->outside[s->nout++] = (double)(c->frames[i].end - c->frames[i].start) / 1e6;
        }
    for (int i = 0; i + 2 < c->frame_count; i++) {
        const frame *f = &c->frames[i];
        if (!f[0].in_window && !f[1].in_window && !f[2].in_window && !f[0].settling &&
            !f[1].settling && !f[2].settling)
            s->sum3_out[s->nsum3_out++] =
                (double)(f[0].end - f[0].start + f[1].end - f[1].start + f[2].end - f[2].start) /
                1e6;
    }
    sort_doubles(s->sum3_win, s->napp);
    sort_doubles(s->sum3_out, s->nsum3_out);
    sort_doubles(s->lat, s->nlat);
    sort_doubles(s->det, s->ndet);
    sort_doubles(s->bnd, s->nbnd);
    sort_doubles(s->outside, s->nout);
    sort_doubles(s->win, s->nwin);
    sort_doubles(s->applying, s->napp);
    sort_doubles(s->turns_out, s->nout);
    sort_doubles(s->turns_app, s->napp);
}

static double mean_of(const double *v, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    return n ? sum / n : NAN;
}

/* --- main ------------------------------------------------------------------------------------ */

static void spawn_bunnymark(int bunnies) {
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "mode", 4);
    ona_message_write_string(&w, "parallel", 8);
    ona_message_write_string(&w, "bunnies", 7);
    ona_message_write_number(&w, bunnies);
    ona_message_write_table_end(&w);
    if (ona_message_writer_end(&w) != 0)
        abort();
    ona_spawn_desc main_desc = {.script = "main.lua", .name = "main", .args = &args};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &main_desc, &h);
    ona_spawn_desc probe_desc = {.script = "probe.lua", .name = "probe"};
    if (rc == 0)
        rc = ona_runtime_spawn(rt, &probe_desc, &h);
    if (rc) {
        fprintf(stderr, "hot_reload: cannot spawn the bunnymark: %s\n", ona_strerror(rc));
        exit(1);
    }
}

/* bunnies.lua with its top-level ffi.cdef run only when the type is not defined yet. */
static bool guard_bunnies_cdef(void) {
    char path[600];
    snprintf(path, sizeof path, "%s/bunnies.lua", dir);
    char *text = read_text(path);
    if (!text)
        return false;
    char *line = strstr(text, "\nffi.cdef(");
    if (!line) {
        free(text);
        return false;
    }
    line++;
    char *eol = strchr(line, '\n');
    size_t size = strlen(text) + 128;
    char *out = malloc(size);
    snprintf(out, size, "%.*sif not pcall(ffi.typeof, \"bunny\") then %.*s end%s",
             (int)(line - text), text, (int)(eol - line), line, eol);
    save("bunnies.lua", out);
    free(out);
    free(text);
    return true;
}

static const char *yes_no(bool met) {
    return met ? "**met**" : "**not met**";
}

int main(int argc, char **argv) {
    int bunnies = DEFAULT_BUNNIES, reloads = DEFAULT_RELOADS;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "bunnies=", 8) == 0)
            bunnies = atoi(argv[i] + 8);
        else if (strncmp(argv[i], "reloads=", 8) == 0)
            reloads = atoi(argv[i] + 8);
        else {
            fprintf(stderr, "usage: hot_reload [bunnies=N] [reloads=N]\n");
            return 2;
        }
    }
    if (bunnies < 1 || reloads < 1 || reloads > MAX_RELOADS) {
        fprintf(stderr, "hot_reload: bunnies >= 1, 1 <= reloads <= %d\n", MAX_RELOADS);
        return 2;
    }
    srand(7);
    double load_start[1] = {NAN}, load_end[1] = {NAN};
    getloadavg(load_start, 1);

    snprintf(dir, sizeof dir, "/tmp/ona-hotbench-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char real[PATH_MAX];
    if (realpath(dir, real) && strlen(real) < sizeof dir)
        memcpy(dir, real, strlen(real) + 1);
    copy_sample();
    save_probe(0);
    char mover_path[PATH_MAX];
    int len = snprintf(mover_path, sizeof mover_path, "%s/mover.lua", dir);
    if (len < 0 || (size_t)len >= sizeof mover_path) {
        fprintf(stderr, "hot_reload: %s: path too long\n", dir);
        return 1;
    }
    mover_text = read_text(mover_path);
    if (!mover_text)
        return 1;

    ona_log_set_sink(sink, NULL, ONA_LOG_INFO);
    const char *roots[] = {dir, NULL};
    ona_runtime_desc desc = {
        .threads = 2,
        .script_roots = roots,
        .hot_reload = true,
        .video = ONA_VIDEO_OFFSCREEN,
        .window = {.title = "hot_reload", .width = 1280, .height = 720, .vsync = ONA_VSYNC_OFF},
    };
    int rc = ona_runtime_create(&desc, &rt);
    if (rc) {
        fprintf(stderr, "hot_reload: cannot create an offscreen runtime: %s\n", ona_strerror(rc));
        remove_dir();
        return 1;
    }
    if (ona_runtime_video_mode(rt) != ONA_VIDEO_OFFSCREEN) {
        fprintf(stderr, "hot_reload: no offscreen video\n");
        return 1;
    }
    spawn_bunnymark(bunnies);

    static bench_case warm, settle, cases[NCASES];
    const struct {
        const char *label, *tag, *file;
        mode how;
        bool sync;
    } plan[NCASES] = {
        {"probe.lua, saved between frames", "probe, between", "probe.lua", BETWEEN_FRAMES, false},
        {"probe.lua, saved mid-frame by another thread", "probe, mid-frame", "probe.lua",
         MID_FRAME, false},
        {"mover.lua (8 systems), as shipped", "mover, shipped", "mover.lua", BETWEEN_FRAMES,
         false},
        {"mover.lua (8 systems), bunnies.lua cdef guarded", "mover, guarded", "mover.lua",
         BETWEEN_FRAMES, false},
        {"probe.lua, saved between frames, glFinish each frame", "probe, between, sync",
         "probe.lua", BETWEEN_FRAMES, true},
        {"probe.lua, saved mid-frame, glFinish each frame", "probe, mid-frame, sync",
         "probe.lua", MID_FRAME, true},
        {"mover.lua (8 systems), cdef guarded, glFinish each frame", "mover, guarded, sync",
         "mover.lua", BETWEEN_FRAMES, true},
    };
    for (int i = 0; i < NCASES; i++)
        cases[i] = (bench_case){.label = plan[i].label, .tag = plan[i].tag, .file = plan[i].file,
                                .how = plan[i].how, .sync = plan[i].sync, .reloads = reloads};
    gl_finish = (void (*)(void))dlsym(RTLD_DEFAULT, "glFinish");

    warm.label = "warm-up";
    for (int i = 0; i < WARMUP_FRAMES; i++)
        step(&warm);
    verbose_logs = false;
    /* The shipped mover.lua first (its saves all fail), then the guard, then the other cases
     * take turns save by save, so that a slow patch of the machine hits them alike. */
    for (int k = 0; k < reloads; k++)
        run_save(&cases[SHIPPED], k);
    char shipped_error[1024];
    pthread_mutex_lock(&logs.lock);
    snprintf(shipped_error, sizeof shipped_error, "%s", logs.first_error);
    pthread_mutex_unlock(&logs.lock);
    bool guarded = guard_bunnies_cdef(); /* itself a reload of bunnies.lua */
    settle.label = "settle";
    for (int k = 0; k < 60; k++)
        step(&settle);
    applied guard_applied = applied_get("bunnies.lua");
    for (int i = 0; i < NCASES; i++)
        if ((cases[i].sync && !gl_finish) ||
            (strcmp(cases[i].file, "mover.lua") == 0 && i != SHIPPED && !guarded))
            cases[i].reloads = 0;
    for (int k = 0; k < reloads; k++)
        for (int i = 0; i < NCASES; i++)
            if (i != SHIPPED && k < cases[i].reloads)
                run_save(&cases[i], k);

    ona_runtime_stats st;
    ona_runtime_stats_get(rt, &st);
    getloadavg(load_end, 1);
    ona_runtime_destroy(rt);
    ona_log_set_sink(NULL, NULL, ONA_LOG_INFO);
    remove_dir();

    /* --- Report ------------------------------------------------------------------------------ */
    static summary sums[NCASES];
    for (int i = 0; i < NCASES; i++)
        summarise(&cases[i], &sums[i]);
    bench_report *rep = bench_report_open(
        "hot_reload", "Hot reload while the bunnymark runs",
        "none: absolute figures against the issue's targets (new code in the first frame after "
        "the file event; no frame during a reload over 2x the median frame)");
    bench_report_printf(
        rep,
        "Workload: samples/bunnymark copied to a temporary folder, `mode=parallel bunnies=%d` "
        "(8 mover systems, 32-px bunnies; a median frame of %.1f ms here) plus `probe.lua` (logs its "
        "`VERSION` every turn; the log sink catches it); offscreen runtime (SDL offscreen + EGL, "
        "Mesa llvmpipe), 1280x720, vsync off, threads = 2, hot_reload = true; frames stepped "
        "back to back (dt = 1/60), %d warm-up frames first. Each case saves its file %d times, "
        "%d frames apart, as editors do (write `<file>.tmp`, rename it over the file). The "
        "shipped mover.lua runs first; then the other cases take turns save by save (so a slow "
        "patch of the machine hits them alike), and the first %d frames after a change of case "
        "are not counted.\n\n",
        bunnies, pct(sums[0].outside, sums[0].nout, 50), WARMUP_FRAMES, reloads, WAIT_FRAMES,
        SETTLE_FRAMES);
    bench_report_printf(rep, "Driver: %s. Load average (1 min) at start / end: %.2f / %.2f "
                             "(2 cores; other processes share them).\n\n",
                        logs.gl[0] ? logs.gl : "(not logged)", load_start[0], load_end[0]);
    bench_report_printf(
        rep,
        "- **latency**: from just before the write to the end of the frame whose turn first ran "
        "the new code (the probe logged its new VERSION; for mover.lua, the frame whose boundary "
        "logged `mover.lua: 8 reloaded`: a reload is applied before that frame's turns).\n"
        "- **write -> applied**: to the boundary's `reloaded` log line; **reload cost**: from "
        "the start of that frame's `ona_runtime_step` to that line (the boundary, almost all of "
        "it the reload: every Lua system is asked, the ones using the file re-run it).\n"
        "- **frames**: frames begun after the write, up to the one running the new code "
        "(1 = the first frame after the file event).\n"
        "- **reload frames**: the frame that applied the save and its two neighbours (the frame "
        "before, in or after which the file was written, and the frame after); the median frame "
        "is over every other frame of the case. Frame time = wall time of `ona_runtime_step` "
        "(boundary, turns, merge, draw, swap); turns per frame = every system's "
        "`last_turn_ns` added up.\n"
        "- **frames in flight** (the first four cases) is the runtime as it runs: each frame "
        "waits only for the fence of the frame three back, so llvmpipe's work for one frame "
        "can land in the wait of a later one, and single frame times swing with or without a "
        "reload (see the outside p90 / max). **glFinish each frame** (the last three): the "
        "benchmark calls the driver's glFinish after each step, so a frame's time holds its own "
        "GL work and single frames are steady: the case the 2x target can be judged on.\n\n");

    bench_report_printf(rep, "### Reload latency (ms)\n\n");
    bench_report_printf(rep, "| save | reloaded | median | mean | p90 | max | write -> applied "
                             "(median) | reload cost (median / max) | frames: 1 / 2 / 3 / more |\n");
    bench_report_printf(rep, "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    bench_report_chart(rep, "Hot reload: from the save to the new code running (lower is better)",
                       "ms", false, 2, (const char *const[]){"median", "p90"});
    for (int i = 0; i < NCASES; i++) {
        bench_case *c = &cases[i];
        summary *s = &sums[i];
        if (c->reloads)
            bench_report_chart_row(rep, c->label,
                                   (double[]){pct(s->lat, s->nlat, 50), pct(s->lat, s->nlat, 90)});
        if (c->reloads == 0) {
            bench_report_printf(rep, "| %s | not run | | | | | | | |\n", c->label);
            continue;
        }
        bench_report_printf(rep, "| %s | %d/%d%s | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f / "
                                 "%.3f | %d / %d / %d / %d |\n",
                            c->label, s->ok, s->attempted,
                            s->ok < s->seen ? " (failed: old code kept)" : "",
                            pct(s->lat, s->nlat, 50), mean_of(s->lat, s->nlat),
                            pct(s->lat, s->nlat, 90), pct(s->lat, s->nlat, 100),
                            pct(s->det, s->ndet, 50), pct(s->bnd, s->nbnd, 50),
                            pct(s->bnd, s->nbnd, 100), s->frames_hist[0], s->frames_hist[1],
                            s->frames_hist[2], s->frames_hist[3]);
    }

    bench_report_printf(rep, "\n### Frame times (ms)\n\n");
    bench_report_printf(rep, "| save | median frame outside reloads (frames) | outside p90 / max "
                             "| reload frames p50 | p90 | max | applying frame median / max | "
                             "worst reload frame / median frame | turns per frame: outside / "
                             "applying (median) |\n");
    bench_report_printf(rep, "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NCASES; i++) {
        summary *s = &sums[i];
        if (cases[i].reloads == 0 || s->nout == 0 || s->nwin == 0)
            continue;
        double median = pct(s->outside, s->nout, 50);
        bench_report_printf(rep, "| %s | %.2f (%d) | %.2f / %.2f | %.2f | %.2f | %.2f | %.2f / "
                                 "%.2f | %.2fx | %.2f / %.2f |\n",
                            cases[i].label, median, s->nout, pct(s->outside, s->nout, 90),
                            pct(s->outside, s->nout, 100), pct(s->win, s->nwin, 50),
                            pct(s->win, s->nwin, 90), pct(s->win, s->nwin, 100),
                            pct(s->applying, s->napp, 50), pct(s->applying, s->napp, 100),
                            pct(s->win, s->nwin, 100) / median, pct(s->turns_out, s->nout, 50),
                            pct(s->turns_app, s->napp, 50));
    }

    bench_report_printf(rep, "\nThree consecutive frames added up, which evens out the frames-in-"
                             "flight swings (the reload's own cost is the difference):\n\n");
    bench_report_printf(rep, "| save | 3 reload frames, sum: median / max | any 3 frames outside "
                             "reloads, sum: median / p90 / max | difference of the medians |\n");
    bench_report_printf(rep, "|---|---:|---:|---:|\n");
    for (int i = 0; i < NCASES; i++) {
        summary *s = &sums[i];
        if (cases[i].reloads == 0 || s->napp == 0 || s->nsum3_out == 0)
            continue;
        bench_report_printf(rep, "| %s | %.2f / %.2f | %.2f / %.2f / %.2f | %+.2f |\n",
                            cases[i].label, pct(s->sum3_win, s->napp, 50),
                            pct(s->sum3_win, s->napp, 100), pct(s->sum3_out, s->nsum3_out, 50),
                            pct(s->sum3_out, s->nsum3_out, 90), pct(s->sum3_out, s->nsum3_out, 100),
                            pct(s->sum3_win, s->napp, 50) - pct(s->sum3_out, s->nsum3_out, 50));
    }

    bench_report_printf(rep, "\n### Targets (issue)\n\n");
    bench_report_printf(rep, "| save | new code in the first frame after the file event | "
                             "reload frames over 2x the median frame | outside reloads, frames "
                             "over 2x the median |\n");
    bench_report_printf(rep, "|---|---|---|---|\n");
    /* [0]: frames in flight, [1]: glFinish each frame; only cases whose reloads succeeded. */
    bool first_met[2] = {true, true}, ratio_met[2] = {true, true}, judged[2] = {false, false};
    for (int i = 0; i < NCASES; i++) {
        summary *s = &sums[i];
        if (cases[i].reloads == 0 || s->nout == 0 || s->nwin == 0)
            continue;
        double median = pct(s->outside, s->nout, 50);
        int over = 0, over_out = 0;
        for (int k = 0; k < s->nwin; k++)
            over += s->win[k] > 2 * median;
        for (int k = 0; k < s->nout; k++)
            over_out += s->outside[k] > 2 * median;
        bool first = s->frames_hist[0] == s->seen && s->seen == s->attempted;
        bool counted = s->ok > 0; /* a case whose reloads all failed runs no new code */
        int m = cases[i].sync;
        if (counted) {
            judged[m] = true;
            first_met[m] = first_met[m] && first;
            ratio_met[m] = ratio_met[m] && over == 0;
        }
        bench_report_printf(rep, "| %s | %s | %d of %d (%s) | %d of %d (%.1f%%) |\n",
                            cases[i].label,
                            !counted ? "no new code (reload failed)"
                                     : (first ? "met" : "not met"),
                            over, s->nwin, over == 0 ? "met" : "not met", over_out, s->nout,
                            100.0 * over_out / s->nout);
    }
    const char *mode_name[2] = {"frames in flight (as the runtime runs)", "glFinish each frame"};
    for (int m = 0; m < 2; m++) {
        if (!judged[m])
            continue;
        bench_report_printf(rep, "\n- %s: new code runs in the first frame after the file "
                                 "event: %s; no frame during a reload over 2x the median frame: "
                                 "%s.",
                            mode_name[m], yes_no(first_met[m]), yes_no(ratio_met[m]));
    }
    bench_report_printf(rep, "\n\nJudged on the cases whose reloads succeeded. The last column "
                             "is the same 2x test on the frames outside reloads: how often the "
                             "machine makes a slow frame without any reload.\n");

    if (cases[SHIPPED].reloads > 0 && sums[SHIPPED].ok < sums[SHIPPED].attempted) {
        bench_report_printf(
            rep,
            "\n### mover.lua as shipped does not reload\n\n"
            "%d of %d saves of the shipped mover.lua failed in all 8 movers (%d error lines); the "
            "old code kept running. First error:\n\n    %s\n\n"
            "The prelude's reload forgets every project module the system required and runs the "
            "script again, so `require(\"bunnies\")` runs bunnies.lua a second time in the same "
            "lua_State, and its top-level `ffi.cdef` of `struct bunny` raises `attempt to "
            "redefine` (LuaJIT's cdef is not idempotent). Any script requiring a module that "
            "declares FFI types at load fails to reload the same way. The guarded cases change "
            "the copy's cdef to `if not pcall(ffi.typeof, \"bunny\") then ffi.cdef(...) end` "
            "(saving that fix reloaded bunnies.lua in %u systems%s) and time the same mover "
            "saves.\n",
            sums[SHIPPED].attempted - sums[SHIPPED].ok, sums[SHIPPED].attempted,
            sums[SHIPPED].errors, shipped_error, guard_applied.count,
            guard_applied.failed ? ", some failed" : "");
    }

    bench_report_printf(rep, "\n### Every save\n\n");
    bench_report_printf(rep, "Latency, write -> applied and reload cost in ms, frames to new "
                             "code, and the times (ms) of the frame before, the applying frame "
                             "and the frame after.\n\n");
    bench_report_printf(rep, "| save | # | ok | latency | write -> applied | reload cost | "
                             "frames | before | applying | after |\n");
    bench_report_printf(rep, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < NCASES; i++) {
        bench_case *c = &cases[i];
        for (int k = 0; k < c->reloads; k++) {
            reload *r = &c->r[k];
            if (!r->seen) {
                bench_report_printf(rep, "| %s | %d | lost | | | | | | | |\n", c->tag, k + 1);
                continue;
            }
            bench_report_printf(rep, "| %s | %d | %s | %.2f | %.2f | %.3f | %d | %.2f | %.2f | "
                                     "%.2f |\n",
                                c->tag, k + 1, r->ok ? "yes" : "no", r->latency_ms, r->detect_ms,
                                r->boundary_ms, r->frames, r->window_ms[0], r->window_ms[1],
                                r->window_ms[2]);
        }
    }
    bench_report_printf(rep, "\nRuntime: %llu frames in all, %u threads; errors logged outside "
                             "the shipped-mover case: %llu.\n",
                        (unsigned long long)st.frames, st.threads,
                        (unsigned long long)(errors_get() - (uint64_t)sums[SHIPPED].errors));
    free(mover_text);
    return bench_report_close(rep) == 0 ? 0 : 1;
}
