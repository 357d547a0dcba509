/*
 * window.c: the SDL window, its OpenGL context, and input events (window.h).
 *
 * Design note. Main thread only: SDL video and the GL context belong to the thread that made
 * them. Headless runs use SDL's `offscreen` driver, which renders through EGL with no X server;
 * a WINDOW request falls back to it when SDL cannot open a display, so the same program runs on
 * a desktop and on a CI machine. The context asks for 4.6 core, then 4.5 (Mesa's llvmpipe offers
 * 4.5; the version is logged). GLEW reports GLEW_ERROR_NO_GLX_DISPLAY on EGL contexts although
 * every entry point loaded, so that result counts as success.
 */
#include "window.h"
#include "keys.h"
#include "pin.h"

#include "common.h"

#include <GL/glew.h>
#include <SDL.h>
#include <ctype.h>
#include <stdio.h>

struct ona__window {
    SDL_Window *window;
    SDL_GLContext context;
    int width, height;
    bool offscreen;
    bool debug;
    char driver[32];
};

static bool has_display(void) {
    const char *forced = SDL_GetHint(SDL_HINT_VIDEODRIVER);
    if (forced && *forced)
        return strcmp(forced, "offscreen") != 0 && strcmp(forced, "dummy") != 0;
    return (getenv("DISPLAY") && *getenv("DISPLAY")) ||
           (getenv("WAYLAND_DISPLAY") && *getenv("WAYLAND_DISPLAY"));
}

static int init_video(bool offscreen) {
    if (offscreen)
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    /* SDL would turn SIGINT and SIGTERM into a quit event; they are the embedder's, or the
     * runtime's with handle_signals (runtime/signals.c). */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
        return -1;
    return 0;
}

static SDL_GLContext make_context(SDL_Window *window, bool debug, int *minor) {
    static const int minors[] = {6, 5};
    for (size_t i = 0; i < ONA_ARRAY_COUNT(minors); i++) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minors[i]);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, debug ? SDL_GL_CONTEXT_DEBUG_FLAG : 0);
        SDL_GLContext c = SDL_GL_CreateContext(window);
        if (c) {
            *minor = minors[i];
            ona__gfx_pin_libraries();
            return c;
        }
    }
    return NULL;
}

int ona__window_create(ona_video video, const ona_window_desc *desc_in, ona__window **out) {
    *out = NULL;
    ona_window_desc desc = desc_in ? *desc_in : (ona_window_desc){0};
    if (!desc.title)
        desc.title = "Ona";
    if (desc.width <= 0)
        desc.width = 1280;
    if (desc.height <= 0)
        desc.height = 720;
    ona__window *w = ona__calloc(1, sizeof *w);
    if (!w)
        return ONA_ENOMEM;
#ifdef ONA_DEBUG
    w->debug = true;
#endif
    /* Mesa's llvmpipe reports 4.5; it runs our 4.60 shaders when told it may. Set only where
     * the user has not chosen, and only for Mesa (other drivers ignore the variable). */
    setenv("MESA_GL_VERSION_OVERRIDE", "4.6", 0);
    bool offscreen = video == ONA_VIDEO_OFFSCREEN || !has_display();
    if (init_video(offscreen) != 0) {
        if (!offscreen && init_video(true) == 0) {
            offscreen = true;
        } else {
            ona_log(ONA_LOG_ERROR, "window", "SDL video failed to start: %s", SDL_GetError());
            ona__free(w);
            return ONA_EGFX;
        }
    }
    w->offscreen = offscreen;
    snprintf(w->driver, sizeof w->driver, "%s", SDL_GetCurrentVideoDriver());
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_ALLOW_HIGHDPI;
    if (desc.resizable)
        flags |= SDL_WINDOW_RESIZABLE;
    if (desc.fullscreen && !offscreen)
        flags |= SDL_WINDOW_FULLSCREEN_DESKTOP;
    if (offscreen)
        flags |= SDL_WINDOW_HIDDEN;
    w->window = SDL_CreateWindow(desc.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                 desc.width, desc.height, flags);
    int minor = 0;
    if (w->window)
        w->context = make_context(w->window, w->debug, &minor);
    if (!w->context) {
        ona_log(ONA_LOG_ERROR, "window", "no OpenGL 4.5+ core context (%s driver): %s", w->driver,
                SDL_GetError());
        ona__window_destroy(w);
        return ONA_EGFX;
    }
    SDL_GL_MakeCurrent(w->window, w->context);
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    if (glew != GLEW_OK && glew != GLEW_ERROR_NO_GLX_DISPLAY) {
        ona_log(ONA_LOG_ERROR, "window", "GLEW could not load OpenGL: %s",
                (const char *)glewGetErrorString(glew));
        ona__window_destroy(w);
        return ONA_EGFX;
    }
    /* GLEW may leave a GL error behind on core profiles. */
    while (glGetError() != GL_NO_ERROR)
        ;
    int vsync = desc.vsync == ONA_VSYNC_OFF ? 0 : 1;
    if (SDL_GL_SetSwapInterval(vsync) != 0 && vsync)
        ona_log(ONA_LOG_INFO, "window", "vsync not available: %s", SDL_GetError());
    const char *version = (const char *)glGetString(GL_VERSION);
    ona_log(minor == 6 ? ONA_LOG_DEBUG : ONA_LOG_INFO, "window", "OpenGL %s on %s (%s driver)%s",
            version ? version : "?", (const char *)glGetString(GL_RENDERER), w->driver,
            minor == 6 ? "" : ": 4.6 not offered, running on 4.5");
    SDL_GL_GetDrawableSize(w->window, &w->width, &w->height);
    SDL_StartTextInput();
    *out = w;
    return 0;
}

void ona__window_destroy(ona__window *w) {
    if (!w)
        return;
    if (w->context)
        SDL_GL_DeleteContext(w->context);
    if (w->window)
        SDL_DestroyWindow(w->window);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    ona__free(w);
}

/* SDL's offscreen driver makes its EGL surface once, with the window, and does not resize it:
 * a new size is a new hidden window (a new surface) with the same GL context made current on it,
 * so textures, buffers and programs stay. False (logged; the old size stays) when that fails. */
static bool resize_offscreen(ona__window *w, int width, int height) {
    int old_w, old_h;
    SDL_GetWindowSize(w->window, &old_w, &old_h);
    if (old_w == width && old_h == height)
        return true;
    SDL_Window *next = SDL_CreateWindow(SDL_GetWindowTitle(w->window), SDL_WINDOWPOS_CENTERED,
                                        SDL_WINDOWPOS_CENTERED, width, height,
                                        SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    if (!next || SDL_GL_MakeCurrent(next, w->context) != 0) {
        ona_log(ONA_LOG_WARN, "window", "offscreen: cannot resize to %dx%d (%s); staying %dx%d",
                width, height, SDL_GetError(), old_w, old_h);
        if (next)
            SDL_DestroyWindow(next);
        SDL_GL_MakeCurrent(w->window, w->context);
        return false;
    }
    SDL_DestroyWindow(w->window);
    w->window = next;
    return true;
}

void ona__window_configure(ona__window *w, const ona_window_desc *d) {
    if (d->title)
        SDL_SetWindowTitle(w->window, d->title);
    if (d->width > 0 && d->height > 0) {
        if (w->offscreen)
            resize_offscreen(w, d->width, d->height);
        else
            SDL_SetWindowSize(w->window, d->width, d->height);
    }
    if (!w->offscreen)
        SDL_SetWindowFullscreen(w->window, d->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    SDL_SetWindowResizable(w->window, d->resizable ? SDL_TRUE : SDL_FALSE);
    if (d->vsync != ONA_VSYNC_DEFAULT)
        SDL_GL_SetSwapInterval(d->vsync == ONA_VSYNC_OFF ? 0 : 1);
    SDL_GL_GetDrawableSize(w->window, &w->width, &w->height);
}

void ona__window_size(ona__window *w, int *width, int *height) {
    *width = w->width;
    *height = w->height;
}

void ona__window_swap(ona__window *w) {
    SDL_GL_SwapWindow(w->window);
}

bool ona__window_is_offscreen(ona__window *w) {
    return w->offscreen;
}

const char *ona__window_driver(ona__window *w) {
    return w->driver;
}

bool ona__window_debug_context(ona__window *w) {
    return w->debug;
}

static void lower_copy(char *dst, size_t size, const char *src) {
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

/* SDL_GetScancodeFromName's search without its error: for an unknown name it sets SDL's error,
 * which allocates SDL's per-thread error buffer, and on a thread SDL did not start (a worker
 * running ona.input.key_down or ona_ctx_key_down) that buffer is never freed. */
static int scancode_from_name(const char *name) {
    for (int sc = 1; sc < SDL_NUM_SCANCODES; sc++) {
        const char *known = SDL_GetScancodeName((SDL_Scancode)sc);
        if (known[0] && SDL_strcasecmp(name, known) == 0)
            return sc;
    }
    return 0;
}

void ona__window_normalise_key(ona_event *e) {
    if (e->type != ONA_EVENT_KEY_DOWN && e->type != ONA_EVENT_KEY_UP)
        return;
    /* Scancode names need no SDL video (keycode lookups need its keymap), so injected events
     * work in every mode. */
    if (e->as.key.name[0] && e->as.key.scancode == 0) {
        e->as.key.scancode = scancode_from_name(e->as.key.name);
    } else if (!e->as.key.name[0] && e->as.key.scancode > 0 &&
               e->as.key.scancode < SDL_NUM_SCANCODES) {
        lower_copy(e->as.key.name, sizeof e->as.key.name,
                   SDL_GetScancodeName((SDL_Scancode)e->as.key.scancode));
    }
    char lowered[sizeof e->as.key.name];
    lower_copy(lowered, sizeof lowered, e->as.key.name);
    memcpy(e->as.key.name, lowered, sizeof lowered);
    /* LÖVE's spelling of a key is SDL's key under another name ("lshift": "left shift"). */
    const char *sdl = ona__keys_from_love(e->as.key.name);
    if (sdl) {
        snprintf(e->as.key.name, sizeof e->as.key.name, "%s", sdl);
        if (e->as.key.scancode == 0)
            e->as.key.scancode = scancode_from_name(sdl);
    }
}

static bool translate(ona__window *w, const SDL_Event *s, ona_event *e) {
    memset(e, 0, sizeof *e);
    switch (s->type) {
    case SDL_QUIT:
        e->type = ONA_EVENT_QUIT;
        return true;
    case SDL_KEYDOWN:
    case SDL_KEYUP:
        e->type = s->type == SDL_KEYDOWN ? ONA_EVENT_KEY_DOWN : ONA_EVENT_KEY_UP;
        lower_copy(e->as.key.name, sizeof e->as.key.name, SDL_GetKeyName(s->key.keysym.sym));
        e->as.key.scancode = (int)s->key.keysym.scancode;
        e->as.key.repeat = s->key.repeat != 0;
        return true;
    case SDL_TEXTINPUT:
        e->type = ONA_EVENT_TEXT;
        snprintf(e->as.text.text, sizeof e->as.text.text, "%s", s->text.text);
        return true;
    case SDL_MOUSEMOTION:
        e->type = ONA_EVENT_MOUSE_MOVE;
        e->as.mouse.x = (float)s->motion.x;
        e->as.mouse.y = (float)s->motion.y;
        e->as.mouse.dx = (float)s->motion.xrel;
        e->as.mouse.dy = (float)s->motion.yrel;
        return true;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        e->type = s->type == SDL_MOUSEBUTTONDOWN ? ONA_EVENT_MOUSE_DOWN : ONA_EVENT_MOUSE_UP;
        e->as.mouse.x = (float)s->button.x;
        e->as.mouse.y = (float)s->button.y;
        e->as.mouse.button = s->button.button;
        return true;
    case SDL_MOUSEWHEEL:
        e->type = ONA_EVENT_MOUSE_WHEEL;
        e->as.wheel.dx = (float)s->wheel.x;
        e->as.wheel.dy = (float)s->wheel.y;
        return true;
    case SDL_WINDOWEVENT:
        switch (s->window.event) {
        case SDL_WINDOWEVENT_SIZE_CHANGED:
            SDL_GL_GetDrawableSize(w->window, &w->width, &w->height);
            e->type = ONA_EVENT_WINDOW_RESIZED;
            e->as.window.width = w->width;
            e->as.window.height = w->height;
            return true;
        case SDL_WINDOWEVENT_FOCUS_GAINED:
            e->type = ONA_EVENT_WINDOW_FOCUS;
            return true;
        case SDL_WINDOWEVENT_FOCUS_LOST:
            e->type = ONA_EVENT_WINDOW_BLUR;
            return true;
        default:
            return false;
        }
    default:
        return false;
    }
}

uint32_t ona__window_poll(ona__window *w, ona__gamepads *pads, ona_event *events, uint32_t max) {
    uint32_t n = 0;
    SDL_Event s;
    while (SDL_PollEvent(&s)) {
        /* Hot-plug is handled even when the list is full, so that no pad is left unopened. */
        ona_event pad;
        if (ona__gamepads_translate(pads, &s, &pad)) {
            if (n < max)
                events[n++] = pad;
        } else if (n < max && translate(w, &s, &events[n])) {
            n++;
        }
    }
    return n;
}
