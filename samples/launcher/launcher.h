/*
 * The launcher's private header: what main.c (the run), options.c (the command line), report.c
 * (the --stats reports) and shot.c (the screenshot checks) share. Internal to the `ona` launcher;
 * like the rest of it, it needs only ona/ona.h and C/POSIX headers.
 */
#ifndef ONA_LAUNCHER_H
#define ONA_LAUNCHER_H

#include "ona/ona.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* The runtime keeps paths in 1024-byte buffers, script root and "/main.lua" included. */
enum { MAX_PAIRS = 64, MAX_PATH_BYTES = 1000 };

/* --- The command line (options.c) ----------------------------------------------------------
 */

typedef struct ona__launcher_options {
    const char *target, *screenshot, *trace, *save_dir;
    const char *record, *replay; /* --record FILE, --replay FILE */
    const char *inspect;         /* --inspect [ADDRESS]: where the inspector listens, or NULL */
    const char *inspect_token;   /* --inspect-token TOKEN */
    bool inspect_any;            /* --inspect-any: a non-loopback address is allowed */
    const char *pairs[MAX_PAIRS];
    int pair_count;
    long frames, workers, turn_budget; /* turn_budget: -1 = the runtime's */
    size_t memory_cap;                 /* 0 = the runtime's default */
    bool stats, headless, watch;
    bool no_audio;   /* --no-audio: never open an audio device */
    bool sandbox;    /* --sandbox: every Lua system sandboxed (ona_runtime_desc.sandbox) */
    bool resimulate; /* --resimulate: a replay's divergence is reported, not fatal */
    int width, height;
    ona_vsync vsync;
    bool vsync_given; /* --vsync was on the command line */
    ona_delivery delivery;
    double fixed_dt;      /* 0 = the runtime's rules; ONA_DT_MEASURED for "off" */
    uint32_t max_fps;     /* 0 = the runtime's rules */
    double fixed_step;    /* --fixed-step: 0 = off (ona_runtime_desc.fixed_step) */
    uint32_t max_steps;   /* --max-steps: 0 = the runtime's default */
    int verbose;          /* -v: 1 info, -vv: 2 debug; 0 = warnings and errors */
    uint32_t max_systems; /* 0 = the runtime's default */
    uint64_t seed;        /* the session seed (ona_runtime_desc.seed); 0 by default */
} ona__launcher_options;

/* Reads the command line into `o`. Returns -1 to go on and run, or the exit status: 0 after
 * --help or --version, 1 when --version found no GL, 2 for a usage error (already reported). */
int ona__launcher_parse_args(int argc, char **argv, ona__launcher_options *o);

/* The inspector's address when --inspect names none. */
#define ONA__LAUNCHER_INSPECT_DEFAULT "127.0.0.1:9330"

/* --- The console (console.c) -------------------------------------------------------------------
 */

/* `ona console [IP:PORT | URL] [--token TOKEN]` with the arguments after "console": a REPL into
 * a running game's inspector. Returns the exit status. */
int ona__launcher_console(int argc, char **argv);

/* --- Packing (pack.c) -------------------------------------------------------------------------
 */

/* `ona pack <game-folder> -o <game.ona>` with the arguments after "pack": the folder as one zip.
 * Returns the exit status (0, 1 when it could not be packed, 2 for a usage error). */
int ona__launcher_pack(int argc, char **argv);
/* True when this executable has a game appended (`ona pack --fused`); `path` gets its file. */
bool ona__launcher_fused(char *path, size_t size);

/* --- Statistics (report.c) ---------------------------------------------------------------------
 */

/* What --stats remembers between two reports; opaque outside report.c. */
typedef struct ona__launcher_stats ona__launcher_stats;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t ona__launcher_now_ns(void);

/* Starts the first one-second period; NULL when out of memory (then no period is reported). */
ona__launcher_stats *ona__launcher_stats_begin(void);

/* After each frame: records its time, and logs a report once a second has passed. */
void ona__launcher_stats_frame(ona_runtime *rt, ona__launcher_stats *p);

/* Frees what ona__launcher_stats_begin made (NULL is fine). */
void ona__launcher_stats_end(ona__launcher_stats *p);

/* Prints the final table on stdout: frame times, totals, and one line per system. */
void ona__launcher_stats_print(ona_runtime *rt);

/* --- The screenshot (shot.c) -------------------------------------------------------------------
 */

/* What became of the screenshot: whether it was asked for, and the runtime's answer. */
typedef struct ona__launcher_shot {
    bool requested;
    int rc;
    long frames_run;
} ona__launcher_shot;

/* The screenshot file before the run, to tell a new file from one an earlier run left. */
typedef struct ona__launcher_file_before {
    bool exists;
    struct stat st;
} ona__launcher_file_before;

/* Refuses, before anything runs, a screenshot path that cannot become a PNG file (says why). */
bool ona__launcher_shot_path_usable(const char *path);

ona__launcher_file_before ona__launcher_file_before_get(const char *path);

/* Says why no screenshot is at `path`, if none is; true when it was written. */
bool ona__launcher_shot_check(const char *path, long frames, const ona__launcher_shot *s,
                              const ona__launcher_file_before *before);

#endif
