/*
 * video.h: a runtime's video: window and GL renderer (or none), textures, render queues' merge,
 * this frame's input events and input state, the debug overlay, screenshots. Internal; the
 * frame-boundary functions are main-thread only.
 */
#ifndef ONA_VIDEO_H
#define ONA_VIDEO_H

#include "ona/gfx.h"

#include "gfx_gl.h"
#include "render_queue.h"
#include "texture.h"
#include "window.h"

#define ONA__MAX_EVENTS 256
#define ONA__MAX_SCANCODES 512

typedef struct ona__video {
    ona_video mode;          /* what runs: NONE, or WINDOW/OFFSCREEN with window and gfx */
    ona__window *window;
    ona__gfx *gfx;
    ona__textures textures;
    ona__render_list list;
    ona__camera camera;
    float clear[4];
    int width, height;       /* drawable size (the window's, or the desc's without video) */

    /* This frame's events and input state: written by main before the turns, read-only while
     * they run. */
    ona_event events[ONA__MAX_EVENTS];
    uint32_t event_count;
    ona_event injected[ONA__MAX_EVENTS]; /* pushed from C for the next frame */
    uint32_t injected_count;
    bool keys[ONA__MAX_SCANCODES];
    float mouse_x, mouse_y;
    uint32_t mouse_buttons;  /* bit (button - 1) */

    /* Screenshot requests may come from any thread (a system); guarded by `lock`. */
    uv_mutex_t lock;
    char screenshot_path[1024];
    bool screenshot_requested;

    /* One render queue per thread that runs turns, written only by that thread during a frame
     * and read by main in present (after the frame's end synchronised with every turn). */
    ona__render_queue *queues;
    uint32_t queue_count;

    ona__gfx_run *runs;      /* this frame's draws (reused) */
    uint32_t run_capacity;

    /* A window configuration asked for by a system (ona.gfx.window), applied by main at the
     * next frame boundary; guarded by `lock`. */
    ona_window_desc pending_window;
    char pending_title[128];
    bool window_pending;

    bool overlay;            /* the stats overlay, toggled by F3 */
    uint64_t last_present_ns;
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
/* Main, before the turns: polls the window, takes injected events, updates input state. Sets
 * *quit when the window was closed. */
void ona__video_begin_frame(ona__video *v, bool *quit);
/* The render queue of the thread with that index (ona__runq_thread_index), or NULL. */
ona__render_queue *ona__video_queue(ona__video *v, int thread);
/* Main, after the turns: uploads textures, merges the queues, draws, the overlay (when on and
 * `overlay` is given), screenshots, swaps; then clears the queues. */
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

/* issue 11 shapes: replaced by the render branch's per-layer version at merge */
/* The world rectangle {x, y, w, h} visible on `layer` at the frame's start (its camera's
 * viewport seen through it). False when that viewport is empty. Any thread during the turns. */
bool ona__video_layer_view(const ona__video *v, int32_t layer, float rect[4]);

#endif
