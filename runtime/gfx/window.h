/*
 * window.h: the SDL window, its OpenGL context, and input events. Internal; main thread only.
 */
#ifndef ONA_WINDOW_H
#define ONA_WINDOW_H

#include "ona/gfx.h"

#include "gamepad.h"

typedef struct ona__window ona__window;

/* Creates the window (or an offscreen surface) with a GL 4.6 core context, falling back to 4.5
 * (logged), and loads GL entry points with GLEW. `video` is WINDOW or OFFSCREEN; WINDOW falls
 * back to OFFSCREEN when SDL has no display. Errors: ONA_EGFX (logged with SDL's reason). */
int ona__window_create(ona_video video, const ona_window_desc *desc, ona__window **out);
void ona__window_destroy(ona__window *w);

/* Polls SDL's events and appends them (translated) to `events` (up to `max`); returns how many
 * were appended. Window resizes update the drawable size. Game controller events go to `pads`
 * (gamepad.c), in SDL's order among the others. */
uint32_t ona__window_poll(ona__window *w, ona__gamepads *pads, ona_event *events, uint32_t max);

/* Applies a new title, size, fullscreen or vsync (fields left 0/NULL keep their value; vsync
 * ONA_VSYNC_DEFAULT keeps it). */
void ona__window_configure(ona__window *w, const ona_window_desc *desc);

/* The drawable size in pixels. */
void ona__window_size(ona__window *w, int *width, int *height);
void ona__window_swap(ona__window *w);
/* True when rendering offscreen (asked for, or no display). */
bool ona__window_is_offscreen(ona__window *w);
/* "offscreen", "x11", "wayland", ... */
const char *ona__window_driver(ona__window *w);
/* True when the GL debug output should be on (debug builds). */
bool ona__window_debug_context(ona__window *w);

/* Fills a key event's scancode from its name (or the name from the scancode). */
void ona__window_normalise_key(ona_event *e);

#endif
