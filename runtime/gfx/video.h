/*
 * video.h: a runtime's video: window and GL renderer (or none), textures, render queues' merge,
 * this frame's input events and input state, the debug overlay, screenshots. Internal; the
 * frame-boundary functions are main-thread only.
 */
#ifndef ONA_VIDEO_H
#define ONA_VIDEO_H

#include "ona/gfx.h"

#include "gamepad.h"
#include "gfx_gl.h"
#include "render_queue.h"
#include "text.h"
#include "texture.h"
#include "window.h"

#define ONA__MAX_EVENTS 256
#define ONA__MAX_SCANCODES 512

/* --- Draw state ------------------------------------------------------------------------------ */

#define ONA__MAX_CAMERAS 32      /* cameras over distinct layer ranges kept at once */
#define ONA__MAX_LAYER_STATES 64 /* layers with a default blend or shader */
#define ONA__MAX_SHADERS 256     /* game shaders loaded (slots are never reused) */
#define ONA__MAX_UNIFORMS 16     /* uniforms remembered per game shader */

/* A camera over layers lo..hi (inclusive). A later one in the array wins where ranges overlap. */
typedef struct ona__video_camera {
    int32_t lo, hi;
    ona__camera camera;
} ona__video_camera;

/* A layer's defaults (ona.gfx.layer): a draw's own blend or shader wins over them. */
typedef struct ona__layer_state {
    int32_t layer;
    uint32_t blend, shader;
} ona__layer_state;

typedef struct ona__uniform {
    char name[32];
    uint32_t components;
    float value[4];
    char at[64];  /* who set it last (ona__setting.at) */
    bool missing; /* the program has no such uniform: warned once */
} ona__uniform;

/* A game fragment shader. `id` and `path` are published under the video's lock (any thread
 * loads); everything else is main's. */
typedef struct ona__shader_slot {
    _Atomic uint32_t id; /* the live handle (index + 1), or 0 */
    char *path;
    uint32_t program; /* GL program, 0 until it compiled once */
    bool tried;       /* a first build was attempted */
    bool warned;      /* "never compiled: default shader" was logged */
    ona__uniform uniforms[ONA__MAX_UNIFORMS];
    uint32_t uniform_count;
} ona__shader_slot;

typedef struct ona__video {
    ona_video mode; /* what runs: NONE, or WINDOW/OFFSCREEN with window and gfx */
    ona__window *window;
    ona__gfx *gfx;
    ona__textures textures;
    ona__fonts *fonts; /* fonts and their glyph atlas pages (text.c) */
    ona__render_list list;
    float clear[4];

    /* Draw state as resolved by the last merge: written by main in present, read by
     * any system during the turns (to_world, to_screen, layer views). */
    ona__video_camera cameras[ONA__MAX_CAMERAS];
    uint32_t camera_count;
    ona__layer_state layers[ONA__MAX_LAYER_STATES];
    uint32_t layer_count;
    ona__shader_slot shaders[ONA__MAX_SHADERS];
    uint32_t shader_count; /* guarded by `lock` */
    uint64_t start_ns;     /* u_time's zero */
    int width, height;     /* drawable size (the window's, or the desc's without video) */

    /* This frame's events and input state: written by main before the turns, read-only while
     * they run. */
    ona_event events[ONA__MAX_EVENTS];
    uint32_t event_count;
    ona_event injected[ONA__MAX_EVENTS]; /* pushed from C for the next frame */
    uint32_t injected_count;
    bool keys[ONA__MAX_SCANCODES];
    float mouse_x, mouse_y;
    uint32_t mouse_buttons; /* bit (button - 1) */
    /* Gamepads (gamepad.c): slots, their snapshot (written like the state above), and the
     * per-thread command queues applied by main in present. */
    ona__gamepads pads;

    /* Screenshot requests may come from any thread (a system); guarded by `lock`. */
    uv_mutex_t lock;
    char screenshot_path[1024];
    bool screenshot_requested;

    /* One render queue per thread that runs turns, written only by that thread during a frame
     * and read by main in present (after the frame's end synchronised with every turn). */
    ona__render_queue *queues;
    uint32_t queue_count;

    ona__gfx_run *runs;    /* this frame's draws (reused) */
    uint32_t *run_targets; /* each run's canvas (0: the screen), parallel to runs */
    uint32_t run_capacity;

    /* A window configuration asked for by a system (ona.gfx.window), applied by main at the
     * next frame boundary; guarded by `lock`. */
    ona_window_desc pending_window;
    char pending_title[128];
    bool window_pending;

    bool overlay; /* the stats overlay, toggled by F3 */
    uint64_t last_present_ns;
    /* The last present's stretches (main): the merge and draw from draw_start_ns to
     * swap_start_ns, the swap (and screenshot) from there to present_end_ns. */
    uint64_t draw_start_ns, swap_start_ns, present_end_ns;
    double fps;
} ona__video;

/* The F3 overlay's text, written by whoever embeds the video (the runtime's statistics): returns
 * its length. */
typedef struct ona__overlay {
    size_t (*text)(void *user, double fps, uint32_t sprites, char *buf, size_t size);
    void *user;
} ona__overlay;

/* `threads`: how many threads draw (one render queue each). */
int ona__video_init(ona__video *v, ona_video mode, const ona_window_desc *desc, uint32_t threads);
void ona__video_free(ona__video *v);
/* Main, before the turns: polls the window, takes injected events, updates input state (and the
 * gamepads' snapshot, appending their axis events). Sets *quit when the window was closed.
 * `replay` (a replayed frame's events, `replay_count` of them; non-NULL even when there are
 * none) takes the place of every device and of injected events: the window is still polled, to
 * keep it alive and to see it closed, but its events are dropped, and gamepads are not read. */
void ona__video_begin_frame(ona__video *v, bool *quit, const ona_event *replay,
                            uint32_t replay_count);
/* Main, before the turns of a step after a frame's first (fixed steps): the step's events are
 * `events` (none, or a replay's), folded into the input state as begin_frame does; nothing is
 * polled. Sets *quit for a QUIT event. */
void ona__video_step_events(ona__video *v, bool *quit, const ona_event *events, uint32_t count);
/* Main, after the turns of a step that is not drawn (fixed steps): applies the gamepad
 * commands and the settings queued (cameras, clears, layers, uniforms: they persist), drops
 * the draws and clears the queues. */
void ona__video_drop_draws(ona__video *v);
/* The render queue of the thread with that index (ona__runq_thread_index), or NULL. */
ona__render_queue *ona__video_queue(ona__video *v, int thread);
/* Main, after the turns and the uploads (ona__textures_upload, ona__video_shaders_build): applies
 * the gamepad commands systems queued, merges the queues, draws, the overlay (when on and `overlay`
 * is given), screenshots, swaps; then clears the queues. */
void ona__video_present(ona__video *v, const ona__overlay *overlay);
/* Lays out `size` bytes of text with the debug font (8x8 glyphs times `scale`, '\n' starts a
 * line) as sprites of the font texture; returns how many (at most `max`). Any thread. */
uint32_t ona__video_text(const char *text, size_t size, float x, float y, float scale,
                         uint32_t tint, ona_sprite *out, uint32_t max);
/* Any thread: asks for a new window title/size/fullscreen/vsync, applied at the next frame
 * boundary. */
void ona__video_request_window(ona__video *v, const ona_window_desc *desc);
/* Any thread: asks for a screenshot of the next presented frame. */
int ona__video_request_screenshot(ona__video *v, const char *path);

/* --- Draw state ------------------------------------------------------------------------------ */

/* The camera that applies to `layer` as of the frame's start, or NULL for the default (world
 * units are pixels from the top-left corner). Any thread during the turns. */
const ona__camera *ona__video_camera_for(const ona__video *v, int32_t layer);
/* Window pixels to world units on `layer` and back, with the cameras as of the frame's start. */
void ona__video_to_world(const ona__video *v, int32_t layer, float sx, float sy, float *wx,
                         float *wy);
void ona__video_to_screen(const ona__video *v, int32_t layer, float wx, float wy, float *sx,
                          float *sy);
/* The world rectangle {x, y, w, h} visible on `layer` at the frame's start (its camera's
 * viewport seen through it). False when that viewport is empty. Any thread during the turns. */
bool ona__video_layer_view(const ona__video *v, int32_t layer, float rect[4]);

/* Registers the game fragment shader at `path` (resolved) as a new shader (which path has which
 * handle is the asset registry's, services/assets.h); main compiles it (ona__video_shaders_build)
 * before the next frame is drawn. Any thread. Errors: ONA_ELIMIT, ONA_ENOMEM. */
int ona__video_shader_load(ona__video *v, const char *path, uint32_t *id);
/* Whether `id` names a loaded game shader. Any thread. */
bool ona__video_shader_valid(const ona__video *v, uint32_t id);
/* The path a shader was loaded from (NULL for a stale id). Any thread. */
const char *ona__video_shader_path(ona__video *v, uint32_t id);
/* Main, after the frame's turns and before its draw: builds every game shader loaded since the
 * last call (a failed build logs path:line; its draws use the sprite shader). */
void ona__video_shaders_build(ona__video *v);
/* Main, between frames: recompiles the game shader `id` from its file; a compile error logs
 * path:line and keeps the old program. Returns ONA_ESTALE for a stale handle, ONA_EGFX when the
 * build failed. */
int ona__video_shader_reload(ona__video *v, uint32_t id);

#endif
