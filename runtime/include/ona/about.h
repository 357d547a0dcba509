/*
 * ona/about.h: what the library was built with and what graphics the machine offers, for a
 * launcher's `--version` and for bug reports. Neither call needs a runtime.
 */
#ifndef ONA_ABOUT_H
#define ONA_ABOUT_H

#include "ona/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the versions the library was built with, one per line, a name padded to 11 columns
 * and its version:
 *
 *   ona        0.1.0 (Debug)
 *   LuaJIT     LuaJIT 2.1.x
 *   libuv      1.x.y
 *   SDL        2.x.y
 *
 * (ona's with its build type; SDL's is the library linked at run time). `buf` always ends with a
 * NUL when `size` > 0. Returns 0, ONA_EINVAL (buf NULL or size 0) or ONA_ERANGE (the text did
 * not fit; `buf` holds as much as fitted). Any thread; no runtime needed. */
ONA_API int ona_about(char *buf, size_t size);

/* Probes the graphics driver the way a runtime with video would: initialises SDL's video, makes
 * a hidden 64x64 window with an OpenGL 4.6 (else 4.5) core context (SDL's offscreen EGL driver
 * when neither DISPLAY, WAYLAND_DISPLAY nor SDL_VIDEODRIVER is set, so it works on a headless
 * machine), writes
 *
 *   video      <SDL video driver>
 *   GL         <GL_VERSION>
 *   renderer   <GL_RENDERER>
 *
 * and tears everything down again. No runtime needed; main thread only (SDL video belongs to
 * the thread that started it), and only while nothing else in the process uses SDL video: while
 * a runtime with video exists it returns ONA_EBUSY and touches nothing. `buf` always ends with a
 * NUL when `size` > 0. Errors: ONA_EINVAL (buf NULL or size 0), ONA_EBUSY, ONA_EGFX (SDL video
 * or a 4.5+ core context is not available; `buf` then holds the reason, one line without a
 * trailing newline), ONA_ERANGE (the text did not fit). */
ONA_API int ona_video_probe(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* ONA_ABOUT_H */
