/*
 * ona: the launcher. Runs a game folder (its main.lua spawns the systems) or a single script:
 *
 *   ona <game-folder | main.lua> [--headless] [--frames N] [--workers N] [--stats]
 *       [--size WxH] [--vsync on|off] [--screenshot out.png] [--no-watch] [--trace out.json]
 *       [key=value ...]
 *
 * key=value pairs become the table main.lua receives as `...` (numbers where they parse).
 *   ona --version
 *
 * It is also the reference embedder: everything it does goes through ona/ona.h.
 */
#include "ona/ona.h"

#include <GL/glew.h>
#include <SDL.h>
#include <errno.h>
#include <luajit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <uv.h>

static void usage(FILE *to) {
    fprintf(to, "usage: ona <game-folder | main.lua> [options]\n"
                "       ona --version\n"
                "\n"
                "  <game-folder>      a folder whose main.lua spawns the game's systems\n"
                "  --headless         render offscreen, no window (automatic without a display)\n"
                "  --frames N         stop after N frames (default: run until ona.quit())\n"
                "  --workers N        threads running systems, main included (default: cores)\n"
                "  --size WxH         window size (default 1280x720)\n"
                "  --vsync on|off     wait for the display's refresh (default on)\n"
                "  --screenshot PATH  write the last frame to a PNG (with --frames N)\n"
                "  --stats            log statistics once a second, and a table at the end\n"
                "  --trace PATH       write a Chrome trace-event timeline (Perfetto)\n"
                "  --no-watch         do not hot-reload scripts, shaders and textures\n"
                "  key=value          passed to main.lua as the table `...` (numbers parsed)\n");
}

/* Creates a hidden GL 4.6 (else 4.5) core context and prints its renderer. Uses SDL's offscreen
 * (EGL) driver when no display is set, so it works on a headless CI machine. */
static int report_gl(void) {
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER"))
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "ona: SDL_Init failed: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window *window = NULL;
    SDL_GLContext context = NULL;
    static const int minors[] = {6, 5};
    for (size_t i = 0; i < 2 && !context; i++) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minors[i]);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        window = SDL_CreateWindow("ona", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 64, 64,
                                  SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
        if (window)
            context = SDL_GL_CreateContext(window);
        if (!context && window) {
            SDL_DestroyWindow(window);
            window = NULL;
        }
    }
    if (!context) {
        fprintf(stderr, "ona: no OpenGL 4.5+ core context: %s\n", SDL_GetError());
        SDL_Quit();
        return 1;
    }
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    /* On EGL, GLEW reports NO_GLX_DISPLAY although every entry point loaded. */
    if (glew != GLEW_OK && glew != GLEW_ERROR_NO_GLX_DISPLAY)
        fprintf(stderr, "ona: glewInit: %s\n", glewGetErrorString(glew));
    printf("video      %s\n", SDL_GetCurrentVideoDriver());
    printf("GL         %s\n", (const char *)glGetString(GL_VERSION));
    printf("renderer   %s\n", (const char *)glGetString(GL_RENDERER));
    SDL_GL_DeleteContext(context);
    SDL_DestroyWindow(window);
    SDL_Quit();
    return 0;
}

static int print_version(void) {
    SDL_version sdl;
    SDL_GetVersion(&sdl);
    printf("ona        %s (%s)\n", ona_version(), ona_build_type());
    printf("LuaJIT     %s\n", LUAJIT_VERSION);
    printf("libuv      %s\n", uv_version_string());
    printf("SDL        %d.%d.%d\n", sdl.major, sdl.minor, sdl.patch);
    return report_gl();
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

enum { MAX_REPORTED = 256, MAX_PERIOD_FRAMES = 8192 };

/* What --stats remembers between two reports. */
typedef struct period {
    double frame_ms[MAX_PERIOD_FRAMES];
    int frames;
    uint64_t started_ns;
    ona_system_stats last[MAX_REPORTED];
    uint32_t last_count;
} period;

static const ona_system_stats *previous(const period *p, ona_system h) {
    for (uint32_t i = 0; i < p->last_count; i++)
        if (p->last[i].handle.id == h.id)
            return &p->last[i];
    return NULL;
}

/* Logs the last second: frame time percentiles, and per system its turns, turn time,
 * messages in and out, mailbox high-water mark and memory. */
static void report_period(ona_runtime *rt, period *p) {
    double seconds = (double)(now_ns() - p->started_ns) / 1e9;
    if (p->frames > 0) {
        qsort(p->frame_ms, (size_t)p->frames, sizeof p->frame_ms[0], cmp_double);
        int n = p->frames;
        ona_log(ONA_LOG_INFO, "stats",
                "%d frames in %.2f s: frame ms p50 %.2f  p90 %.2f  p99 %.2f  max %.2f", n,
                seconds, p->frame_ms[n / 2], p->frame_ms[(n * 9) / 10], p->frame_ms[(n * 99) / 100],
                p->frame_ms[n - 1]);
    }
    ona_system list[MAX_REPORTED];
    uint32_t n = ona_runtime_systems(rt, list, MAX_REPORTED);
    n = n < MAX_REPORTED ? n : MAX_REPORTED;
    ona_system_stats now[MAX_REPORTED];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        ona_system_stats *st = &now[kept];
        if (ona_runtime_system_stats(rt, list[i], st) != 0 || st->status == ONA_SYSTEM_STOPPED)
            continue;
        kept++;
        const ona_system_stats *was = previous(p, list[i]);
        uint64_t turns = st->turns - (was ? was->turns : 0);
        uint64_t busy = st->turn_ns_total - (was ? was->turn_ns_total : 0);
        ona_log(ONA_LOG_INFO, "stats",
                "  %-16s %5llu turns %8.1f us/turn  in %6llu  out %6llu  mailbox hw %u/%u  "
                "%.0f KB",
                st->name, (unsigned long long)turns, turns ? (double)busy / (double)turns / 1e3 : 0.0,
                (unsigned long long)(st->messages_in - (was ? was->messages_in : 0)),
                (unsigned long long)(st->messages_out - (was ? was->messages_out : 0)),
                st->mailbox_high_water, st->mailbox_capacity, (double)st->memory / 1024.0);
    }
    memcpy(p->last, now, kept * sizeof now[0]);
    p->last_count = kept;
    p->frames = 0;
    p->started_ns = now_ns();
}

/* The launcher's own frame loop, as an embedder would write it: measured dt, the screenshot
 * asked for before the last frame, and with --stats a report once a second. */
static int run_loop(ona_runtime *rt, long frames, const char *screenshot, bool stats) {
    period *p = stats ? calloc(1, sizeof *p) : NULL;
    if (p)
        p->started_ns = now_ns();
    uint64_t last = now_ns();
    int rc = 0;
    for (long n = 0; frames == 0 || n < frames; n++) {
        if (ona_runtime_quit_requested(rt))
            break;
        ona_runtime_stats rs;
        ona_runtime_stats_get(rt, &rs);
        if (n > 0 && rs.systems == 0) {
            fprintf(stderr, "ona: no system is left running\n");
            break;
        }
        if (screenshot && n == frames - 1 && ona_runtime_screenshot(rt, screenshot) != 0)
            fprintf(stderr, "ona: no video, so no screenshot\n");
        uint64_t t = now_ns();
        double dt = n == 0 ? 1.0 / 60 : (double)(t - last) / 1e9;
        last = t;
        rc = ona_runtime_step(rt, dt);
        if (rc)
            break;
        if (p) {
            ona_runtime_stats_get(rt, &rs);
            if (p->frames < MAX_PERIOD_FRAMES)
                p->frame_ms[p->frames++] = (double)rs.last_frame_ns / 1e6;
            if (now_ns() - p->started_ns >= 1000000000ull)
                report_period(rt, p);
        }
    }
    free(p);
    return rc;
}

static bool parse_count(const char *text, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

static void print_stats(ona_runtime *rt) {
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    printf("\n%llu frames, mean %.3f ms, max %.3f ms; %u threads; %llu messages; %llu turns; "
           "%llu steals\n",
           (unsigned long long)rs.frames,
           rs.frames ? (double)rs.total_frame_ns / (double)rs.frames / 1e6 : 0.0,
           (double)rs.max_frame_ns / 1e6, rs.threads, (unsigned long long)rs.messages,
           (unsigned long long)rs.turns, (unsigned long long)rs.steals);
    printf("%-16s %-10s %8s %10s %8s %8s %10s %10s %10s\n", "system", "status", "turns",
           "turn us", "parks", "in", "out", "mailbox hw", "memory KB");
    ona_system list[256];
    uint32_t n = ona_runtime_systems(rt, list, 256);
    for (uint32_t i = 0; i < n && i < 256; i++) {
        ona_system_stats st;
        if (ona_runtime_system_stats(rt, list[i], &st) != 0)
            continue;
        static const char *const status[] = {"running", "restarting", "stopped"};
        printf("%-16s %-10s %8llu %10.1f %8llu %8llu %10llu %5u/%-4u %10.1f\n", st.name,
               status[st.status], (unsigned long long)st.turns,
               st.turns ? (double)st.turn_ns_total / (double)st.turns / 1e3 : 0.0,
               (unsigned long long)st.parks, (unsigned long long)st.messages_in,
               (unsigned long long)st.messages_out, st.mailbox_high_water, st.mailbox_capacity,
               (double)st.memory / 1024.0);
    }
}

int main(int argc, char **argv) {
    const char *target = NULL, *screenshot = NULL, *trace = NULL;
    bool watch = true;
    const char *pairs[64];
    int pair_count = 0;
    long frames = 0, workers = 0;
    bool stats = false, headless = false;
    int width = 1280, height = 720;
    ona_vsync vsync = ONA_VSYNC_ON;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            return print_version();
        } else if (strcmp(a, "--headless") == 0) {
            headless = true;
        } else if (strcmp(a, "--size") == 0) {
            char extra;
            if (i + 1 >= argc || sscanf(argv[i + 1], "%dx%d%c", &width, &height, &extra) != 2 ||
                width < 16 || height < 16 || width > 16384 || height > 16384) {
                fprintf(stderr, "ona: --size needs WIDTHxHEIGHT, such as 1280x720\n");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--vsync") == 0) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "on") && strcmp(argv[i + 1], "off"))) {
                fprintf(stderr, "ona: --vsync needs on or off\n");
                return 2;
            }
            vsync = strcmp(argv[++i], "on") == 0 ? ONA_VSYNC_ON : ONA_VSYNC_OFF;
        } else if (strcmp(a, "--screenshot") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ona: --screenshot needs a PNG path\n");
                return 2;
            }
            screenshot = argv[++i];
        } else if (strcmp(a, "--no-watch") == 0) {
            watch = false;
        } else if (strcmp(a, "--trace") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ona: --trace needs a file path\n");
                return 2;
            }
            trace = argv[++i];
        } else if (strcmp(a, "--stats") == 0) {
            stats = true;
        } else if (strcmp(a, "--frames") == 0 || strcmp(a, "--workers") == 0) {
            long *dst = a[2] == 'f' ? &frames : &workers;
            if (i + 1 >= argc || !parse_count(argv[i + 1], a[2] == 'f' ? 1000000000L : 256, dst)) {
                fprintf(stderr, "ona: %s needs a positive number\n", a);
                return 2;
            }
            i++;
        } else if (strchr(a, '=') && target) {
            if (pair_count < 64)
                pairs[pair_count++] = a;
        } else if (a[0] == '-') {
            fprintf(stderr, "ona: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (!target) {
            target = a;
        } else {
            fprintf(stderr, "ona: only one game folder or script, got '%s' and '%s'\n", target, a);
            return 2;
        }
    }
    if (!target) {
        usage(stderr);
        return 2;
    }
    if (screenshot && !frames) {
        fprintf(stderr, "ona: --screenshot needs --frames N (the frame to capture)\n");
        return 2;
    }

    /* A folder runs its main.lua with the folder as the script root; a file runs itself with its
     * folder as the root. */
    char root[1024], script[1024];
    struct stat st;
    if (stat(target, &st) != 0) {
        fprintf(stderr, "ona: no such game folder or script '%s'\n", target);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(root, sizeof root, "%s", target);
        snprintf(script, sizeof script, "main.lua");
        char main_path[2048];
        snprintf(main_path, sizeof main_path, "%s/main.lua", target);
        if (stat(main_path, &st) != 0) {
            fprintf(stderr,
                    "ona: '%s' has no main.lua. Create one that spawns your systems, e.g.\n"
                    "  echo 'ona.spawn(\"player.lua\")' > %s/main.lua\n",
                    target, target);
            return 1;
        }
    } else {
        const char *slash = strrchr(target, '/');
        if (slash) {
            snprintf(root, sizeof root, "%.*s", (int)(slash - target), target);
            snprintf(script, sizeof script, "%s", slash + 1);
        } else {
            snprintf(root, sizeof root, ".");
            snprintf(script, sizeof script, "%s", target);
        }
    }

    const char *roots[] = {root, NULL};
    const char *title = strrchr(root, '/') ? strrchr(root, '/') + 1 : root;
    ona_runtime_desc desc = {
        .threads = (uint32_t)workers,
        .script_roots = roots,
        .hot_reload = watch,
        .video = headless ? ONA_VIDEO_OFFSCREEN : ONA_VIDEO_WINDOW,
        .window = {.title = title, .width = width, .height = height, .vsync = vsync,
                   .resizable = true},
    };
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc == ONA_EGFX) {
        fprintf(stderr, "ona: no OpenGL 4.5 available; running without video\n");
        desc.video = ONA_VIDEO_NONE;
        rc = ona_runtime_create(&desc, &rt);
    }
    if (rc) {
        fprintf(stderr, "ona: cannot create the runtime: %s\n", ona_strerror(rc));
        return 1;
    }
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    for (int i = 0; i < pair_count; i++) {
        const char *eq = strchr(pairs[i], '=');
        ona_message_write_string(&w, pairs[i], (size_t)(eq - pairs[i]));
        char *end;
        double number = strtod(eq + 1, &end);
        if (eq[1] && *end == '\0')
            ona_message_write_number(&w, number);
        else
            ona_message_write_string(&w, eq + 1, strlen(eq + 1));
    }
    ona_message_write_table_end(&w);
    if (ona_message_writer_end(&w) != 0) {
        fprintf(stderr, "ona: the key=value arguments do not fit in a message\n");
        ona_runtime_destroy(rt);
        return 2;
    }
    ona_spawn_desc main_desc = {.script = script, .name = "main", .args = &args};
    ona_system main_system;
    rc = ona_runtime_spawn(rt, &main_desc, &main_system);
    if (rc) {
        fprintf(stderr, "ona: %s/%s did not start (%s); fix the error above and run again\n",
                root, script, ona_strerror(rc));
        ona_runtime_destroy(rt);
        return 1;
    }
    /* Without a display the game runs offscreen, where nobody can see it or close it: unless
     * told otherwise, run 300 frames and leave a screenshot to look at. */
    char auto_shot[1100];
    if (!frames && ona_runtime_video_mode(rt) == ONA_VIDEO_OFFSCREEN && !headless) {
        frames = 300;
        if (!screenshot) {
            snprintf(auto_shot, sizeof auto_shot, "%s-screenshot.png",
                     title[0] && strcmp(title, ".") != 0 ? title : "ona");
            screenshot = auto_shot;
        }
        fprintf(stderr, "ona: no display: running %ld frames offscreen, then writing %s\n",
                frames, screenshot);
    }
    if (trace && ona_runtime_trace_begin(rt, trace) != 0)
        fprintf(stderr, "ona: cannot write the trace to %s\n", trace);
    rc = run_loop(rt, frames, screenshot, stats);
    if (trace && ona_runtime_trace_end(rt) == 0)
        fprintf(stderr, "ona: trace written to %s (open it in https://ui.perfetto.dev)\n", trace);
    if (stats)
        print_stats(rt);
    ona_runtime_destroy(rt);
    if (rc) {
        fprintf(stderr, "ona: %s\n", ona_strerror(rc));
        return 1;
    }
    return 0;
}
