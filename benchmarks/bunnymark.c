/*
 * bunnymark: the seed thesis' stress test. Textured bunnies bounce in a 1280x720 window (SDL's
 * offscreen driver, EGL, vsync off), every bunny gets a new position every frame, and we find
 * how many bunnies a configuration can move and draw while holding 60, 45 and 30 FPS.
 *
 * Configurations (samples/bunnymark, run in this process through the public API):
 *   sequential  threads=1: one system moves and draws every bunny;
 *   unbatched   threads=2: a mover sends each bunny's position to a drawer as its own message;
 *   batched     threads=2: the mover sends all positions in one moved ona.buffer a frame;
 *   parallel    threads=2: 8 movers each move and draw their share.
 * References, same machine, same window size, same texture (samples/bunnymark/bunny.png):
 *   bare C      the GL module (runtime/gfx_gl.h) driven directly: a plain C loop moves the
 *               bunnies (the same physics), writes the instances into the mapped ring, one
 *               instanced draw, swap. Nothing else: the renderer's fill limit on this machine;
 *   LÖVE 11.4   benchmarks/peers/love (the same physics on LuaJIT, one SpriteBatch), run as a
 *               child process with SDL_VIDEODRIVER=offscreen; skipped when `love` is not on PATH.
 *
 * One run: create a runtime (or the bare-C window and context), spawn main.lua with the args
 * table, step WARMUP frames, glFinish, then time FRAMES frames of ona_runtime_step (turns, merge,
 * upload, draw and swap; wall clock, CLOCK_MONOTONIC), glFinish, stop the clock; FPS = FRAMES /
 * seconds. The glFinish on both sides makes the window hold exactly FRAMES frames of GPU
 * (llvmpipe) work. LÖVE times its own window with love.timer (steady state: a frame queued at
 * the start cancels the one queued at the end). A point is the median of 3 runs.
 *
 * Search, per configuration: double the count from START until the median FPS falls below 30
 * (halve first if START is already below 60), then for each threshold narrow the bracket
 * (largest passing count below the smallest failing one) by interpolating in frame time between
 * its ends, falling back to a geometric midpoint, until the failing end is within 2% of the
 * passing one. Every point measured serves all three thresholds.
 *
 * Second table: 2x2 sprites at a fixed count (fill rate negligible). CPU time per sprite per
 * frame: CLOCK_PROCESS_CPUTIME_ID over the timed window for in-process runs (all threads:
 * workers, main and llvmpipe's rasteriser threads), and for LÖVE the difference of
 * getrusage(RUSAGE_CHILDREN) between runs of WARMUP+FRAMES and WARMUP+0 frames, which cancels
 * LÖVE's start-up; medians of 3. Wall ms per frame beside it.
 *
 * Third table (the targets): sequential, batched and parallel side by side with bare C
 * at 2,500, 3,500 and 5,000 32x32 bunnies: 5 rounds of (bare C run, configuration run), the
 * ratio of their FPS per round (median and range), and each side's main-thread CPU per frame.
 *
 *   bunnymark [--frames F] [--warmup W] [--small N] [--small-frames F] [--only NAME]
 *             [--no-wait] [--one N SIZE [--no-gl]]
 *
 * --only runs one configuration and writes no results file; with --one N SIZE, a single run of
 * N bunnies of SIZE pixels (--no-gl: without GL), for profiling.
 */
#include "bench_support.h"
#include "gfx_gl.h"
#include "ona/ona.h"

#include <GL/glew.h>
#include <SDL.h>
#include <stb_image.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
    WIDTH = 1280,
    HEIGHT = 720,
    RUNS = 3,           /* runs per point (median) */
    START = 500,        /* first count of the 32x32 search */
    MAX_COUNT = 1 << 20,
    MAX_POINTS = 64,    /* per configuration */
    MAX_REFINE = 4,     /* probes per threshold after the bracket is found */
    SMALL_COUNT = 50000,
    MOVERS = 8,
};

static uint32_t warmup_frames = 10;
static uint32_t timed_frames = 60;
static uint32_t small_frames = 30; /* timed frames of the 2x2 table's runs */
/* Runs without GL: the runtime with ONA_VIDEO_NONE (systems draw into their render queues, main
 * merges them, nothing is drawn), bare C writing its instances into plain memory. */
static bool no_gl;
static const double thresholds[3] = {60, 45, 30};

typedef enum config {
    SEQUENTIAL,
    UNBATCHED,
    BATCHED,
    PARALLEL,
    SHAPES,  /* parallel, with bunnies drawn as rects and circles */
    TILEMAP, /* parallel, over a large scrolling tile map */
    BARE_C,
    LOVE,
    CONFIG_COUNT
} config;

static const char *const config_names[CONFIG_COUNT] = {
    "sequential", "unbatched", "batched", "parallel", "shapes", "tilemap", "bare C", "LÖVE 11.4"};
static const char *const config_modes[CONFIG_COUNT] = {
    "sequential", "unbatched", "batched", "parallel", "shapes", "tilemap", "bare", "love"};
static const char *const config_threads[CONFIG_COUNT] = {
    "1", "2", "2", "2", "2", "2", "1 (+llvmpipe)", "1 (+llvmpipe)"};

typedef struct run_result {
    bool ok;
    double fps;
    double wall_s;          /* the timed window */
    double cpu_s;           /* process CPU in the timed window (LÖVE: whole child, see love_run) */
    double main_cpu_s;      /* in-process runs: the main (GL-calling) thread's CPU in the window */
    double cpu_in_script_s; /* LÖVE only: its own CLOCK_PROCESS_CPUTIME_ID over the window */
    double update_cpu_s;    /* LÖVE only: its main thread's CPU in love.update (no GL) */
} run_result;

typedef struct point {
    uint32_t n;
    double fps, wall_ms, cpu_s;
} point;

static char gl_renderer[256] = "unknown";
static char gl_version[256] = "unknown";
static char love_renderer[256] = "";
static char love_path[1024] = "";

/* --- Clocks and the machine's other load -------------------------------------------------- */

static double cpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The calling thread's CPU: on 2 cores every ms main spends is a ms llvmpipe's rasteriser
 * threads do not get, so this is the runtime's fixed cost per frame beside bare C's. */
static double thread_cpu_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void) {
    return (double)bench_now_ns() * 1e-9;
}

/* CPU seconds all processes spent busy (and stolen), from /proc/stat. */
static void machine_busy(double *busy_s, double *steal_s) {
    *busy_s = *steal_s = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    unsigned long long v[8] = {0};
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) == 8) {
        double hz = (double)sysconf(_SC_CLK_TCK);
        *busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / hz;
        *steal_s = (double)v[7] / hz;
    }
    fclose(f);
}

/* This process's CPU, its waited-for children's included. */
static double own_cpu_s(void) {
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                    kids.ru_stime.tv_sec) +
           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                    kids.ru_stime.tv_usec) *
               1e-6;
}

/* What the rest of the machine did while a section ran: other processes' busy CPU as a share of
 * one core, and steal. */
typedef struct load_meter {
    double wall, busy, steal, own;
} load_meter;

static load_meter load_begin(void) {
    load_meter m;
    m.wall = now_s();
    machine_busy(&m.busy, &m.steal);
    m.own = own_cpu_s();
    return m;
}

static void load_end(const load_meter *m, double *other_core_share, double *steal_share) {
    double busy, steal;
    machine_busy(&busy, &steal);
    double wall = now_s() - m->wall;
    double own = own_cpu_s() - m->own;
    double other = busy - m->busy - own;
    *other_core_share = wall > 0 && other > 0 ? other / wall : 0;
    *steal_share = wall > 0 ? (steal - m->steal) / wall : 0;
}

/* Waits (up to `max_s`) for a second in which the machine is at least 90% idle; returns the
 * seconds waited, or -1 when it never got quiet. */
static double wait_for_quiet(double max_s) {
    double t0 = now_s();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    while (now_s() - t0 < max_s) {
        double b0, s0, b1, s1;
        machine_busy(&b0, &s0);
        double w0 = now_s();
        sleep(1);
        machine_busy(&b1, &s1);
        double share = (b1 - b0) / ((now_s() - w0) * (double)cores);
        if (share < 0.10)
            return now_s() - t0;
        fprintf(stderr, "bunnymark: machine busy (%.0f%% of all cores), waiting\n", share * 100);
    }
    return -1;
}

/* --- Logging: keep the runtime's info lines off the console, fail runs that log errors ----- */

static atomic_int logged_errors;

static void log_sink(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    if (level >= ONA_LOG_ERROR)
        atomic_fetch_add_explicit(&logged_errors, 1, memory_order_relaxed); /* a count only */
    fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
}

/* --- Ona: the sample through the public API ----------------------------------------------- */

static uint32_t expected_systems(config c) {
    switch (c) {
    case SEQUENTIAL:
        return 2; /* mover, hud */
    case UNBATCHED:
    case BATCHED:
        return 3; /* drawer, mover, hud */
    case PARALLEL:
    case SHAPES:
        return MOVERS + 1;
    case TILEMAP:
        return MOVERS + 2; /* and the map */
    default:
        return 0;
    }
}

static run_result ona_run(config c, uint32_t n, int size) {
    run_result r = {0};
    const char *roots[] = {ONA_SOURCE_DIR "/samples/bunnymark", NULL};
    ona_runtime_desc desc = {
        .threads = c == SEQUENTIAL ? 1 : 2,
        .script_roots = roots,
        .video = no_gl ? ONA_VIDEO_NONE : ONA_VIDEO_OFFSCREEN,
        .window = {.title = "bunnymark", .width = WIDTH, .height = HEIGHT,
                   .vsync = ONA_VSYNC_OFF},
    };
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc) {
        fprintf(stderr, "bunnymark: ona_runtime_create: %s\n", ona_strerror(rc));
        return r;
    }
    int errors_before = atomic_load_explicit(&logged_errors, memory_order_relaxed);
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "mode", 4);
    ona_message_write_string(&w, config_modes[c], strlen(config_modes[c]));
    ona_message_write_string(&w, "bunnies", 7);
    ona_message_write_number(&w, n);
    ona_message_write_string(&w, "size", 4);
    ona_message_write_number(&w, size);
    ona_message_write_string(&w, "movers", 6);
    ona_message_write_number(&w, MOVERS);
    ona_message_write_table_end(&w);
    rc = ona_message_writer_end(&w);
    ona_spawn_desc main_desc = {.script = "main.lua", .name = "main", .args = &args};
    ona_system main_system;
    if (rc == 0)
        rc = ona_runtime_spawn(rt, &main_desc, &main_system);
    else
        ona_message_release(&args);
    if (rc) {
        fprintf(stderr, "bunnymark: spawning main.lua: %s\n", ona_strerror(rc));
        ona_runtime_destroy(rt);
        return r;
    }
    const double dt = 1.0 / 60;
    for (uint32_t i = 0; i < warmup_frames && rc == 0; i++)
        rc = ona_runtime_step(rt, dt);
    if (!no_gl)
        glFinish(); /* the runtime's context is current on this (its main) thread */
    ona_runtime_stats before;
    ona_runtime_stats_get(rt, &before);
    double t0 = now_s(), c0 = cpu_now_s(), m0 = thread_cpu_now_s();
    for (uint32_t i = 0; i < timed_frames && rc == 0; i++)
        rc = ona_runtime_step(rt, dt);
    if (!no_gl)
        glFinish();
    double t1 = now_s(), c1 = cpu_now_s(), m1 = thread_cpu_now_s();
    ona_runtime_stats after;
    ona_runtime_stats_get(rt, &after);
    ona_runtime_destroy(rt);
    int errors = atomic_load_explicit(&logged_errors, memory_order_relaxed) - errors_before;
    if (rc || errors || after.systems != expected_systems(c)) {
        fprintf(stderr, "bunnymark: %s n=%u: step %s, %d errors logged, %u systems (want %u)\n",
                config_names[c], n, ona_strerror(rc), errors, after.systems, expected_systems(c));
        return r;
    }
    /* Unbatched must have delivered one message per bunny per frame. */
    if (c == UNBATCHED && after.messages - before.messages < (uint64_t)n * timed_frames) {
        fprintf(stderr, "bunnymark: unbatched n=%u delivered %llu messages in %u frames\n", n,
                (unsigned long long)(after.messages - before.messages), timed_frames);
        return r;
    }
    r.ok = true;
    r.wall_s = t1 - t0;
    r.cpu_s = c1 - c0;
    r.main_cpu_s = m1 - m0;
    r.fps = timed_frames / r.wall_s;
    return r;
}

/* --- Bare C: the GL module and nothing else ----------------------------------------------- */

typedef struct bunny {
    float x, y, vx, vy;
} bunny;

static uint64_t rng_state;

static double rng_next(void) { /* xorshift64*, [0, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

/* samples/bunnymark/bunnies.lua's M.step, in C. */
static void bunnies_step(bunny *b, uint32_t n) {
    const float w = WIDTH, h = HEIGHT, g = 0.5f;
    for (uint32_t i = 0; i < n; i++) {
        bunny *s = &b[i];
        s->x += s->vx;
        s->y += s->vy;
        s->vy += g;
        if (s->x > w) {
            s->vx = -s->vx;
            s->x = w;
        } else if (s->x < 0) {
            s->vx = -s->vx;
            s->x = 0;
        }
        if (s->y > h) {
            s->vy = -0.85f * s->vy;
            s->y = h;
            if (rng_next() > 0.5)
                s->vy -= (float)(rng_next() * 6);
        } else if (s->y < 0) {
            s->vy = 0;
            s->y = 0;
        }
    }
}

typedef struct bare_gl {
    SDL_Window *window;
    SDL_GLContext context;
    ona__gfx *gfx;
    uint32_t texture;
    int tex_w, tex_h;
} bare_gl;

static void bare_close(bare_gl *b) {
    if (b->gfx) {
        if (b->texture)
            ona__gfx_texture_free(b->gfx, b->texture);
        ona__gfx_destroy(b->gfx);
    }
    if (b->context)
        SDL_GL_DeleteContext(b->context);
    if (b->window)
        SDL_DestroyWindow(b->window);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    memset(b, 0, sizeof *b);
}

/* The same window and context as runtime/gfx/window.c makes: offscreen, 4.6 core (else 4.5),
 * swap interval 0. */
static int bare_open(bare_gl *b) {
    memset(b, 0, sizeof *b);
    setenv("MESA_GL_VERSION_OVERRIDE", "4.6", 0);
    setenv("MESA_GLSL_VERSION_OVERRIDE", "460", 0);
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "bunnymark: SDL_Init: %s\n", SDL_GetError());
        return -1;
    }
    b->window = SDL_CreateWindow("bunnymark (bare C)", SDL_WINDOWPOS_CENTERED,
                                 SDL_WINDOWPOS_CENTERED, WIDTH, HEIGHT,
                                 SDL_WINDOW_OPENGL | SDL_WINDOW_ALLOW_HIGHDPI | SDL_WINDOW_HIDDEN);
    for (int minor = 6; minor >= 5 && b->window && !b->context; minor--) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minor);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, 0);
        b->context = SDL_GL_CreateContext(b->window);
    }
    if (!b->context) {
        fprintf(stderr, "bunnymark: no GL 4.5+ context: %s\n", SDL_GetError());
        bare_close(b);
        return -1;
    }
    SDL_GL_MakeCurrent(b->window, b->context);
    glewExperimental = GL_TRUE;
    GLenum e = glewInit();
    if (e != GLEW_OK && e != GLEW_ERROR_NO_GLX_DISPLAY) {
        fprintf(stderr, "bunnymark: glewInit: %s\n", (const char *)glewGetErrorString(e));
        bare_close(b);
        return -1;
    }
    while (glGetError() != GL_NO_ERROR)
        ;
    SDL_GL_SetSwapInterval(0);
    snprintf(gl_renderer, sizeof gl_renderer, "%s", (const char *)glGetString(GL_RENDERER));
    snprintf(gl_version, sizeof gl_version, "%s", (const char *)glGetString(GL_VERSION));
    ona__gfx_desc gd = {.shader_dir = ONA_SOURCE_DIR "/shaders"};
    int rc = ona__gfx_create(&gd, &b->gfx);
    if (rc) {
        fprintf(stderr, "bunnymark: ona__gfx_create: %s\n", ona_strerror(rc));
        bare_close(b);
        return -1;
    }
    int channels;
    stbi_uc *png = stbi_load(ONA_SOURCE_DIR "/samples/bunnymark/bunny.png", &b->tex_w, &b->tex_h,
                             &channels, 4);
    if (!png || ona__gfx_texture_upload(b->gfx, b->tex_w, b->tex_h, png, &b->texture) != 0) {
        fprintf(stderr, "bunnymark: bunny.png: %s\n", png ? "upload failed" : stbi_failure_reason());
        stbi_image_free(png);
        bare_close(b);
        return -1;
    }
    stbi_image_free(png);
    return 0;
}

static void bare_place(ona__sprite *dst, const bunny *b, uint32_t n, float scale) {
    for (uint32_t i = 0; i < n; i++)
        dst[i] = (ona__sprite){.x = b[i].x, .y = b[i].y, .origin_x = 16, .origin_y = 32,
                               .scale_x = scale, .scale_y = scale, .tint = 0xFFFFFFFFu};
}

/* One frame; `g` NULL: no GL, the instances go to `scratch`. */
static void bare_frame(bare_gl *g, ona__sprite *scratch, bunny *b, uint32_t n, float scale) {
    static const float clear[4] = {0, 0, 0, 1};
    const ona__camera camera = {.x = WIDTH / 2.0f, .y = HEIGHT / 2.0f, .zoom = 1};
    bunnies_step(b, n);
    if (!g) {
        bare_place(scratch, b, n, scale);
        bench_escape(scratch);
        return;
    }
    ona__gfx_begin(g->gfx, WIDTH, HEIGHT, clear, &camera);
    ona__sprite *dst = ona__gfx_instances(g->gfx, n);
    if (dst) {
        bare_place(dst, b, n, scale);
        ona__gfx_run run = {.texture = g->texture, .width = g->tex_w, .height = g->tex_h,
                            .first = 0, .count = n};
        ona__gfx_draw(g->gfx, &run, 1);
    }
    ona__gfx_end(g->gfx);
    SDL_GL_SwapWindow(g->window);
}

static run_result bare_run(uint32_t n, int size) {
    run_result r = {0};
    bare_gl g = {0};
    if (!no_gl && bare_open(&g) != 0)
        return r;
    bunny *b = calloc(n ? n : 1, sizeof *b);
    ona__sprite *scratch = no_gl ? calloc(n ? n : 1, sizeof *scratch) : NULL;
    if (!b || (no_gl && !scratch)) {
        free(b);
        free(scratch);
        if (!no_gl)
            bare_close(&g);
        return r;
    }
    bare_gl *gl = no_gl ? NULL : &g;
    rng_state = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < n; i++) {
        b[i].x = (float)(rng_next() * WIDTH);
        b[i].y = (float)(rng_next() * HEIGHT * 0.5);
        b[i].vx = (float)(rng_next() * 10 - 5);
        b[i].vy = (float)(rng_next() * 10 - 5);
    }
    float scale = (float)size / 32;
    for (uint32_t i = 0; i < warmup_frames; i++)
        bare_frame(gl, scratch, b, n, scale);
    if (gl)
        glFinish();
    double t0 = now_s(), c0 = cpu_now_s(), m0 = thread_cpu_now_s();
    for (uint32_t i = 0; i < timed_frames; i++)
        bare_frame(gl, scratch, b, n, scale);
    if (gl)
        glFinish();
    double t1 = now_s(), c1 = cpu_now_s(), m1 = thread_cpu_now_s();
    free(b);
    free(scratch);
    if (gl)
        bare_close(gl);
    r.ok = true;
    r.wall_s = t1 - t0;
    r.cpu_s = c1 - c0;
    r.main_cpu_s = m1 - m0;
    r.fps = timed_frames / r.wall_s;
    return r;
}

/* --- LÖVE: a child process ---------------------------------------------------------------- */

static bool find_love(void) {
    return bench_find_program("love", love_path, sizeof love_path);
}

static double rusage_children_s(void) {
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/* Runs the LÖVE peer for WARMUP + `frames` frames. cpu_s is the child's whole CPU
 * (getrusage(RUSAGE_CHILDREN) delta), start-up included; wall_s/fps its timed window. */
static run_result love_run(uint32_t n, int size, uint32_t frames) {
    run_result r = {0};
    int out[2];
    if (pipe(out) != 0)
        return r;
    char a_n[64], a_size[64], a_warm[64], a_frames[64];
    snprintf(a_n, sizeof a_n, "bunnies=%u", n);
    snprintf(a_size, sizeof a_size, "size=%d", size);
    snprintf(a_warm, sizeof a_warm, "warmup=%u", warmup_frames);
    snprintf(a_frames, sizeof a_frames, "frames=%u", frames);
    char *argv[] = {love_path, ONA_SOURCE_DIR "/benchmarks/peers/love", a_n, a_size, a_warm,
                    a_frames, "texture=" ONA_SOURCE_DIR "/samples/bunnymark/bunny.png", NULL};
    double ru0 = rusage_children_s();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(out[0]);
        close(out[1]);
        return r;
    }
    if (pid == 0) {
        setenv("SDL_VIDEODRIVER", "offscreen", 1);
        dup2(out[1], STDOUT_FILENO);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDERR_FILENO); /* LÖVE's ALSA/OpenAL complaints */
        close(out[0]);
        close(out[1]);
        execv(love_path, argv);
        _exit(127);
    }
    close(out[1]);
    char text[4096];
    size_t used = 0;
    double deadline = now_s() + 300;
    for (;;) {
        struct pollfd pfd = {.fd = out[0], .events = POLLIN};
        int ready = poll(&pfd, 1, 1000);
        if (ready < 0 && errno != EINTR)
            break;
        if (now_s() > deadline) {
            fprintf(stderr, "bunnymark: LÖVE n=%u did not finish; killed\n", n);
            kill(pid, SIGKILL);
            break;
        }
        if (ready <= 0)
            continue;
        ssize_t got = read(out[0], text + used, sizeof text - 1 - used);
        if (got <= 0)
            break;
        used += (size_t)got;
        if (used == sizeof text - 1)
            break;
    }
    text[used] = '\0';
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    double ru1 = rusage_children_s();
    const char *renderer = strstr(text, "renderer=");
    if (renderer && !love_renderer[0])
        snprintf(love_renderer, sizeof love_renderer, "%.*s", (int)strcspn(renderer + 9, "\n"),
                 renderer + 9);
    const char *line = strstr(text, "bunnymark-love ");
    double fps, seconds, cpu, update_cpu;
    unsigned got_frames;
    if (!line || sscanf(line, "bunnymark-love fps=%lf frames=%u seconds=%lf cpu_s=%lf "
                              "update_cpu_s=%lf",
                        &fps, &got_frames, &seconds, &cpu, &update_cpu) != 5) {
        fprintf(stderr, "bunnymark: LÖVE n=%u printed no result (exit status %d)\n", n, status);
        return r;
    }
    r.ok = true;
    r.fps = frames ? fps : 0;
    r.wall_s = seconds;
    r.cpu_s = ru1 - ru0;
    r.cpu_in_script_s = cpu;
    r.update_cpu_s = update_cpu;
    return r;
}

/* --- Points and the search ---------------------------------------------------------------- */

static run_result run_once(config c, uint32_t n, int size) {
    switch (c) {
    case BARE_C:
        return bare_run(n, size);
    case LOVE:
        return love_run(n, size, timed_frames);
    default:
        return ona_run(c, n, size);
    }
}

static int cmp_run_fps(const void *a, const void *b) {
    double x = ((const run_result *)a)->fps, y = ((const run_result *)b)->fps;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The median of RUNS runs (by FPS; its wall and CPU go with it). `all` (may be NULL) gets the
 * runs, sorted by FPS. */
static bool measure(config c, uint32_t n, int size, point *out, run_result *all) {
    run_result runs[RUNS];
    for (int i = 0; i < RUNS; i++) {
        runs[i] = run_once(c, n, size);
        if (!runs[i].ok)
            return false;
    }
    qsort(runs, RUNS, sizeof runs[0], cmp_run_fps);
    run_result m = runs[RUNS / 2];
    out->n = n;
    out->fps = m.fps;
    out->wall_ms = m.wall_s * 1e3 / timed_frames;
    out->cpu_s = m.cpu_s;
    if (all)
        memcpy(all, runs, sizeof runs);
    fprintf(stderr, "  %-10s n=%7u  %7.2f fps  (runs %.2f %.2f %.2f)\n", config_modes[c], n,
            m.fps, runs[0].fps, runs[1].fps, runs[2].fps);
    return true;
}

typedef struct search {
    config c;
    point points[MAX_POINTS];
    int count;
    uint32_t best[3];   /* largest passing count per threshold */
    uint32_t failing[3]; /* smallest failing count above it */
    bool below_range[3]; /* even the smallest count tried failed */
    bool broken;         /* a run failed */
    /* Least squares of frame ms = fit_a + fit_b * n over the points between 20 and 100 FPS,
     * and the counts it predicts for each threshold. */
    double fit_a, fit_b;
    double fit_n[3];
    double seconds;
    double other_load, steal;
} search;

static const point *search_point(search *s, uint32_t n) {
    for (int i = 0; i < s->count; i++)
        if (s->points[i].n == n)
            return &s->points[i];
    if (s->count == MAX_POINTS || s->broken)
        return NULL;
    point p;
    if (!measure(s->c, n, 32, &p, NULL)) {
        s->broken = true;
        return NULL;
    }
    s->points[s->count++] = p;
    return &s->points[s->count - 1];
}

/* The bracket for threshold t: the smallest failing count, and the largest passing count below
 * it (a noisy pass above a failure is ignored). */
static void bracket(const search *s, double t, const point **lo, const point **hi) {
    *lo = *hi = NULL;
    for (int i = 0; i < s->count; i++)
        if (s->points[i].fps < t && (!*hi || s->points[i].n < (*hi)->n))
            *hi = &s->points[i];
    for (int i = 0; i < s->count; i++)
        if (s->points[i].fps >= t && (!*hi || s->points[i].n < (*hi)->n) &&
            (!*lo || s->points[i].n > (*lo)->n))
            *lo = &s->points[i];
}

static void run_search(search *s, config c) {
    memset(s, 0, sizeof *s);
    s->c = c;
    fprintf(stderr, "bunnymark: %s, 32x32\n", config_names[c]);
    load_meter meter = load_begin();
    double t0 = now_s();
    /* Grow: a count that holds 60 and one that misses 30. */
    uint32_t n = START;
    const point *p = search_point(s, n);
    while (p && p->fps < thresholds[0] && n > 16) {
        n /= 2;
        p = search_point(s, n);
    }
    n = START;
    p = search_point(s, n);
    while (p && p->fps >= thresholds[2] && n < MAX_COUNT) {
        n *= 2;
        p = search_point(s, n);
    }
    /* Narrow each threshold to 2%. */
    for (int k = 0; k < 3 && !s->broken; k++) {
        double t = thresholds[k];
        for (int probe = 0; probe < MAX_REFINE; probe++) {
            const point *lo, *hi;
            bracket(s, t, &lo, &hi);
            if (!lo || !hi || hi->n <= lo->n + 1 || (double)hi->n <= lo->n * 1.02)
                break;
            double est;
            double flo = 1 / lo->fps, fhi = 1 / hi->fps, ft = 1 / t;
            if (probe < 2 && fhi > flo)
                est = lo->n + (hi->n - lo->n) * (ft - flo) / (fhi - flo);
            else
                est = sqrt((double)lo->n * hi->n);
            double min = lo->n * 1.01, max = hi->n / 1.01;
            if (est < min)
                est = min;
            if (est > max)
                est = max;
            uint32_t next = (uint32_t)lrint(est);
            if (next <= lo->n)
                next = lo->n + 1;
            if (next >= hi->n)
                next = hi->n - 1;
            if (!search_point(s, next))
                break;
        }
    }
    for (int k = 0; k < 3; k++) {
        const point *lo, *hi;
        bracket(s, thresholds[k], &lo, &hi);
        s->best[k] = lo ? lo->n : 0;
        s->failing[k] = hi ? hi->n : 0;
        s->below_range[k] = !lo;
    }
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int used = 0;
    for (int i = 0; i < s->count; i++) {
        const point *q = &s->points[i];
        if (q->fps < 20 || q->fps > 100)
            continue;
        sx += q->n;
        sy += q->wall_ms;
        sxx += (double)q->n * q->n;
        sxy += q->n * q->wall_ms;
        used++;
    }
    if (used >= 2 && used * sxx - sx * sx > 0) {
        s->fit_b = (used * sxy - sx * sy) / (used * sxx - sx * sx);
        s->fit_a = (sy - s->fit_b * sx) / used;
        for (int k = 0; k < 3; k++)
            s->fit_n[k] = s->fit_b > 0 ? (1e3 / thresholds[k] - s->fit_a) / s->fit_b : 0;
    }
    s->seconds = now_s() - t0;
    load_end(&meter, &s->other_load, &s->steal);
}

/* --- The 2x2 table ------------------------------------------------------------------------ */

typedef struct small_result {
    bool ok;
    double fps, wall_ms, cpu_ns_per_sprite, cores;
    double love_in_script_ns; /* LÖVE: its own process CPU clock, for comparison */
    double no_gl_ns;          /* CPU per sprite without GL (not LÖVE); 0 = not measured */
    double other_load;
} small_result;

static small_result run_small(config c, uint32_t n) {
    small_result r = {0};
    fprintf(stderr, "bunnymark: %s, 2x2, n=%u\n", config_names[c], n);
    load_meter meter = load_begin();
    uint32_t saved_frames = timed_frames;
    timed_frames = small_frames;
    point p;
    run_result runs[RUNS];
    if (!measure(c, n, 2, &p, runs)) {
        timed_frames = saved_frames;
        return r;
    }
    double cpu_s = runs[RUNS / 2].cpu_s;
    if (c == LOVE) {
        /* The same runs with no timed frames: their CPU is LÖVE's start-up and warm-up. */
        double base[RUNS], full[RUNS], script[RUNS], update[RUNS];
        for (int i = 0; i < RUNS; i++) {
            run_result zero = love_run(n, 2, 0);
            if (!zero.ok) {
                timed_frames = saved_frames;
                return r;
            }
            base[i] = zero.cpu_s;
            full[i] = runs[i].cpu_s;
            script[i] = runs[i].cpu_in_script_s;
            update[i] = runs[i].update_cpu_s;
        }
        r.no_gl_ns = bench_summarise(update, RUNS).median * 1e9 / timed_frames / n;
        double b = bench_summarise(base, RUNS).median, f = bench_summarise(full, RUNS).median;
        cpu_s = f - b;
        r.love_in_script_ns = bench_summarise(script, RUNS).median * 1e9 / timed_frames / n;
        fprintf(stderr, "  love CPU: full %.3f s, start-up %.3f s, in-script %.3f s\n", f, b,
                bench_summarise(script, RUNS).median);
    }
    r.ok = true;
    r.fps = p.fps;
    r.wall_ms = p.wall_ms;
    r.cpu_ns_per_sprite = cpu_s * 1e9 / timed_frames / n;
    r.cores = cpu_s / (p.wall_ms * 1e-3 * timed_frames);
    if (c != LOVE) {
        /* Again without GL: what the runtime itself costs per sprite. Median CPU of RUNS. */
        no_gl = true;
        double cpu[RUNS];
        bool ok = true;
        for (int i = 0; i < RUNS && ok; i++) {
            run_result q = run_once(c, n, 2);
            ok = q.ok;
            cpu[i] = q.cpu_s;
        }
        no_gl = false;
        if (ok) {
            r.no_gl_ns = bench_summarise(cpu, RUNS).median * 1e9 / timed_frames / n;
            fprintf(stderr, "  without GL: %.1f ns CPU/sprite\n", r.no_gl_ns);
        }
    }
    timed_frames = saved_frames;
    double steal;
    load_end(&meter, &r.other_load, &steal);
    return r;
}

/* --- Report ------------------------------------------------------------------------------- */

static void print_count(bench_report *rep, const search *s, int k) {
    if (s->broken)
        bench_report_printf(rep, " failed |");
    else if (s->below_range[k])
        bench_report_printf(rep, " < %u |", s->failing[k]);
    else if (!s->failing[k])
        bench_report_printf(rep, " >= %u |", s->best[k]);
    else
        bench_report_printf(rep, " %u |", s->best[k]);
}

/* --- Side by side with bare C at fixed counts ------------------------------------------- */

enum { SIDE_ROUNDS = 5, SIDE_COUNTS = 3, SIDE_CONFIGS = 3 };
static const uint32_t side_counts[SIDE_COUNTS] = {2500, 3500, 5000};
static const config side_configs[SIDE_CONFIGS] = {SEQUENTIAL, BATCHED, PARALLEL};

typedef struct side {
    bool ok;
    double ratio[SIDE_ROUNDS]; /* this configuration's FPS / bare C's in the same round */
    double main_ms[SIDE_ROUNDS], bare_main_ms[SIDE_ROUNDS]; /* main thread's CPU per frame */
} side;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static double median_of(const double *v, int n, double *lo, double *hi) {
    double s[SIDE_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *lo = s[0];
    *hi = s[n - 1];
    return s[n / 2];
}

/* Each round runs bare C, then the configuration, at one count (32x32): a round's ratio
 * compares two runs made seconds apart, so the machine's other load moves both. */
static side run_side(config c, uint32_t n) {
    side r = {.ok = true};
    for (int i = 0; i < SIDE_ROUNDS && r.ok; i++) {
        run_result b = bare_run(n, 32), o = ona_run(c, n, 32);
        r.ok = b.ok && o.ok && b.fps > 0;
        if (r.ok) {
            r.ratio[i] = o.fps / b.fps;
            r.main_ms[i] = o.main_cpu_s * 1e3 / timed_frames;
            r.bare_main_ms[i] = b.main_cpu_s * 1e3 / timed_frames;
        }
    }
    return r;
}

static const char *yes_no(bool met) {
    return met ? "**met**" : "**not met**";
}

int main(int argc, char **argv) {
    uint32_t small_count = SMALL_COUNT;
    int only = -1;
    uint32_t one_n = 0;
    int one_size = 32;
    bool wait = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            timed_frames = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
            warmup_frames = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--small-frames") == 0 && i + 1 < argc)
            small_frames = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--small") == 0 && i + 1 < argc)
            small_count = (uint32_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--no-wait") == 0)
            wait = false;
        else if (strcmp(argv[i], "--no-gl") == 0)
            no_gl = true;
        else if (strcmp(argv[i], "--one") == 0 && i + 2 < argc) {
            one_n = (uint32_t)atoi(argv[++i]);
            one_size = atoi(argv[++i]);
        }
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            const char *name = argv[++i];
            for (int c = 0; c < CONFIG_COUNT; c++)
                if (strcmp(name, config_modes[c]) == 0)
                    only = c;
            if (only < 0) {
                fprintf(stderr, "bunnymark: --only sequential|unbatched|batched|parallel|shapes|"
                                "tilemap|bare|love\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bunnymark [--frames F] [--warmup W] [--small N] "
                            "[--small-frames F] [--only NAME] [--no-wait] "
                            "[--one N SIZE [--no-gl]]\n");
            return 2;
        }
    }
    if (timed_frames < 1 || small_frames < 1 || warmup_frames < 3) {
        fprintf(stderr, "bunnymark: --frames >= 1, --warmup >= 3\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    ona_log_set_sink(log_sink, NULL, ONA_LOG_WARN);
    bool have_love = find_love();
    if (one_n) { /* one run of one configuration, for profiling */
        if (only < 0 || (only == LOVE && !have_love) || (only == LOVE && no_gl)) {
            fprintf(stderr, "bunnymark: --one needs --only NAME (and LÖVE has no --no-gl)\n");
            return 2;
        }
        run_result r = run_once((config)only, one_n, one_size);
        if (!r.ok)
            return 1;
        printf("%s n=%u size=%d%s: %.2f fps, %.3f ms/frame, %.1f ns CPU/sprite/frame "
               "(%.2f cores), main thread %.3f ms CPU/frame\n",
               config_names[only], one_n, one_size, no_gl ? " without GL" : "", r.fps,
               r.wall_s * 1e3 / timed_frames, r.cpu_s * 1e9 / timed_frames / one_n,
               r.cpu_s / r.wall_s, r.main_cpu_s * 1e3 / timed_frames);
        return 0;
    }
    double waited = wait ? wait_for_quiet(120) : 0;
    double started = now_s();

    /* The GL renderer string, from the bare-C context (one frame). */
    {
        uint32_t saved_w = warmup_frames, saved_f = timed_frames;
        warmup_frames = 3;
        timed_frames = 1;
        if (!bare_run(1, 32).ok) {
            fprintf(stderr, "bunnymark: no GL context; nothing to measure\n");
            return 1;
        }
        warmup_frames = saved_w;
        timed_frames = saved_f;
    }

    static search searches[CONFIG_COUNT];
    small_result small[CONFIG_COUNT] = {0};
    bool ran[CONFIG_COUNT] = {0};
    for (int c = 0; c < CONFIG_COUNT; c++) {
        if ((only >= 0 && c != only) || (c == LOVE && !have_love))
            continue;
        ran[c] = true;
        if (wait)
            wait_for_quiet(20);
        run_search(&searches[c], (config)c);
    }
    for (int c = 0; c < CONFIG_COUNT; c++)
        if (ran[c]) {
            if (wait)
                wait_for_quiet(20);
            small[c] = run_small((config)c, small_count);
        }
    static side sides[SIDE_CONFIGS][SIDE_COUNTS];
    bool side_ran = only < 0;
    for (int k = 0; k < SIDE_CONFIGS && side_ran; k++)
        for (int j = 0; j < SIDE_COUNTS; j++) {
            if (wait)
                wait_for_quiet(20);
            sides[k][j] = run_side(side_configs[k], side_counts[j]);
        }
    double total = now_s() - started;
    if (only >= 0) {
        const search *s = &searches[only];
        printf("%s: >=60 %u, >=45 %u, >=30 %u; 2x2 n=%u: %.2f ms/frame, %.1f ns CPU/sprite "
               "(%.2f cores); %.0f s\n",
               config_names[only], s->best[0], s->best[1], s->best[2], small_count,
               small[only].wall_ms, small[only].cpu_ns_per_sprite, small[only].cores, total);
        return 0;
    }

    bench_report *rep = bench_report_open(
        "bunnymark", "bunnymark: textured bunnies at 60/45/30 FPS",
        "bare C on the same GL module (one instanced draw, nothing else); LÖVE 11.4 "
        "(benchmarks/peers/love, SpriteBatch), same machine, same window");
    bench_report_printf(rep, "GL renderer: %s, %s (SDL `offscreen` driver, EGL). LÖVE: %s. Window "
                             "1280x720, vsync off. llvmpipe rasterises on its own threads "
                             "(LP_NUM_THREADS %s), so every configuration uses both cores.\n\n",
                        gl_renderer, gl_version,
                        have_love ? (love_renderer[0] ? love_renderer : "?") : "not run",
                        getenv("LP_NUM_THREADS") ? getenv("LP_NUM_THREADS") : "unset: one per core");

    const search *bare = &searches[BARE_C];
    const search *love = &searches[LOVE];
    bench_report_printf(rep, "## 32x32 bunnies: the most bunnies holding each frame rate\n\n");
    bench_report_printf(rep, "| configuration | threads | >= 60 FPS | >= 45 FPS | >= 30 FPS | "
                             "@60 vs bare C | @60 vs LÖVE | bracket @60/45/30 | points | "
                             "other load |\n");
    bench_report_printf(rep, "|---|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
    bench_report_chart(rep, "32x32 bunnies held at each frame rate (higher is better)", "bunnies",
                       false, 3, (const char *const[]){">= 60 FPS", ">= 45 FPS", ">= 30 FPS"});
    for (int c = 0; c < CONFIG_COUNT; c++) {
        const search *s = &searches[c];
        if (ran[c])
            bench_report_chart_row(rep, config_names[c],
                                   (double[]){(double)s->best[0], (double)s->best[1],
                                              (double)s->best[2]});
        if (!ran[c]) {
            bench_report_printf(rep, "| %s | | skipped: `love` not on PATH | | | | | | | |\n",
                                config_names[c]);
            continue;
        }
        bench_report_printf(rep, "| %s | %s |", config_names[c], config_threads[c]);
        for (int k = 0; k < 3; k++)
            print_count(rep, s, k);
        if (c != BARE_C && bare->best[0])
            bench_report_printf(rep, " %.3fx |", (double)s->best[0] / bare->best[0]);
        else
            bench_report_printf(rep, " |");
        if (c != LOVE && ran[LOVE] && love->best[0])
            bench_report_printf(rep, " %.3fx |", (double)s->best[0] / love->best[0]);
        else
            bench_report_printf(rep, " |");
        for (int k = 0; k < 3; k++)
            if (s->best[k] && s->failing[k])
                bench_report_printf(rep, "%s+%.1f%%", k ? " / " : " ",
                                    ((double)s->failing[k] / s->best[k] - 1) * 100);
            else
                bench_report_printf(rep, "%s?", k ? " / " : " ");
        bench_report_printf(rep, " | %d in %.0f s | %.0f%% |\n", s->count, s->seconds,
                            s->other_load * 100);
    }
    bench_report_printf(
        rep,
        "\nA count holds a rate when the median of %d runs reaches it. Each run: a fresh runtime "
        "(or bare-C context, or LÖVE process), %u warm-up frames, then %u timed frames of "
        "`ona_runtime_step` (turns, render-queue merge, upload, draw, swap) between two "
        "`glFinish` calls, wall clock; LÖVE times update+draw+present of its own %u frames "
        "with love.timer. Search: start at %d bunnies, double until below 30 FPS, then narrow "
        "each threshold by interpolating frame time between the bracket's ends (geometric "
        "midpoint after two probes) until the smallest failing count is within 2%% of the "
        "largest passing one, at most %d probes per threshold. \"bracket\": how far above each "
        "count the smallest failing count lies (the resolution reached). F = %u timed frames "
        "keeps the whole program near 10 minutes: llvmpipe fills 32x32 sprites on the CPU, so "
        "near the thresholds a frame costs 16-33 ms and a run 1.5-3 s. Runs of one point "
        "spread by up to +-10%% on this shared 2-core VM, so differences under ~10%% between "
        "configurations are noise; the fit below uses every point and is steadier. \"other "
        "load\": CPU other processes used during that configuration's search, as a share of "
        "one core. Total run time %.0f s%s.\n\n",
        RUNS, warmup_frames, timed_frames, timed_frames, START, MAX_REFINE, timed_frames, total,
        waited < 0 ? "; the machine never went quiet before the start" : "");

    bench_report_printf(rep, "### The same points, fitted: frame ms = a + b * bunnies\n\n");
    bench_report_printf(rep, "| configuration | b: us per bunny | a: ms per frame | @60 | @45 | @30 "
                             "| @60 vs bare C | @60 vs LÖVE |\n");
    bench_report_printf(rep, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < CONFIG_COUNT; c++) {
        const search *s = &searches[c];
        if (!ran[c] || s->fit_b <= 0)
            continue;
        bench_report_printf(rep, "| %s | %.3f | %.2f | %.0f | %.0f | %.0f |", config_names[c],
                            s->fit_b * 1e3, s->fit_a, s->fit_n[0], s->fit_n[1], s->fit_n[2]);
        if (c != BARE_C && bare->fit_n[0] > 0)
            bench_report_printf(rep, " %.3fx |", s->fit_n[0] / bare->fit_n[0]);
        else
            bench_report_printf(rep, " |");
        if (c != LOVE && ran[LOVE] && love->fit_n[0] > 0)
            bench_report_printf(rep, " %.3fx |\n", s->fit_n[0] / love->fit_n[0]);
        else
            bench_report_printf(rep, " |\n");
    }
    bench_report_printf(rep, "\nLeast squares over every point of the search between 20 and 100 "
                             "FPS (median frame times); the counts are where the line crosses "
                             "16.7, 22.2 and 33.3 ms.\n\n");

    bench_report_printf(rep, "## 2x2 bunnies: CPU per sprite (fill rate negligible)\n\n");
    bench_report_printf(rep, "%u bunnies of 2x2 pixels (the 32x32 texture at scale 1/16), %u "
                             "timed frames after %u warm-up, median of %d runs.\n\n",
                        small_count, small_frames, warmup_frames, RUNS);
    bench_report_printf(rep, "| configuration | threads | wall ms/frame | FPS | CPU ns/sprite/frame "
                             "| cores busy | vs LÖVE CPU | CPU ns/sprite/frame without GL | "
                             "other load |\n");
    bench_report_printf(rep, "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int c = 0; c < CONFIG_COUNT; c++) {
        if (!ran[c] || !small[c].ok) {
            bench_report_printf(rep, "| %s | | %s | | | | | | |\n", config_names[c],
                                ran[c] ? "failed" : "skipped");
            continue;
        }
        bench_report_printf(rep, "| %s | %s | %.2f | %.1f | %.1f | %.2f |", config_names[c],
                            config_threads[c], small[c].wall_ms, small[c].fps,
                            small[c].cpu_ns_per_sprite, small[c].cores);
        if (c != LOVE && small[LOVE].ok)
            bench_report_printf(rep, " %.2fx |", small[c].cpu_ns_per_sprite /
                                                     small[LOVE].cpu_ns_per_sprite);
        else
            bench_report_printf(rep, " |");
        if (small[c].no_gl_ns > 0)
            bench_report_printf(rep, " %.1f%s |", small[c].no_gl_ns,
                                c == LOVE ? " (love.update)" : "");
        else
            bench_report_printf(rep, " |");
        bench_report_printf(rep, " %.0f%% |\n", small[c].other_load * 100);
    }
    bench_report_printf(
        rep,
        "\nCPU: `CLOCK_PROCESS_CPUTIME_ID` over the timed frames (every thread of the process: "
        "the runtime's workers and main, and llvmpipe's rasteriser threads), divided by frames "
        "and bunnies. LÖVE: `getrusage(RUSAGE_CHILDREN)` of a run with %u+%u frames minus that "
        "of a run with %u+0 frames (medians of %d), which removes its start-up",
        warmup_frames, small_frames, warmup_frames, RUNS);
    if (small[LOVE].ok)
        bench_report_printf(rep, "; LÖVE's own process CPU clock over its timed window gives "
                                 "%.1f ns/sprite/frame",
                            small[LOVE].love_in_script_ns);
    bench_report_printf(rep, ". \"cores busy\" = CPU time / wall time. \"without GL\": the same "
                             "runs with `ONA_VIDEO_NONE` (systems still fill their render queues "
                             "and main still merges them; nothing is drawn), bare C writing its "
                             "instances to plain memory, and for LÖVE the main thread's CPU "
                             "(`CLOCK_THREAD_CPUTIME_ID`) inside love.update (physics and "
                             "SpriteBatch:set) during its drawing runs: each one's own cost per "
                             "sprite, without the GL driver's. With GL, llvmpipe's vertex work "
                             "(~1.3 us per instance) is most of every figure.\n\n");

    bench_report_printf(rep, "## 32x32 bunnies side by side with bare C\n\n");
    bench_report_printf(rep, "| configuration | bunnies | FPS / bare C's: median (range) | main "
                             "thread ms CPU/frame | bare C's main thread |\n");
    bench_report_printf(rep, "|---|---:|---|---|---|\n");
    for (int k = 0; k < SIDE_CONFIGS; k++)
        for (int j = 0; j < SIDE_COUNTS; j++) {
            const side *sd = &sides[k][j];
            if (!sd->ok) {
                bench_report_printf(rep, "| %s | %u | failed | | |\n",
                                    config_names[side_configs[k]], side_counts[j]);
                continue;
            }
            double lo, hi, mlo, mhi, blo, bhi;
            double med = median_of(sd->ratio, SIDE_ROUNDS, &lo, &hi);
            double mm = median_of(sd->main_ms, SIDE_ROUNDS, &mlo, &mhi);
            double bm = median_of(sd->bare_main_ms, SIDE_ROUNDS, &blo, &bhi);
            bench_report_printf(rep, "| %s | %u | %.3fx (%.3f-%.3f) | %.2f (%.2f-%.2f) | %.2f "
                                     "(%.2f-%.2f) |\n",
                                config_names[side_configs[k]], side_counts[j], med, lo, hi, mm,
                                mlo, mhi, bm, blo, bhi);
        }
    bench_report_printf(rep, "\n%d rounds per row; each round runs bare C then the configuration "
                             "at that count (%u timed frames each, as above) and divides their "
                             "FPS. \"main thread\": `CLOCK_THREAD_CPUTIME_ID` of the thread that "
                             "calls GL (Ona: main, which also runs turns; bare C: its loop) over "
                             "the timed frames: on 2 cores every ms it uses is a ms llvmpipe's "
                             "rasteriser threads do not get.\n\n",
                        SIDE_ROUNDS, timed_frames);

    /* Targets. */
    bench_report_printf(rep, "## Targets (benchmark, not test)\n\n");
    bench_report_printf(rep, "| target | this run | |\n|---|---|---|\n");
    for (int k = 0; k < SIDE_CONFIGS; k++)
        for (int j = 0; j < SIDE_COUNTS; j++) {
            const side *sd = &sides[k][j];
            if (!sd->ok)
                continue;
            double lo, hi, med = median_of(sd->ratio, SIDE_ROUNDS, &lo, &hi);
            bench_report_printf(rep, "| %s >= 0.97x bare C at %u bunnies, interleaved | %.3fx "
                                     "(%.3f-%.3f) | %s |\n",
                                config_names[side_configs[k]], side_counts[j], med, lo, hi,
                                yes_no(med >= 0.97));
        }
    for (int k = 0; k < SIDE_CONFIGS; k++) {
        config c = side_configs[k];
        if (small[c].ok && small[BARE_C].ok && small[BARE_C].no_gl_ns > 0)
            bench_report_printf(rep, "| %s CPU per sprite without GL <= 1.25x bare C | %.1f vs "
                                     "%.1f ns (%.2fx) | %s |\n",
                                config_names[c], small[c].no_gl_ns, small[BARE_C].no_gl_ns,
                                small[c].no_gl_ns / small[BARE_C].no_gl_ns,
                                yes_no(small[c].no_gl_ns <= 1.25 * small[BARE_C].no_gl_ns));
    }
    bench_report_printf(rep, "\nThe verdicts use the medians; the ranges are for reading them.\n\n");
    return bench_report_close(rep) == 0 ? 0 : 1;
}
