/*
 * options.c: the launcher's command line: the option table, the usage text, --version, and the
 * parsing of every option's value into an ona__launcher_options (launcher.h) for main.c to run.
 *
 * Design note. Arguments are read with getopt_long, which hands operands over in place (the "-"
 * mode), so options may come before or after the game whatever POSIXLY_CORRECT says; `--opt
 * value` and `--opt=value` both work, a unique prefix of a long option is accepted, and `--`
 * ends the options. The first other argument is the game; every one after it must be
 * key=value. Nothing is dropped or cut silently: more than MAX_PAIRS pairs and a path longer
 * than MAX_PATH_BYTES are usage errors, reported here with the option's name as the usage text
 * spells it (getopt's own messages are off). Nothing here touches the runtime except
 * --version, which asks ona/about.h and probes the GL driver.
 */
#include "launcher.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *to) {
    fprintf(to, "usage: ona <game-folder | game.ona | main.lua> [options] [key=value ...]\n"
                "       ona --version\n"
                "       ona console [IP:PORT | URL] [--token TOKEN]\n"
                "       ona pack <game-folder> -o <game.ona> [--fused]\n"
                "\n"
                "  <game-folder>      a folder whose main.lua spawns the game's systems\n"
                "  <game.ona>         a game packed by `ona pack` (one zip; hot reload off)\n"
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
                "  --sandbox          run every Lua system sandboxed (for a game you did not\n"
                "                     write): no io, ffi, debug, os but clock/time/date,\n"
                "                     bytecode, C modules or saves, and files only from the\n"
                "                     game folder. Without it a script has the whole Lua\n"
                "                     library and your rights: Ona is then no sandbox\n"
                "  --delivery MODE    ordered (default: the same game on any thread count,\n"
                "                     messages along `after` in the same frame) or immediate\n"
                "                     (messages at once, waits within a frame; not repeatable)\n"
                "  --memory-cap SIZE  cap of each Lua system's heap: bytes, or with K, M or G;\n"
                "                     none for no cap (default: an eighth of the RAM)\n"
                "  --fixed-dt SECONDS each frame advances the game by SECONDS (0.016667), or\n"
                "                     off for the measured time (default: main.lua's fixed_dt;\n"
                "                     else 1/60 headless or with --frames, measured in a window)\n"
                "  --fixed-step S     steady time: run the systems once per S seconds of wall\n"
                "                     time (1/60 or 0.016667), several times a frame if need\n"
                "                     be; ona.time.alpha() is the step left over, to draw\n"
                "                     between states (default: off, one dt per frame)\n"
                "  --max-steps N      with --fixed-step: at most N steps a frame, the rest of\n"
                "                     the time is dropped (default 5)\n"
                "  --max-fps N|off    at most N frames a second (default: main.lua's max_fps\n"
                "                     in a window, none headless); off: as fast as it runs,\n"
                "                     with vsync off unless --vsync on\n"
                "  --save-dir PATH    where ona.save writes (default: $XDG_DATA_HOME/ona/<game>\n"
                "                     or ~/.local/share/ona/<game>)\n"
                "  --record FILE      record the session's input and digests into FILE\n"
                "  --replay FILE      replay a recording (its game unless one is given); stops\n"
                "                     with exit status 1 where the game now does otherwise\n"
                "  --resimulate       with --replay: the current files play the recorded input;\n"
                "                     the first divergence is reported and the replay goes on\n"
                "  --max-systems N    how many systems may exist at once, 1 to 1048575\n"
                "                     (default 4096)\n"
                "  --seed N           the session's random seed, 0 to 2^53 - 1: every system's\n"
                "                     math.random and ona.random() follow from it (default 0,\n"
                "                     so every run draws the same numbers)\n"
                "  --inspect [IP:PORT] serve the inspector (page, JSON API, eval) on this\n"
                "                     address (default 127.0.0.1:9330; PORT 0 = any free port)\n"
                "  --inspect-token T  the inspector's token (default: random, printed at start)\n"
                "  --inspect-any      allow a non-loopback --inspect address\n"
                "  -v, --verbose      say more: -v info (the GL driver, the shader language),\n"
                "                     -vv debug too (default: warnings and errors only)\n"
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
    OPT_SANDBOX,
    OPT_FIXED_DT,
    OPT_MAX_FPS,
    OPT_SAVE_DIR,
    OPT_MAX_SYSTEMS,
    OPT_SEED,
    OPT_DELIVERY,
    OPT_RECORD,
    OPT_REPLAY,
    OPT_INSPECT,
    OPT_INSPECT_TOKEN,
    OPT_INSPECT_ANY,
    OPT_RESIMULATE,
    OPT_FIXED_STEP,
    OPT_MAX_STEPS,
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
    {"sandbox", no_argument, NULL, OPT_SANDBOX},
    {"fixed-dt", required_argument, NULL, OPT_FIXED_DT},
    {"max-fps", required_argument, NULL, OPT_MAX_FPS},
    {"save-dir", required_argument, NULL, OPT_SAVE_DIR},
    {"max-systems", required_argument, NULL, OPT_MAX_SYSTEMS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"delivery", required_argument, NULL, OPT_DELIVERY},
    {"record", required_argument, NULL, OPT_RECORD},
    {"replay", required_argument, NULL, OPT_REPLAY},
    {"inspect", optional_argument, NULL, OPT_INSPECT},
    {"inspect-token", required_argument, NULL, OPT_INSPECT_TOKEN},
    {"inspect-any", no_argument, NULL, OPT_INSPECT_ANY},
    {"resimulate", no_argument, NULL, OPT_RESIMULATE},
    {"fixed-step", required_argument, NULL, OPT_FIXED_STEP},
    {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
    {"verbose", no_argument, NULL, 'v'},
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
    case OPT_DELIVERY:
        return "ordered or immediate";
    case OPT_SCREENSHOT:
        return "a PNG path";
    case OPT_TRACE:
    case OPT_RECORD:
    case OPT_REPLAY:
        return "a file path";
    case OPT_MEMORY_CAP:
        return "a size such as 512M or 2G (at least 1M), or none";
    case OPT_FIXED_DT:
        return "seconds per frame, more than 0 and at most 1 (such as 1/60 or 0.016667), or off";
    case OPT_MAX_FPS:
        return "frames a second, from 1 to 10000, or off";
    case OPT_FIXED_STEP:
        return "seconds per step, more than 0 and at most 1, as a fraction or a decimal (1/60, "
               "0.016667)";
    case OPT_MAX_STEPS:
        return "steps a frame, from 1 to 1000";
    case OPT_SAVE_DIR:
        return "a folder path";
    case OPT_MAX_SYSTEMS:
        return "a number of systems from 1 to 1048575";
    case OPT_SEED:
        return "an integer from 0 to 9007199254740991 (2^53 - 1)";
    case OPT_INSPECT_TOKEN:
        return "a token of 8 to 64 characters (A-Z a-z 0-9 _ . -)";
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

/* Seconds in (0, 1] as a decimal or a fraction of two decimals ("1/60"). */
static bool parse_fixed_step(const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text)
        return false;
    if (*end == '/') {
        const char *den = end + 1;
        double d = strtod(den, &end);
        if (errno || end == den || !(d > 0))
            return false;
        v /= d;
    }
    if (*end != '\0' || !(v > 0 && v <= 1))
        return false;
    *out = v;
    return true;
}

/* "off", or seconds in (0, 1] as --fixed-step takes them. */
static bool parse_fixed_dt(const char *text, double *out) {
    if (strcmp(text, "off") == 0) {
        *out = ONA_DT_MEASURED;
        return true;
    }
    return parse_fixed_step(text, out);
}

static bool parse_long(const char *text, long min, long max, char **end, long *out) {
    errno = 0;
    long v = strtol(text, end, 10);
    if (errno || *end == text || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* A seed: decimal digits only, below 2^53 (so that a Lua number holds it exactly). */
static bool parse_seed(const char *text, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end != '\0' || v >= (1ull << 53))
        return false;
    *out = (uint64_t)v;
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

/* Looks like IP:PORT (digits and dots, a colon, digits): --inspect's value given as the next
 * argument rather than after '='. The runtime checks the address itself. */
static bool looks_like_address(const char *text) {
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || !colon[1])
        return false;
    for (const char *c = text; *c; c++)
        if (c != colon && !((*c >= '0' && *c <= '9') || (*c == '.' && c < colon)))
            return false;
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
static int add_operand(ona__launcher_options *o, const char *a) {
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

/* ona__launcher_parse_args (launcher.h). */
int ona__launcher_parse_args(int argc, char **argv, ona__launcher_options *o) {
    *o = (ona__launcher_options){
        .watch = true, .width = 1280, .height = 720, .vsync = ONA_VSYNC_ON, .turn_budget = -1};
    opterr = 0; /* the messages below name the option the way the usage text does */
    int c;
    /* "-" hands every operand over in place (as 1), so options may follow the game whatever
     * POSIXLY_CORRECT says; ":" makes a missing value ':' instead of '?'. */
    while ((c = getopt_long(argc, argv, "-:hv", long_options, NULL)) != -1) {
        switch (c) {
        case 1:
            if (add_operand(o, optarg) >= 0)
                return 2;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'v': /* -v, -vv, -v -v, --verbose */
            o->verbose++;
            break;
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
        case OPT_SANDBOX:
            o->sandbox = true;
            break;
        case OPT_INSPECT:
            /* `--inspect=ADDR`, `--inspect ADDR` (an address, not the game), or `--inspect`. */
            if (!optarg && optind < argc && looks_like_address(argv[optind]))
                optarg = argv[optind++];
            o->inspect = optarg ? optarg : ONA__LAUNCHER_INSPECT_DEFAULT;
            break;
        case OPT_INSPECT_TOKEN:
            o->inspect_token = optarg;
            break;
        case OPT_INSPECT_ANY:
            o->inspect_any = true;
            break;
        case OPT_RESIMULATE:
            o->resimulate = true;
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
        case OPT_FIXED_STEP:
            if (!parse_fixed_step(optarg, &o->fixed_step)) {
                fprintf(stderr, "ona: --fixed-step needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
        case OPT_MAX_STEPS: {
            long n;
            if (!parse_count(optarg, 1000, &n)) {
                fprintf(stderr, "ona: --max-steps needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            o->max_steps = (uint32_t)n;
            break;
        }
        case OPT_MAX_FPS: {
            long fps;
            if (strcmp(optarg, "off") == 0) {
                o->max_fps = ONA_MAX_FPS_OFF; /* and no vsync, unless --vsync on says */
                if (!o->vsync_given)
                    o->vsync = ONA_VSYNC_OFF;
                break;
            }
            if (!parse_count(optarg, 10000, &fps)) {
                fprintf(stderr, "ona: --max-fps needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            o->max_fps = (uint32_t)fps;
            break;
        }
        case OPT_MAX_SYSTEMS: {
            long n;
            if (!parse_count(optarg, (long)ONA_MAX_SYSTEMS, &n)) {
                fprintf(stderr, "ona: --max-systems needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            o->max_systems = (uint32_t)n;
            break;
        }
        case OPT_SEED:
            if (!parse_seed(optarg, &o->seed)) {
                fprintf(stderr, "ona: --seed needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            break;
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
            o->vsync_given = true;
            break;
        case OPT_DELIVERY:
            if (strcmp(optarg, "ordered") != 0 && strcmp(optarg, "immediate") != 0) {
                fprintf(stderr, "ona: --delivery needs %s, not '%s'\n", option_needs(c), optarg);
                return 2;
            }
            o->delivery =
                strcmp(optarg, "ordered") == 0 ? ONA_DELIVERY_ORDERED : ONA_DELIVERY_IMMEDIATE;
            break;
        case OPT_SCREENSHOT:
        case OPT_TRACE:
        case OPT_RECORD:
        case OPT_REPLAY: {
            char what[32];
            snprintf(what, sizeof what, "the --%s path", option_name(c));
            if (!path_fits(what, optarg))
                return 2;
            *(c == OPT_TRACE    ? &o->trace
              : c == OPT_RECORD ? &o->record
              : c == OPT_REPLAY ? &o->replay
                                : &o->screenshot) = optarg;
            break;
        }
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
    if (o->record && o->replay) {
        fprintf(stderr, "ona: --record and --replay cannot be used together\n");
        return 2;
    }
    if (o->resimulate && !o->replay) {
        fprintf(stderr, "ona: --resimulate needs --replay FILE\n");
        return 2;
    }
    if (!o->target && !o->replay) { /* a replay's recording names its game */
        usage(stderr);
        return 2;
    }
    if (o->max_steps && !o->fixed_step) {
        fprintf(stderr, "ona: --max-steps needs --fixed-step S\n");
        return 2;
    }
    if (o->screenshot && !o->frames) {
        fprintf(stderr, "ona: --screenshot needs --frames N (the frame to capture)\n");
        return 2;
    }
    return -1;
}
