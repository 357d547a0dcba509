/*
 * services.h: what both hosts (the Lua host in bindings/, the native host in runtime/native/)
 * reach below them: the video and the audio, the turn budget's watchdog, the game's files (script
 * roots, the file watcher), saves, the game clock and frame pacing, and the one draw path.
 * Internal to the library.
 *
 * Layering: the services sit on runtime/core, runtime/gfx and runtime/audio and see no host and
 * no ona_runtime. The assembly (runtime/runtime.c) embeds one ona__services in its ona_runtime,
 * fills it while it creates the runtime, and stores its address in the core
 * (ona__core.services), so a host holding a system reaches its services as
 * `sys->core->services`.
 *
 * Threads: the fields are set by main in ona_runtime_create and torn down in destroy. During a
 * frame, systems on any thread read them and call the functions below, each saying which thread
 * may call it; `in_call` and the clock are main's (main writes them only between frames, and the
 * frame's start orders those writes before every turn's reads).
 */
#ifndef ONA_SERVICES_H
#define ONA_SERVICES_H

#include "assets.h"
#include "audio.h"
#include "core.h"
#include "fs.h"
#include "hot_reload.h"
#include "paths.h"
#include "shapes.h"
#include "video.h"
#include "watchdog.h"

#include <stdio.h>

typedef struct ona__services {
    ona__core *core;      /* the core whose systems use these services */
    ona_runtime *runtime; /* the public handle they belong to, opaque here (ona_ctx_runtime) */
    ona__video video;
    bool video_ready;
    ona__audio audio; /* sounds, command queues, the device and its mixer */
    bool audio_ready;
    ona__watchdog *watchdog; /* the turn budget's thread (watchdog.c) */
    ona__hot_reload *hot;    /* the file watcher the assembly owns (watches nothing when off) */
    ona__assets assets;      /* every loaded file: textures, sounds, fonts, shaders (assets.c) */
    bool assets_ready;
    char **roots; /* the script roots, trailing '/' cut */
    uint32_t root_count;
    char *save_dir; /* NULL: no folder (no HOME) */
    /* The session's recording or replay, which answers and keeps the saves' loads (record.h). */
    struct ona__record *record;
    ona__fs fs;              /* the game's tree on PhysicsFS, for ona.fs (fs.c) */
    size_t memory_cap;       /* a Lua system's heap cap by default */
    uint32_t turn_budget_ms; /* a turn's budget by default; ONA_BUDGET_OFF: none */
    bool sandbox;            /* every Lua system sandboxed (ona_runtime_desc.sandbox) */
    uint64_t seed;           /* the session seed (ona_runtime_desc.seed), below 2^53 */
    /* Main only: inside ona_runtime_step or ona_runtime_destroy, where callbacks run; the
     * main-thread functions refuse to run then (ONA_ETHREAD). */
    bool in_call;
    /* Time (time.c). The desc's settings, defaults applied: */
    double fixed_dt;         /* > 0 fixed, ONA_DT_MEASURED, 0 default */
    uint32_t max_fps;        /* 0: main.lua's, else this cap */
    bool fixed_step_default; /* 0 means fixed even with a window */
    /* Main advances the clock before a frame's turns, which only read it. */
    double game_time, time_base, time_step; /* game_time = time_base + time_frames * time_step */
    uint64_t time_frames;
    uint64_t pace_last_ns; /* main: when ona__services_frame_dt last returned; 0 before */
    /* Steady time with an accumulator (ona_runtime_desc.fixed_step): the step (0: off), the
     * most steps a frame runs, the wall time not yet stepped (main), and the frame's alpha:
     * the leftover as a fraction of a step, written by main before the turns, read by them. */
    double fixed_step, step_left, alpha;
    uint32_t max_steps;
    uint64_t steps_dropped;           /* frames that hit max_steps (main), for the one warning */
    uint64_t (*clock_ns)(void *user); /* the wall clock frame_dt reads; NULL = monotonic */
    void *clock_user;
    /* main.lua's ona.gfx.window{fixed_dt, max_fps} (any system, any thread; read by main
     * between frames): 0 = not set, fixed_dt < 0 = measured. */
    _Atomic(double) script_fixed_dt;
    _Atomic(uint32_t) script_max_fps;
} ona__services;

/* The services of the runtime `sys` runs in. */
static inline ona__services *ona__services_of(const ona__system *sys) {
    return sys->core->services;
}

/* True on the main thread outside step and destroy: where the main-thread-only API may run.
 * The thread test comes first, so another thread never reads `in_call`. */
static inline bool ona__services_may_call(const ona__services *s) {
    return ona__core_on_main(s->core) && !s->in_call;
}

/* --- Game files (services.c) ------------------------------------------------------------------ */

/* Finds a file by name for the embedder's calls: absolute, else under the script roots, never in
 * the working directory (ona__paths_resolve): 0, ONA_ENOENT, ONA_ENOTFILE or ONA_ERANGE. Any
 * thread. */
int ona__services_find(const ona__services *s, const char *name, char *path, size_t size);
/* The path a loader opens for `name` (a name from a game's script: confined to the script roots,
 * ona__paths_resolve_game), and what the lookup said: where it found it (also
 * a folder or FIFO there, for the loader to refuse in words); else `name` as given, so that a
 * missing file is reported by the name the game used: the registry resolves it again, and music
 * opens only absolute (resolved) paths, so nothing is opened relative to the working
 * directory. Any thread. */
int ona__services_locate(const ona__services *s, const char *name, char *path, size_t size);
/* Watches `path` for changes when files are watched (nothing otherwise). Any thread. */
void ona__services_watch(ona__services *s, const char *path);
/* The same for a script that ran once at start (main.lua): its change is named, with what to do
 * (a restart), since nothing can apply it. Any thread. */
void ona__services_watch_once(ona__services *s, const char *path);

/* --- Assets (services.c); any thread ---------------------------------------------------------
 * Textures, sounds, fonts, music (and shaders, draw_state.c) load through the asset registry
 * (assets.h): `path` is the game's name or where ona__services_locate put it; the same file gives
 * the same handle, and it is watched and reloaded. `who` names the loader in the log; `holder`
 * (a system's id, or ONA__ASSET_RUNTIME for the embedder) takes a reference, given back by the
 * release functions or, for a system, when it ends; an asset nobody holds is freed at the next
 * frame boundary and its handle goes stale. Errors as the gfx/audio loaders: ONA_ENOENT,
 * ONA_EFORMAT, ONA_ENOMEM, ONA_ELIMIT; on error *out is the placeholder (a texture or sound of the
 * file's own, filled in when the file can be read). */
int ona__services_texture_load(ona__services *s, const char *path, const char *who, uint64_t holder,
                               ona_texture *out);
/* Gives back one of holder's references to a texture (a sound). ONA_ESTALE when it holds none. */
int ona__services_texture_release(ona__services *s, ona_texture texture, uint64_t holder);
int ona__services_sound_release(ona__services *s, ona_sound sound, uint64_t holder);
/* Registers the music file `name` (found under the script roots, watched: a change restarts it
 * while it plays) and writes the path to open into `path`. 0, or ONA_ENOENT (logged: the music
 * is silent until the file appears). */
int ona__services_music_load(ona__services *s, const char *name, const char *who, uint64_t holder,
                             char *path, size_t size);
/* Main, between frames: `sys` ended; its references to assets go (a host's destroy). */
void ona__services_system_ended(ona__services *s, const ona__system *sys);
/* True, with the size, when `texture` is live; false (sizes untouched) for a stale handle. */
bool ona__services_texture_size(ona__services *s, ona_texture texture, int *w, int *h);
/* True for the placeholder texture (what a missing file loads as). */
bool ona__services_texture_is_placeholder(const ona__services *s, ona_texture texture);
/* Loads the TTF at `path` (NULL: the default font, not watched) at `size` pixels. */
int ona__services_font_load(ona__services *s, const char *path, int size, const char *who,
                            uint64_t holder, ona_font *out);
int ona__services_font_measure(ona__services *s, ona_font font, const char *text, size_t length,
                               const ona_text_desc *desc, float *width, float *height);
float ona__services_font_line_height(ona__services *s, ona_font font);
int ona__services_sound_load(ona__services *s, const char *path, const char *who, uint64_t holder,
                             ona_sound *out);

/* --- The one draw path (draw.c) --------------------------------------------------------------- */

/* Appends `count` sprites drawn by `sys` with `key` to the render queue of the thread running its
 * turn, with the system's spawn order and submission counter (so the merged picture does not
 * depend on the thread). Errors: ONA_ETHREAD (not inside a turn: no frame is being built),
 * ONA_ENOMEM. */
int ona__system_draw(ona__system *sys, const ona__draw_key *key, const ona_sprite *sprites,
                     uint32_t count);
/* The one print path (ona.gfx.print, ona_ctx_print): lays out `text` with `font` and draws its
 * glyphs as `sys` through ona__system_draw on desc's layer (desc may be NULL: the defaults).
 * Errors: ONA_ETHREAD (not inside a turn: glyphs are only made there, where main cannot be
 * uploading the atlas), ONA_ESTALE, ONA_ENOMEM. */
int ona__system_print(ona__system *sys, ona_font font, const char *text, size_t length, float x,
                      float y, const ona_text_desc *desc);
/* Draws the tiles of `map` visible on key's layer (the frame start's view, a tile of margin)
 * through ona__system_draw; a map with no texture size takes its texture's. Errors as
 * ona__system_draw. */
int ona__system_draw_tilemap(ona__system *sys, const ona__draw_key *key, const ona_tilemap *map,
                             float x, float y);
/* The render queue of the thread running a turn now, NULL outside turns (no frame is being
 * built there: drawing and settings are refused). */
ona__render_queue *ona__services_queue(ona__services *s);
/* The world rectangle {x, y, w, h} layer's camera shows at the frame's start; false when the
 * layer shows nothing (no video, a zero viewport). */
bool ona__services_layer_view(const ona__services *s, int32_t layer, float rect[4]);
/* The white texture shapes are drawn with, and the debug font's texture. */
ona_texture ona__services_white(const ona__services *s);
ona_texture ona__services_debug_font(const ona__services *s);
/* Lays out `size` bytes with the debug font (8x8 glyphs times `scale`, '\n' starts a line) as
 * sprites of ona__services_debug_font; returns how many (at most `max`). Any thread. */
uint32_t ona__services_debug_text(const char *text, size_t size, float x, float y, float scale,
                                  uint32_t tint, ona_sprite *out, uint32_t max);
/* The drawable area in pixels (0 x 0 without video). Read during a frame: main changes it only
 * between frames. */
void ona__services_video_size(const ona__services *s, int *width, int *height);
/* Queues main.lua's window request (title, size, fullscreen), applied by main; any thread. */
void ona__services_request_window(ona__services *s, const ona_window_desc *desc);
/* Queues a screenshot of the next frame into `path`. Any thread. */
int ona__services_screenshot(ona__services *s, const char *path);
/* Converts between screen and world coordinates on `layer` with the frame start's cameras. */
void ona__services_to_world(const ona__services *s, int32_t layer, float sx, float sy, float *wx,
                            float *wy);
void ona__services_to_screen(const ona__services *s, int32_t layer, float wx, float wy, float *sx,
                             float *sy);

/* --- Input and sound commands of systems (services.c) ------------------------------------------
 */

/* Fills a key event's scancode from its name, SDL's or LÖVE's (then SDL's replaces it;
 * scancode <= 0: no such key). Any thread. */
void ona__services_normalise_key(ona_event *e);
/* LÖVE's name for an SDL key name, or the name itself (gfx/keys.c); and whether a name is one of
 * LÖVE's shifted characters, which no scancode carries ("!", "@"). Any thread. */
const char *ona__services_love_key(const char *name);
bool ona__services_key_is_character(const char *name);
/* Queues a gamepad command (rumble, dead zone) of `sys` on the thread running its turn, in its
 * order; main applies them after the turns. Errors: ONA_ETHREAD (not in a turn), ONA_ENOMEM. */
int ona__system_pad_command(ona__system *sys, ona__pad_command *c);
/* Builds and checks an audio command (audio.h: *why says what is wrong on ONA_EINVAL). */
int ona__services_play_cmd(ona__services *s, ona_sound sound, double volume, double pan,
                           double pitch, bool loop, const char *group, ona__audio_cmd *cmd,
                           const char **why);
int ona__services_volume_cmd(ona__services *s, const char *group, double volume,
                             ona__audio_cmd *cmd, const char **why);
int ona__services_music_cmd(bool start, double volume, double fade, bool loop, ona__audio_cmd *cmd,
                            const char **why);
int ona__services_set_cmd(uint64_t voice, unsigned set, double volume, double pan, double pitch,
                          ona__audio_cmd *cmd, const char **why);
/* Queues `cmd` of `sys` (with `path` for music) on the audio queue of the thread running its
 * turn; *voice gets a play's or a music's voice. Errors as ona__audio_push. */
int ona__system_audio_push(ona__system *sys, ona__audio_cmd *cmd, const char *path,
                           uint64_t *voice);
/* Whether `voice` plays, for `sys` in its turn (ona__audio_playing). *rc: ONA_ETHREAD. */
bool ona__system_audio_playing(ona__system *sys, uint64_t voice, int *rc);
/* True the first time `sys` is told that every voice is busy (its warning is said once). */
bool ona__system_audio_warn_once(ona__system *sys);

/* --- Time (time.c) ---------------------------------------------------------------------------- */

/* Advances game time by one frame of `dt` (main, before the turns). */
void ona__services_advance_clock(ona__services *s, double dt);
/* Game time: the sum of the frames' dt so far, exact under a fixed step. Any thread (during a
 * frame it is the frame's). */
double ona__services_time(const ona__services *s);
/* The dt of the frame about to run, pacing to the frame cap (main, outside step; 0 elsewhere). */
double ona__services_frame_dt(ona__services *s);
/* Under a fixed step: adds the frame's wall time `dt` to the accumulator and returns how many
 * steps are due now, at most max_steps (time past the cap is dropped, warned of once), with
 * the leftover fraction of a step in *alpha. Main, before the frame. */
uint32_t ona__services_plan_steps(ona__services *s, double dt, double *alpha);

/* main.lua's time settings (ona.gfx.window): fixed_dt > 0, < 0 = measured, 0 = keep; max_fps 0 =
 * keep, UINT32_MAX = uncapped. Any thread. */
void ona__services_set_script_time(ona__services *s, double fixed_dt, uint32_t max_fps);
/* The default random seed of `sys`'s `nth` generator (the session seed, name, spawn order, nth;
 * below 2^53). ona.random() and ona_random_default take nth = 0, 1, 2...; a Lua system's
 * math.random takes ONA__SEED_MATH_RANDOM. Any thread. */
uint64_t ona__services_default_seed(const ona__system *sys, uint64_t nth);
#define ONA__SEED_MATH_RANDOM UINT64_MAX

/* --- Saves (save.c) --------------------------------------------------------------------------- */

/* Sets save_dir from `save_dir`, else the default folder for `game_id` (a warning and no folder
 * when there is none); ONA_ENOMEM. Main, at creation. */
int ona__services_init_saves(ona__services *s, const char *save_dir, const char *game_id);
/* Writes / reads save `name` in save_dir, logging failures (save.h has the errors). Any thread. */
int ona__services_save(ona__services *s, const char *name, ona_message *value);
int ona__services_load(ona__services *s, const char *name, ona_message *out);

#endif
