/*
 * runtime_internal.h: what an ona_runtime is made of. Internal to the library's top level
 * (runtime/runtime.c and its neighbours) and to the bindings, which reach the video and the file
 * watcher through it.
 *
 * Layering: runtime/core (actors, scheduler; no Lua, SDL or GL) <- runtime/gfx (window, GL,
 * textures, render queues) and bindings (Lua) <- the top level (runtime.c, time_saves.c,
 * native.c, stats.c, reload.c), which ties them together behind the public API. The core never sees
 * this struct: it gets its own ona__core, the first member, so a core pointer converts back with
 * ona__runtime_of.
 */
#ifndef ONA_RUNTIME_INTERNAL_H
#define ONA_RUNTIME_INTERNAL_H

#include "assets.h"
#include "audio/audio.h" /* runtime/audio (issue 10) */
#include "core.h"
#include "hot_reload.h"
#include "paths.h"
#include "video.h"
#include "watchdog.h"

#include <signal.h>
#include <stdio.h>

/* signals.c: SIGINT/SIGTERM for a runtime created with handle_signals. The handler only writes
 * the signal's number to a pipe; the thread "ona-signals" reads it, asks the runtime to quit and
 * enforces the 2 s deadline. */
typedef struct ona__signals {
    bool claimed;      /* this runtime holds the signals; main's mask blocks them */
    sigset_t old_mask; /* main's mask before */
    bool installed;    /* the handlers and the thread run */
    int pipe[2];
    uv_thread_t thread;
    atomic_int signal;     /* the first signal seen, 0 before */
    uv_mutex_t lock;       /* guards the three below (main writes, the watchdog reads) */
    bool busy;             /* main is in a step or a spawn (running scripts) */
    const char *busy_what; /* what main is doing then, for the log */
    bool in_turns;         /* main is inside the scheduler's frame: `systems` cannot change */
} ona__signals;

struct ona_runtime {
    ona__core core;        /* first: see ona__runtime_of */
    ona_runtime_desc desc; /* defaults applied; script_roots copied into `roots` */
    char **roots;
    uint32_t root_count;
    ona__video video;
    bool core_ready, video_ready, hot_ready, assets_ready;
    ona__hot_reload hot;
    ona__assets assets;      /* every loaded file: textures, sounds, fonts, shaders (services) */
    ona__watchdog *watchdog; /* the turn budget's thread (watchdog.c) */
    /* The prelude compiled once (bindings/lua_host.c); NULL: spawns load its source. */
    char *prelude_bc;
    size_t prelude_bc_size;
    uint64_t last_frame_ns, max_frame_ns, total_frame_ns; /* main */
    /* Main only: inside ona_runtime_step or ona_runtime_destroy, where callbacks run; the public
     * main-thread functions refuse to run then (ONA_ETHREAD). */
    bool in_call;
    ona__signals signals;
    ona__audio audio; /* issue 10: sounds, command queues, the device and its mixer */
    bool audio_ready;
    /* Steady time and saves (issue 10; time_saves.c). Main advances the clock before a frame's
     * turns, which only read it: the frame's start orders the writes before them. */
    double game_time, time_base, time_step; /* game_time = time_base + time_frames * time_step */
    uint64_t time_frames;
    uint64_t pace_last_ns; /* main: when ona_runtime_frame_dt last returned; 0 before */
    /* main.lua's ona.gfx.window{fixed_dt, max_fps} (any system, any thread; read by main
     * between frames): 0 = not set, fixed_dt < 0 = measured. */
    _Atomic(double) script_fixed_dt;
    _Atomic(uint32_t) script_max_fps;
    char *save_dir; /* NULL: no folder (no HOME) */
};

static inline ona_runtime *ona__runtime_of(ona__core *core) {
    return (ona_runtime *)core;
}

/* Finds a game file by name under the runtime's script roots (paths.h). */
static inline int ona__runtime_find(ona_runtime *rt, const char *name, char *path, size_t size) {
    return ona__paths_resolve(rt->roots, rt->root_count, name, path, size);
}

/* The path a loader opens for `name`: where ona__runtime_find finds it, else `name` as given (cut
 * to `size`), so that a missing file is reported by the name the game used. */
static inline void ona__runtime_locate(ona_runtime *rt, const char *name, char *path, size_t size) {
    if (ona__runtime_find(rt, name, path, size) != 0)
        snprintf(path, size, "%s", name);
}

/* native.c: the one draw path of Lua and native systems. Appends `count` sprites drawn by `sys`
 * with `key` to the render queue of the thread running its turn, with the system's spawn order
 * and submission counter (so the merged picture does not depend on the thread). Errors:
 * ONA_ETHREAD (not inside a turn: no frame is being built), ONA_ENOMEM. */
int ona__system_draw(ona__system *sys, const ona__draw_key *key, const ona_sprite *sprites,
                     uint32_t count);

/* native.c: the one print path of Lua and native systems (ona.gfx.print, ona_ctx_print): lays out
 * `text` with `font` and draws its glyphs as `sys` through ona__system_draw on desc's layer
 * (desc may be NULL: the defaults). Errors: ONA_ETHREAD (not inside a turn: glyphs are only made
 * there, where main cannot be uploading the atlas), ONA_ESTALE, ONA_ENOMEM. */
int ona__system_print(ona__system *sys, ona_font font, const char *text, size_t length, float x,
                      float y, const ona_text_desc *desc);

/* reload.c: at the frame boundary, applies the file changes seen (scripts, modules, shaders,
 * textures). Main thread. */
void ona__runtime_apply_reloads(ona_runtime *rt);

/* signals.c. Main thread. claim: first in create, before any thread starts: takes the signals
 * for this runtime (ONA_EBUSY when another runtime has them) and blocks them on main, so that
 * every thread started from now on inherits the block; start: last in create: the handlers and
 * the watchdog thread, the one thread that takes the signals (ONA_EIO, ONA_ENOMEM,
 * ONA_ETHREAD); stop: undoes whichever of the two ran. */
int ona__signals_claim(ona_runtime *rt);
int ona__signals_start(ona_runtime *rt);
void ona__signals_stop(ona_runtime *rt);
/* Main marks where scripts run (a step, a spawn): the deadline only ends the process when a
 * signal arrived and main is still (or again) in one of them after 2 s. */
void ona__signals_enter(ona_runtime *rt);
void ona__signals_leave(ona_runtime *rt);
/* Main brackets the scheduler's frame, so that the watchdog may read `systems` inside it. */
void ona__signals_turns(ona_runtime *rt, bool in_turns);

/* runtime.c: the checks shared by the public functions. */
/* True on the main thread outside step and destroy: where the main-thread-only API may run. */
bool ona__runtime_may_call(ona_runtime *rt);
/* Spawns a Lua system after validating the desc (`args` released on error); any thread; logs
 * errors. ona_runtime_spawn and ona_ctx_spawn. */
int ona__runtime_spawn_lua(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out);
/* Merges a spawn made by main between frames into `systems` at once, so that it is listed. */
void ona__runtime_merge_if_between_frames(ona_runtime *rt);
/* Validation of the fields spawn descs share; NULL when fine, else what is wrong. */
const char *ona__runtime_check_spawn(const char *name, uint32_t mailbox_capacity,
                                     ona_failure_policy policy);

/* time_saves.c (issue 10): steady time, random numbers and saves. */
/* Sets rt->save_dir from the desc's save_dir, else the default folder for `game_id` (a warning
 * and no folder when there is none); ONA_ENOMEM. ona_runtime_create. */
int ona__runtime_init_saves(ona_runtime *rt, const char *save_dir, const char *game_id);
/* Advances game time by one frame of `dt` (main, before the turns). */
void ona__runtime_advance_clock(ona_runtime *rt, double dt);
/* The default random seed of `sys`'s `nth` generator (name, spawn order, nth; below 2^53). */
uint64_t ona__runtime_default_seed(const ona__system *sys, uint64_t nth);
/* main.lua's time settings (l_gfx.c's ona.gfx.window): fixed_dt > 0, < 0 = measured, 0 = keep;
 * max_fps 0 = keep, UINT32_MAX = uncapped. Any thread. */
void ona__runtime_set_script_time(ona_runtime *rt, double fixed_dt, uint32_t max_fps);

/* native.c: the host of C systems. */
extern const ona__host ona__native_host;

#endif
