/*
 * ona: the launcher. Runs a game folder (its main.lua spawns the systems) or a single script:
 *
 *   ona <game-folder | main.lua> [--headless] [--frames N] [--workers N] [--stats]
 *       [--turn-budget MS]
 *       [--size WxH] [--vsync on|off] [--screenshot out.png] [--no-watch] [--trace out.json]
 *       [--memory-cap SIZE|none] [--no-audio] [--fixed-dt SECONDS|off] [--max-fps N]
 *       [--save-dir PATH] [key=value ...]
 *
 * key=value pairs become the table main.lua receives as `...` (numbers where they parse).
 *   ona --version
 *
 * It is also the reference embedder: everything it does goes through ona/ona.h.
 *
 * Design note. Arguments are read with getopt_long, which hands operands over in place (the "-"
 * mode), so options may come before or after the game whatever POSIXLY_CORRECT says; `--opt
 * value` and `--opt=value` both work, a unique prefix of a long option is accepted, and `--`
 * ends the options. The first other argument is the game; every one after it must be
 * key=value. Nothing is dropped or cut silently: more than MAX_PAIRS pairs, a path longer than
 * MAX_PATH_BYTES (the runtime keeps paths in 1024-byte buffers, script root and "/main.lua"
 * included) and a screenshot that was asked for but not written are errors. Exit status: 0, 1
 * when the run failed (no runtime, main.lua did not start, screenshot or trace not written), 2
 * for a usage error, 128 + the signal when SIGINT or SIGTERM stopped it (the runtime handles
 * them, handle_signals: the first quits at the end of the frame, a second one or a frame still
 * running 2 s later ends the process at once, with the same status). This file reads the arguments
 * and runs the game; report.c writes the --stats reports and shot.c checks the screenshot
 * (launcher.h is what they share).
 */
#include "launcher.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *to) {
    fprintf(to, "usage: ona <game-folder | main.lua> [options] [key=value ...]\n"
                "       ona --version\n"
                "\n"
                "  <game-folder>      a folder whose main.lua spawns the game's systems\n"
                "  --headless         render offscreen, no window (automatic without a display)\n"
                "  --frames N         stop after N frames (default: run until ona.quit())\n"
                "  --workers N        threads running systems, main included (default: cores)\n"
                "  --turn-budget MS   interrupt a Lua system that runs MS ms without yielding\n"
                "                     (default 1000; 0 = never)\n"
                "  --size WxH         window size (default 1280x720)\n"
                "  --vsync on|off     wait for the display's refresh (default on)\n"
                "  --screenshot PATH  write the last frame to a PNG (with --frames N)\n"
                "  --stats            log statistics once a second, and a table at the end\n"
                "  --trace PATH       write a Chrome trace-event timeline (Perfetto)\n"
                "  --no-watch         do not hot-reload scripts, shaders and textures\n"
                "  --no-audio         never open an audio device (sounds play silently)\n"
                "  --memory-cap SIZE  cap of each Lua system's heap: bytes, or with K, M or G;\n"
                "                     none for no cap (default: an eighth of the RAM)\n"
                "  --fixed-dt SECONDS each frame advances the game by SECONDS (0.016667), or\n"
                "                     off for the measured time (default: main.lua's fixed_dt;\n"
                "                     else 1/60 headless or with --frames, measured in a window)\n"
                "  --max-fps N        at most N frames a second (default: main.lua's max_fps\n"
                "                     in a window, none headless)\n"
                "  --save-dir PATH    where ona.save writes (default: $XDG_DATA_HOME/ona/<game>\n"
                "                     or ~/.local/share/ona/<game>)\n"
                "  -h, --help         this text\n"
                "  --version          versions, and the OpenGL driver found\n"
                "  key=value          passed to main.lua as the table `...` (numbers parsed;\n"
                "                     at most 64 pairs)\n");
}

/* Prints the versions and probes the GL driver (ona/about.h); fails when there is no GL 4.5. */
static int print_version(void) {
    char text[2048];
    int rc = ona_about(text, sizeof text);
    fputs(text, stdout);
    if (rc) {
        fprintf(stderr, "ona: %s\n", ona_strerror(rc));
        return 1;
    }
    rc = ona_video_probe(text, sizeof text);
    if (rc == 0 || rc == ONA_ERANGE)
        fputs(text, stdout);
    if (rc) {
        fprintf(stderr, "ona: %s\n", rc != ONA_ERANGE && text[0] ? text : ona_strerror(rc));
        return 1;
    }
    return 0;
}

/* --- Arguments ------------------------------------------------------------------------------- */

typedef struct options {
    const char *target, *screenshot, *trace, *save_dir;
    const char *pairs[MAX_PAIRS];
    int pair_count;
    long frames, workers, turn_budget; /* turn_budget: -1 = the runtime's */
    size_t memory_cap;                 /* 0 = the runtime's default */
    bool stats, headless, watch;
    bool no_audio; /* issue 10 */
    int width, height;
    ona_vsync vsync;
    double fixed_dt;  /* 0 = the runtime's rules; ONA_DT_MEASURED for "off" */
    uint32_t max_fps; /* 0 = the runtime's rules */
} options;

/* Long options without a short form get values past any character. */
enum {
    OPT_VERSION = 256,
    OPT_HEADLESS,
    OPT_FRAMES,
    OPT_WORKERS,
    OPT_SIZE,
    OPT_VSYNC,
    OPT_SCREENSHOT,
    OPT_STATS,
    OPT_TRACE,
    OPT_NO_WATCH,
    OPT_MEMORY_CAP,
    OPT_TURN_BUDGET,
    OPT_NO_AUDIO,
    OPT_FIXED_DT,
    OPT_MAX_FPS,
    OPT_SAVE_DIR,
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {"headless", no_argument, NULL, OPT_HEADLESS},
    {"frames", required_argument, NULL, OPT_FRAMES},
    {"workers", required_argument, NULL, OPT_WORKERS},
    {"size", required_argument, NULL, OPT_SIZE},
    {"vsync", required_argument, NULL, OPT_VSYNC},
    {"screenshot", required_argument, NULL, OPT_SCREENSHOT},
    {"stats", no_argument, NULL, OPT_STATS},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"no-watch", no_argument, NULL, OPT_NO_WATCH},
    {"memory-cap", required_argument, NULL, OPT_MEMORY_CAP},
    {"turn-budget", required_argument, NULL, OPT_TURN_BUDGET},
    {"no-audio", no_argument, NULL, OPT_NO_AUDIO},
    {"fixed-dt", required_argument, NULL, OPT_FIXED_DT},
    {"max-fps", required_argument, NULL, OPT_MAX_FPS},
    {"save-dir", required_argument, NULL, OPT_SAVE_DIR},
    {NULL, 0, NULL, 0},
};

static const char *option_name(int val) {
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == val)
            return o->name;
    return "?";
}

/* What an option's value must look like, for the message when it is missing or wrong. */
static const char *option_needs(int val) {
    switch (val) {
    case OPT_FRAMES:
        return "a positive number (at most 1000000000)";
    case OPT_WORKERS:
        return "a positive number (at most 256)";
    case OPT_TURN_BUDGET:
        return "milliseconds (0 = no budget, at most 3600000)";
    case OPT_SIZE:
        return "WIDTHxHEIGHT, such as 1280x720 (16 to 16384 each)";
    case OPT_VSYNC:
        return "on or off";
    case OPT_SCREENSHOT:
        return "a PNG path";
    case OPT_TRACE:
        return "a file path";
    case OPT_MEMORY_CAP:
        return "a size such as 512M or 2G (at least 1M), or none";
    case OPT_FIXED_DT:
        return "seconds per frame, more than 0 and at most 1 (such as 0.016667), or off";
    case OPT_MAX_FPS:
        return "frames a second, from 1 to 10000";
    case OPT_SAVE_DIR:
        return "a folder path";
    default:
        return "a value";
    }
}

/* "none", or a byte count with an optional K, M or G (powers of 1024), at least 1 MiB. */
static bool parse_memory_cap(const char *text, size_t *out) {
    if (strcmp(text, "none") == 0) {
        *out = ONA_MEMORY_UNCAPPED;
        return true;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (end == text || errno || text[0] == '-')
        return false;
    int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (*end != '\0' || n > (SIZE_MAX >> shift) - 1 || (n << shift) < (1u << 20))
        return false;
    *out = (size_t)(n << shift);
    return true;
}

/* "off", or seconds in (0, 1]. */
static bool parse_fixed_dt(const char *text, double *out) {
    if (strcmp(text, "off") == 0) {
        *out = ONA_DT_MEASURED;
        return true;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !(v > 0 && v <= 1))
        return false;
    *out = v;
    return true;
}

static bool parse_long(const char *text, long min, long max, char **end, long *out) {
    errno = 0;
    long v = strtol(text, end, 10);
    if (errno || *end == text || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static bool parse_count(const char *text, long max, long *out) {
    char *end;
    return parse_long(text, 1, max, &end, out) && *end == '\0';
}

static bool parse_size(const char *text, int *width, int *height) {
    char *end;
    long w, h;
    if (!parse_long(text, 16, 16384, &end, &w) || *end != 'x' ||
        !parse_long(end + 1, 16, 16384, &end, &h) || *end != '\0')
        return false;
    *width = (int)w;
    *height = (int)h;
    return true;
}

/* A path the runtime can hold; else says which argument is too long. */
static bool path_fits(const char *what, const char *path) {
    size_t n = strlen(path);
    if (n == 0) {
        fprintf(stderr, "ona: %s is an empty path\n", what);
        return false;
    }
    if (n <= MAX_PATH_BYTES)
        return true;
    fprintf(stderr, "ona: %s is too long (%zu bytes, at most %d): '%.60s...'\n", what, n,
            MAX_PATH_BYTES, path);
    return false;
}

/* Takes an argument that is not an option: the first is the game, every later one a key=value
 * pair (counted past MAX_PAIRS, kept up to it, so that the error can say how many there were).
 * Returns -1, or 2 after reporting a usage error. */
static int add_operand(options *o, const char *a) {
    if (!o->target) {
        o->target = a;
        return path_fits("the game path", a) ? -1 : 2;
    }
    if (!strchr(a, '=')) {
        fprintf(stderr, "ona: only one game folder or script, got '%s' and '%s'\n", o->target, a);
        return 2;
    }
    if (a[0] == '=') {
        fprintf(stderr, "ona: '%s' has no key before the '='\n", a);
        return 2;
    }
    if (o->pair_count < MAX_PAIRS)
        o->pairs[o->pair_count] = a;
    o->pair_count++;
    return -1;
}

/* Reads the command line into `o`. Returns -1 to go on and run, or the exit status: 0 after
 * --help or --version, 1 when --version found no GL, 2 for a usage error (already reported). */
static int parse_args(int argc, char **argv, options *o) {
    *o = (options){
        .watch = true, .width = 1280, .height = 720, .vsync = ONA_VSYNC_ON, .turn_budget = -1};
    opterr = 0; /* the messages below name the option the way the usage text does */
    int c;
    /* "-" hands every operand over in place (as 1), so options may follow the game whatever
     * POSIXLY_CORRECT says; ":" makes a missing value ':' instead of '?'. */
    while ((c = getopt_long(argc, argv, "-:h", long_options, NULL)) != -1) {
        switch (c) {
        case 1:
            if (add_operand(o, optarg) >= 0)
                return 2;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case OPT_VERSION:
            return print_version();
        case OPT_HEADLESS:
            o->headless = true;
            break;
        case OPT_STATS:
            o->stats = true;
            break;
        case OPT_NO_WATCH:
            o->watch = false;
            break;
        case OPT_NO_AUDIO:
            o->no_audio = true;
            break;
        case OPT_FRAMES:
        case OPT_WORKERS:
            if (!parse_count(optarg, c == OPT_FRAMES ? 1000000000L : 256,
                             c == OPT_FRAMES ? &o->frames : &o->workers)) {
                fprintf(stderr, "ona: --%s needs %s, not '%s'\n", option_name(c), option_needs(c),
                        optarg);
                return 2;
            }
            break;
        case OPT_MEMORY_CAP:
            if (!parse_memory_cap(optarg, &o->memory_cap)) {
                fprintf(stderr, "ona: --memory-cap needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
        case OPT_TURN_BUDGET: {
            char *end;
            if (!parse_long(optarg, 0, 3600000L, &end, &o->turn_budget) || *end != '\0') {
                fprintf(stderr, "ona: --turn-budget needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
        }
        case OPT_FIXED_DT:
            if (!parse_fixed_dt(optarg, &o->fixed_dt)) {
                fprintf(stderr, "ona: --fixed-dt needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
        case OPT_MAX_FPS: {
            long fps;
            if (!parse_count(optarg, 10000, &fps)) {
                fprintf(stderr, "ona: --max-fps needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            o->max_fps = (uint32_t)fps;
            break;
        }
        case OPT_SAVE_DIR:
            if (!path_fits("the --save-dir path", optarg))
                return 2;
            o->save_dir = optarg;
            break;
        case OPT_SIZE:
            if (!parse_size(optarg, &o->width, &o->height)) {
                fprintf(stderr, "ona: --size needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
        case OPT_VSYNC:
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
                fprintf(stderr, "ona: --vsync needs on or off, not '%s'\n", optarg);
                return 2;
            }
            o->vsync = strcmp(optarg, "on") == 0 ? ONA_VSYNC_ON : ONA_VSYNC_OFF;
            break;
        case OPT_SCREENSHOT:
        case OPT_TRACE:
            if (!path_fits(c == OPT_TRACE ? "the --trace path" : "the --screenshot path", optarg))
                return 2;
            *(c == OPT_TRACE ? &o->trace : &o->screenshot) = optarg;
            break;
        case ':':
            fprintf(stderr, "ona: --%s needs %s\n", option_name(optopt), option_needs(optopt));
            return 2;
        default: /* '?': unknown, ambiguous, or a value given to an option that takes none */
            if (optopt >= OPT_VERSION)
                fprintf(stderr, "ona: --%s takes no value\n", option_name(optopt));
            else if (optopt)
                fprintf(stderr, "ona: unknown option '-%c'\n", optopt);
            else
                fprintf(stderr, "ona: unknown or ambiguous option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    /* getopt_long stops at "--" and leaves what follows it: operands, even when they start
     * with '-'. */
    for (; optind < argc; optind++)
        if (add_operand(o, argv[optind]) >= 0)
            return 2;
    if (o->pair_count > MAX_PAIRS) {
        fprintf(stderr, "ona: too many key=value arguments: %d (at most %d)\n", o->pair_count,
                MAX_PAIRS);
        return 2;
    }
    if (!o->target) {
        usage(stderr);
        return 2;
    }
    if (o->screenshot && !o->frames) {
        fprintf(stderr, "ona: --screenshot needs --frames N (the frame to capture)\n");
        return 2;
    }
    return -1;
}

/* --- The run ---------------------------------------------------------------------------------- */

/* The launcher's own frame loop, as an embedder would write it: the runtime's time rules
 * (ona_runtime_frame_dt: the fixed step or the measured time, and the frame cap), the
 * screenshot asked for before the last frame, and with --stats a report once a second. */
static int run_loop(ona_runtime *rt, long frames, const char *screenshot, bool stats,
                    ona__launcher_shot *s) {
    ona__launcher_stats *p = stats ? ona__launcher_stats_begin() : NULL;
    int rc = 0;
    long n = 0;
    for (; frames == 0 || n < frames; n++) {
        if (ona_runtime_quit_requested(rt))
            break;
        ona_runtime_stats rs;
        ona_runtime_stats_get(rt, &rs);
        if (n > 0 && rs.systems == 0) {
            fprintf(stderr, "ona: no system is left running\n");
            break;
        }
        if (screenshot && n == frames - 1) {
            s->requested = true;
            s->rc = ona_runtime_screenshot(rt, screenshot);
        }
        rc = ona_runtime_step(rt, ona_runtime_frame_dt(rt));
        if (rc)
            break;
        if (p)
            ona__launcher_stats_frame(rt, p);
    }
    s->frames_run = n;
    ona__launcher_stats_end(p);
    return rc;
}

/* --- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    options o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    if (o.screenshot && !ona__launcher_shot_path_usable(o.screenshot))
        return 1;

    /* A folder runs its main.lua with the folder as the script root; a file runs itself with its
     * folder as the root. */
    char root[MAX_PATH_BYTES + 1], script[MAX_PATH_BYTES + 1];
    struct stat st;
    if (stat(o.target, &st) != 0) {
        fprintf(stderr, "ona: no such game folder or script '%s'\n", o.target);
        return 1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(root, sizeof root, "%s", o.target);
        /* "games/pong/" names the folder "pong" (the window title and the default screenshot). */
        for (size_t n = strlen(root); n > 1 && root[n - 1] == '/'; n--)
            root[n - 1] = '\0';
        snprintf(script, sizeof script, "main.lua");
        char main_path[MAX_PATH_BYTES + 16];
        snprintf(main_path, sizeof main_path, "%s/main.lua", root);
        if (stat(main_path, &st) != 0) {
            fprintf(stderr,
                    "ona: '%s' has no main.lua. Create one that spawns your systems, e.g.\n"
                    "  echo 'ona.spawn(\"player.lua\")' > %s/main.lua\n",
                    o.target, root);
            return 1;
        }
    } else {
        const char *slash = strrchr(o.target, '/');
        if (slash == o.target) {
            snprintf(root, sizeof root, "/");
            snprintf(script, sizeof script, "%s", slash + 1);
        } else if (slash) {
            snprintf(root, sizeof root, "%.*s", (int)(slash - o.target), o.target);
            snprintf(script, sizeof script, "%s", slash + 1);
        } else {
            snprintf(root, sizeof root, ".");
            snprintf(script, sizeof script, "%s", o.target);
        }
    }

    const char *roots[] = {root, NULL};
    const char *title = strrchr(root, '/') && root[1] ? strrchr(root, '/') + 1 : root;
    /* The save folder is named after the game folder (a script's own folder for a script), in
     * the characters a save name may use. */
    char game_id[65];
    char resolved_root[4096];
    const char *id_from = title;
    if ((strcmp(title, ".") == 0 || strcmp(title, "..") == 0) && realpath(root, resolved_root))
        id_from = strrchr(resolved_root, '/')[1] ? strrchr(resolved_root, '/') + 1 : "ona";
    size_t id_len = 0;
    for (const char *c = id_from; *c && id_len < sizeof game_id - 1; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-';
        game_id[id_len++] = ok ? *c : '_';
    }
    game_id[id_len] = '\0';
    if (id_len == 0 || strcmp(game_id, ".") == 0 || strcmp(game_id, "..") == 0)
        snprintf(game_id, sizeof game_id, "ona");
    ona_runtime_desc desc = {
        .threads = (uint32_t)o.workers,
        .memory_cap = o.memory_cap,
        .script_roots = roots,
        .hot_reload = o.watch,
        .handle_signals = true,
        .no_audio = o.no_audio,
        .fixed_dt = o.fixed_dt,
        .max_fps = o.max_fps,
        /* A run of a set number of frames is a recording: the fixed step, as headless. */
        .fixed_step_default = o.frames > 0,
        .game_id = game_id,
        .save_dir = o.save_dir,
        .turn_budget_ms = o.turn_budget < 0    ? 0
                          : o.turn_budget == 0 ? ONA_BUDGET_OFF
                                               : (uint32_t)o.turn_budget,
        .video = o.headless ? ONA_VIDEO_OFFSCREEN : ONA_VIDEO_WINDOW,
        .window = {.title = title,
                   .width = o.width,
                   .height = o.height,
                   .vsync = o.vsync,
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
    for (int i = 0; i < o.pair_count; i++) {
        const char *eq = strchr(o.pairs[i], '=');
        ona_message_write_string(&w, o.pairs[i], (size_t)(eq - o.pairs[i]));
        char *end;
        double number = strtod(eq + 1, &end);
        if (eq[1] && *end == '\0')
            ona_message_write_number(&w, number);
        else
            ona_message_write_string(&w, eq + 1, strlen(eq + 1));
    }
    ona_message_write_table_end(&w);
    rc = ona_message_writer_end(&w);
    if (rc) {
        fprintf(stderr, "ona: the key=value arguments do not fit in a message: %s\n",
                ona_strerror(rc));
        ona_message_release(&args);
        ona_runtime_destroy(rt);
        return 2;
    }
    ona_spawn_desc main_desc = {.script = script, .name = "main", .args = &args};
    ona_system main_system;
    rc = ona_runtime_spawn(rt, &main_desc, &main_system);
    if (rc) {
        fprintf(stderr, "ona: %s/%s did not start (%s); fix the error above and run again\n", root,
                script, ona_strerror(rc));
        ona_runtime_destroy(rt);
        return 1;
    }
    /* Without a display the game runs offscreen, where nobody can see it or close it: unless
     * told otherwise, run 300 frames and leave a screenshot to look at. Only a screenshot asked
     * for with --screenshot fails the run when it is not written. */
    const char *screenshot = o.screenshot;
    char auto_shot[MAX_PATH_BYTES + 32];
    if (!o.frames && ona_runtime_video_mode(rt) == ONA_VIDEO_OFFSCREEN && !o.headless) {
        o.frames = 300;
        if (!screenshot) {
            snprintf(auto_shot, sizeof auto_shot, "%s-screenshot.png",
                     title[0] && strcmp(title, ".") != 0 && strcmp(title, "/") != 0 ? title
                                                                                    : "ona");
            screenshot = auto_shot;
        }
        fprintf(stderr, "ona: no display: running %ld frames offscreen, then writing %s\n",
                o.frames, screenshot);
    }
    if (o.trace && ona_runtime_trace_begin(rt, o.trace) != 0) {
        fprintf(stderr, "ona: cannot write the trace to '%s'\n", o.trace);
        ona_runtime_destroy(rt);
        return 1;
    }
    ona__launcher_file_before before =
        screenshot ? ona__launcher_file_before_get(screenshot) : (ona__launcher_file_before){0};
    ona__launcher_shot s = {0};
    rc = run_loop(rt, o.frames, screenshot, o.stats, &s);
    int exit_status = 0;
    if (o.trace) {
        if (ona_runtime_trace_end(rt) == 0) {
            fprintf(stderr, "ona: trace written to %s (open it in https://ui.perfetto.dev)\n",
                    o.trace);
        } else {
            fprintf(stderr, "ona: the trace was not written to '%s'\n", o.trace);
            exit_status = 1;
        }
    }
    if (o.stats)
        ona__launcher_stats_print(rt);
    /* A stop asked for by a signal is not a success: the shell's convention, 128 + signal. */
    int sig = ona_runtime_stop_signal(rt);
    ona_runtime_destroy(rt);
    if (rc) {
        fprintf(stderr, "ona: %s\n", ona_strerror(rc));
        exit_status = 1;
    }
    if (sig) {
        fprintf(stderr, "ona: stopped by signal %d after %ld frames\n", sig, s.frames_run);
        return 128 + sig;
    }
    if (screenshot && !ona__launcher_shot_check(screenshot, o.frames, &s, &before) && o.screenshot)
        exit_status = 1;
    return exit_status;
}
