/*
 * probe.c: the graphics half of ona/about.h: the SDL version, and a probe that makes a hidden GL
 * 4.5+ core context only to report the driver, the GL version and the renderer.
 *
 * Design note. The probe owns SDL video for its whole duration and leaves the process as it
 * found it: it refuses (ONA_EBUSY) when SDL video is already initialised, since it would
 * otherwise change the current GL context and SDL's GL attributes under a running window; it
 * starts and stops only the video subsystem (SDL_InitSubSystem / SDL_QuitSubSystem, reference
 * counted, as window.c does), resets the GL attributes it set, and resets the video-driver hint
 * if it set one. Main thread only, like everything touching SDL video. GLEW reports
 * GLEW_ERROR_NO_GLX_DISPLAY on EGL contexts although every entry point loaded, so that result
 * counts as success (window.c does the same).
 */
#include "probe.h"
#include "pin.h"

#include "common.h"

#include <GL/glew.h>
#include <SDL.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void ona__probe_sdl_version(char *buf, size_t size) {
    SDL_version v;
    SDL_GetVersion(&v);
    snprintf(buf, size, "%d.%d.%d", v.major, v.minor, v.patch);
}

/* Appends to buf at *used; false once the text no longer fits (buf keeps what fitted). */
static bool append(char *buf, size_t size, size_t *used, const char *fmt, ...) ONA_PRINTF(4, 5);
static bool append(char *buf, size_t size, size_t *used, const char *fmt, ...) {
    if (*used >= size)
        return false;
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf + *used, size - *used, fmt, args);
    va_end(args);
    if (n < 0 || (size_t)n >= size - *used) {
        *used = size;
        return false;
    }
    *used += (size_t)n;
    return true;
}

static bool has_env(const char *name) {
    const char *value = getenv(name);
    return value && *value;
}

static const char *gl_string(GLenum name) {
    const char *s = (const char *)glGetString(name);
    return s ? s : "(unknown)";
}

int ona__probe_video(char *buf, size_t size) {
    buf[0] = '\0';
    if (SDL_WasInit(SDL_INIT_VIDEO)) {
        snprintf(buf, size,
                 "SDL video is in use (a runtime with video exists); probe before "
                 "creating one or after destroying it");
        return ONA_EBUSY;
    }
    /* Without a display and without a driver chosen (the hint, or SDL_VIDEODRIVER which the
     * hint reads), SDL's offscreen (EGL) driver, as a headless runtime would use; the hint is
     * reset afterwards so that the probe leaves nothing behind for later runtimes. */
    bool set_hint =
        !has_env("DISPLAY") && !has_env("WAYLAND_DISPLAY") && !SDL_GetHint(SDL_HINT_VIDEODRIVER);
    if (set_hint)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    /* As in window.c, so that the version said here is the one a runtime's window gets: Mesa
     * is told it may run 4.6 where the user has not chosen. */
    setenv("MESA_GL_VERSION_OVERRIDE", "4.6", 0);
    /* As in window.c: the signals are not SDL's to take. */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    int rc = 0;
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        snprintf(buf, size, "SDL video failed to start: %s", SDL_GetError());
        rc = ONA_EGFX;
        goto restore_hint;
    }
    SDL_Window *window = NULL;
    SDL_GLContext context = NULL;
    static const int minors[] = {6, 5};
    for (size_t i = 0; i < ONA_ARRAY_COUNT(minors) && !context; i++) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minors[i]);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        window = SDL_CreateWindow("ona", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 64, 64,
                                  SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
        if (window)
            context = SDL_GL_CreateContext(window);
        if (context)
            ona__gfx_pin_libraries();
        if (!context && window) {
            SDL_DestroyWindow(window);
            window = NULL;
        }
    }
    if (!context) {
        snprintf(buf, size, "no OpenGL 4.5+ core context (%s driver): %s",
                 SDL_GetCurrentVideoDriver() ? SDL_GetCurrentVideoDriver() : "no", SDL_GetError());
        rc = ONA_EGFX;
    } else {
        glewExperimental = GL_TRUE;
        GLenum glew = glewInit();
        if (glew != GLEW_OK && glew != GLEW_ERROR_NO_GLX_DISPLAY)
            ona_log(ONA_LOG_WARN, "gfx", "GLEW: %s", (const char *)glewGetErrorString(glew));
        size_t used = 0;
        if (!append(buf, size, &used, "video      %s\n", SDL_GetCurrentVideoDriver()) ||
            !append(buf, size, &used, "GL         %s\n", gl_string(GL_VERSION)) ||
            !append(buf, size, &used, "renderer   %s\n", gl_string(GL_RENDERER)))
            rc = ONA_ERANGE;
        SDL_GL_DeleteContext(context);
        SDL_DestroyWindow(window);
    }
    SDL_GL_ResetAttributes();
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
restore_hint:
    if (set_hint)
        SDL_ResetHint(SDL_HINT_VIDEODRIVER);
    return rc;
}
