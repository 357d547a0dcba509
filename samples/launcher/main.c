/*
 * ona: the launcher. Runs a game folder (its main.lua spawns the systems) or a single script:
 *
 *   ona <game-folder | main.lua> [--headless] [--frames N] [--workers N] [--stats]
 *       [--turn-budget MS]
 *       [--size WxH] [--vsync on|off] [--screenshot out.png] [--no-watch] [--trace out.json]
 *       [--memory-cap SIZE|none] [--no-audio] [--sandbox] [--fixed-dt SECONDS|off]
 *       [--fixed-step S [--max-steps N]] [--max-fps N] [-v | -vv]
 *       [--save-dir PATH] [--max-systems N] [--seed N]
 *       [--record FILE | --replay FILE [--resimulate]]
 *       [--inspect [IP:PORT]] [--inspect-token TOKEN] [--inspect-any] [key=value ...]
 *
 * key=value pairs become the table main.lua receives as `...` (numbers where they parse).
 *   ona --version
 *   ona console [IP:PORT | URL] [--token TOKEN]   (a REPL into a game run with --inspect)
 *   ona pack <game-folder> -o <game.ona>          (the game as one file; `ona game.ona` runs it)
 *
 * It is also the reference embedder: everything it does goes through ona/ona.h.
 *
 * Design note. The command line is read by options.c (getopt_long; options before or after the
 * game, `--` ends them, the first operand is the game and every later one key=value). Nothing
 * is dropped or cut silently: more than MAX_PAIRS pairs, a path longer than MAX_PATH_BYTES (the
 * runtime keeps paths in 1024-byte buffers, script root and "/main.lua" included) and a
 * screenshot that was asked for but not written are errors. Exit status: 0, 1 when the run
 * failed (no runtime, main.lua did not start, screenshot or trace not written), 2 for a usage
 * error, 128 + the signal when SIGINT or SIGTERM stopped it (the runtime handles them,
 * handle_signals: the first quits at the end of the frame, a second one or a frame still running
 * 2 s later ends the process at once, with the same status). This file runs the game; options.c
 * reads the arguments, report.c writes the --stats reports and shot.c checks the screenshot
 * (launcher.h is what they share).
 */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* True when `path` is a zip (a game made by `ona pack`): its first bytes are a zip's, or (a fused
 * game, the launcher with a zip appended) its last 22 are a zip's end record. */
static bool is_archive(const char *path) {
    FILE *f = fopen(path, "rb");
    unsigned char magic[4] = {0}, end[22] = {0};
    size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
    bool tail = f && fseek(f, -(long)sizeof end, SEEK_END) == 0 &&
                fread(end, 1, sizeof end, f) == sizeof end && memcmp(end, "PK\5\6", 4) == 0;
    if (f)
        fclose(f);
    return (n == 4 && memcmp(magic, "PK\3\4", 4) == 0) || tail;
}

/* --- The log ---------------------------------------------------------------------------------- */

/* How much the log says: 0 warnings, errors and the game's own info (its print, reloads, the
 * audio's one line), not the video driver's reports (where "gfx" or "window": the GL line, the
 * GLSL note); 1 (-v) every info line; 2 (-vv) debug too. */
static int verbosity;

/* The default sink's format, one fprintf a line (stdio's lock keeps threads' lines whole). */
static void launcher_log(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    if (level == ONA_LOG_INFO && verbosity < 1 &&
        (strcmp(where, "gfx") == 0 || strcmp(where, "window") == 0))
        return;
    fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
}

/* --- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "console") == 0)
        return ona__launcher_console(argc - 2, argv + 2);
    /* A fused game (`ona pack --fused`) is its own first operand: `./game --headless`. */
    static char self[4096];
    char *fused_argv[256];
    if (argc < 255 && ona__launcher_fused(self, sizeof self)) {
        fused_argv[0] = argv[0];
        fused_argv[1] = self;
        for (int i = 1; i < argc; i++)
            fused_argv[i + 1] = argv[i];
        fused_argv[++argc] = NULL;
        argv = fused_argv;
    } else if (argc > 1 && strcmp(argv[1], "pack") == 0)
        return ona__launcher_pack(argc - 2, argv + 2);
    ona__launcher_options o;
    int status = ona__launcher_parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    verbosity = o.verbose;
    ona_log_set_sink(launcher_log, NULL, o.verbose >= 2 ? ONA_LOG_DEBUG : ONA_LOG_INFO);
    if (o.screenshot && !ona__launcher_shot_path_usable(o.screenshot))
        return 1;
    /* A replay runs the game its recording names, with its arguments, unless told otherwise. */
    static ona_recording_info info;
    if (o.replay) {
        if (ona_recording_info_read(o.replay, &info) != 0)
            return 1; /* the reason is logged */
        if (!o.target)
            o.target = info.game;
        for (const char *a = info.args; o.pair_count == 0 && a < info.args + sizeof info.args &&
                                        *a && o.pair_count < MAX_PAIRS;
             a += strlen(a) + 1)
            o.pairs[o.pair_count++] = a;
    }
    const char *pairs[MAX_PAIRS + 1] = {0};
    memcpy(pairs, o.pairs, (size_t)o.pair_count * sizeof *pairs);

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
    } else if (is_archive(o.target)) {
        /* A packed game (`ona pack`): the archive is the script root, read through PhysicsFS;
         * it never changes under the game, so nothing is watched. */
        snprintf(root, sizeof root, "%s", o.target);
        snprintf(script, sizeof script, "main.lua");
        o.watch = false;
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
    char title_buf[MAX_PATH_BYTES + 1];
    if (strcmp(root, o.target) == 0 && is_archive(o.target)) { /* "pong.ona" is the game "pong" */
        snprintf(title_buf, sizeof title_buf, "%s", title);
        char *dot = strrchr(title_buf, '.');
        if (dot && dot != title_buf)
            *dot = '\0';
        title = title_buf;
    }
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
        .max_systems = o.max_systems,
        .seed = o.seed,
        .memory_cap = o.memory_cap,
        .script_roots = roots,
        .hot_reload = o.watch,
        .handle_signals = true,
        .no_audio = o.no_audio,
        .sandbox = o.sandbox,
        .fixed_dt = o.fixed_dt,
        .max_fps = o.max_fps,
        .fixed_step = o.fixed_step,
        .max_steps = o.max_steps,
        .delivery = o.delivery,
        .record_path = o.record,
        .record_game = o.target,
        .record_args = pairs,
        .replay_path = o.replay,
        .inspect = o.inspect,
        .inspect_token = o.inspect_token,
        .inspect_any = o.inspect_any,
        .resimulate = o.resimulate,
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
    char inspect_url[256];
    if (ona_runtime_inspect_url(rt, inspect_url, sizeof inspect_url) == 0) {
        fprintf(stderr, "ona: inspector at %s\n", inspect_url);
        fflush(stderr);
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
    if (rc == ONA_EDIVERGED) {
        char why[768];
        uint64_t at = ona_runtime_replay_diverged(rt, why, sizeof why);
        fprintf(stderr, "ona: replay diverged at frame %llu: %s\n", (unsigned long long)at, why);
        rc = 0;
        exit_status = 1;
    } else if (o.resimulate) {
        char why[768];
        uint64_t at = ona_runtime_replay_diverged(rt, why, sizeof why);
        if (at)
            fprintf(stderr, "ona: resimulated: replay diverged at frame %llu: %s\n",
                    (unsigned long long)at, why);
        else
            fprintf(stderr, "ona: resimulated: no divergence\n");
    }
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
