/*
 * texture.h: the texture registry: handles, loading PNG files on any thread, uploads on main.
 * Internal.
 *
 * A system loads a texture from its turn, on whatever thread runs it, and may draw with it in
 * the same turn. So loading decodes the file at once on the calling thread (libpng) and
 * hands out a handle with the size known; the GL upload waits for the main thread, which does
 * every pending upload before it draws the frame. A missing or corrupt file logs its path and
 * gives a handle that draws a visible placeholder (a magenta and black checkerboard) with the
 * error, never a crash. Which path has which handle is the asset registry's
 * (services/assets.h): each call here makes a new texture.
 */
#ifndef ONA_TEXTURE_H
#define ONA_TEXTURE_H

#include "ona/gfx.h"

#include "gfx_gl.h"

#include <stdatomic.h>
#include <uv.h>

#define ONA__MAX_TEXTURES 4096

typedef struct ona__texture {
    _Atomic uint32_t id; /* the live handle, or 0 */
    uint16_t generation;
    char *path; /* the resolved path it was loaded from (NULL for made ones) */
    int width, height;
    uint8_t *pixels; /* RGBA8 waiting for upload (main frees it after uploading) */
    uint32_t gl;     /* GL texture name, 0 until uploaded */
    bool placeholder;
    bool canvas;      /* a canvas: made on main with a framebuffer, no pixels */
    uint32_t fbo;     /* a canvas's GL framebuffer, 0 until made */
    bool canvas_made; /* main: its texture and framebuffer were made (or failed: logged) */
    uint64_t owner;   /* a canvas's owner (a system handle), freed with it; 0: the runtime's */
    /* An atlas page's 8-bit coverage, owned by its maker (text.c); main
     * uploads it as white with that alpha whenever `dirty` is set. NULL for other textures. */
    const uint8_t *alpha;
    atomic_bool dirty;
} ona__texture;

typedef struct ona__textures {
    uv_mutex_t lock;
    ona__texture slots[ONA__MAX_TEXTURES];
    uint32_t used;     /* slots handed out so far (high-water mark) */
    uint32_t canvases; /* live canvases */
    /* Slots below `used` freed by unload or with their canvas's owner, reused first. */
    uint32_t free_slots[ONA__MAX_TEXTURES];
    uint32_t free_count;
    uint32_t pending;        /* textures waiting for upload */
    ona_texture placeholder; /* made at init */
    ona_texture font;        /* the debug font atlas */
    ona_texture white;       /* 1x1 opaque white: shapes */
} ona__textures;

int ona__textures_init(ona__textures *t);
/* Frees pixels and GL textures (gfx may be NULL when there is no GL). Main thread. */
void ona__textures_free(ona__textures *t, ona__gfx *gfx);

/* Loads `path` (already resolved against the script roots) into a new texture. Any thread. On
 * failure returns ONA_ENOENT (no file), ONA_EFORMAT (not a decodable image), ONA_ELIMIT or
 * ONA_ENOMEM, logs the path under `who`, and still sets *out to a texture that draws the
 * placeholder (at its size) so the caller can draw something visible: the file's own, which
 * ona__textures_reload fills later, or the shared placeholder when none can be made. */
int ona__textures_load(ona__textures *t, const char *path, const char *who, ona_texture *out);

/* Main thread, at the frame boundary (no turn runs): frees a texture loaded from a file, its
 * pixels and its GL texture (gfx may be NULL: no GL); the handle is stale from then on and its
 * slot is reused. ONA_ESTALE for a stale handle or one not loaded from a file (their makers keep
 * them). */
int ona__textures_unload(ona__textures *t, ona__gfx *gfx, ona_texture tex);
/* How many textures are live (made, loaded and not unloaded, the built-in ones included). Any
 * thread. */
uint32_t ona__textures_live(ona__textures *t);

/* Makes a texture from RGBA8 pixels (copied). Any thread. */
int ona__textures_create(ona__textures *t, int width, int height, const uint8_t *rgba,
                         ona_texture *out);

/* Makes a canvas: a width x height texture that draws can target, owned by `owner` (a system
 * handle; 0: the runtime, freed at the end). Its GL texture and framebuffer are made by main with
 * the next upload; until then (and with no GL at all) draws into it are discarded and drawing it
 * draws the placeholder. A freed canvas's slot is reused under the next generation, so its old
 * handle looks up to nothing. Any thread. Errors: ONA_EINVAL, ONA_ELIMIT (the table is full). */
int ona__textures_canvas(ona__textures *t, int width, int height, uint64_t owner, ona_texture *out);
/* Main thread, between frames (no turn runs): frees every canvas of `owner` (not 0), its GL
 * objects with it (gfx may be NULL), and returns how many. Their handles go stale. */
uint32_t ona__textures_free_canvases(ona__textures *t, ona__gfx *gfx, uint64_t owner);
/* Whether a handle draws the placeholder: the placeholder itself, or a file's texture whose
 * file could not be read (yet). Any thread inside a turn (main changes it between frames). */
bool ona__textures_is_placeholder(ona__textures *t, uint32_t id);
/* Whether a live handle is a canvas. Any thread. */
bool ona__textures_is_canvas(ona__textures *t, uint32_t id);
/* Main thread, after upload: a canvas's framebuffer (0 when not a canvas or not made yet). */
uint32_t ona__textures_fbo(ona__textures *t, uint32_t id, int *width, int *height);

/* The size of a live texture; false for a stale handle. Any thread. */
bool ona__textures_size(ona__textures *t, ona_texture tex, int *width, int *height);

/* Main thread, between frames: decodes `path` into `tex`, a texture loaded from a file (same
 * handle, size may change; a placeholder one gets its real picture); it is uploaded with the
 * next frame. Returns ONA_ESTALE for a handle not loaded from a file, or the decode error
 * (logged; the old picture stays). */
int ona__textures_reload(ona__textures *t, ona_texture tex, const char *path);

/* Main thread: uploads every texture still waiting. */
void ona__textures_upload(ona__textures *t, ona__gfx *gfx);

/* --- Textures whose pixels their maker rewrites ----------------------------------------------- */

/* Makes a width x height texture drawn from `alpha`, an 8-bit coverage buffer (rows top to
 * bottom) that stays the caller's and must outlive the registry's uploads: it is uploaded, as
 * white with that alpha, with the next frame and again after each ona__textures_touch. Any
 * thread (takes the registry's lock). Errors: ONA_EINVAL, ONA_ELIMIT, ONA_ENOMEM. */
int ona__textures_create_alpha(ona__textures *t, int width, int height, const uint8_t *alpha,
                               ona_texture *out);
/* Main thread, after the turns or at the frame boundary: frees such a texture (its GL texture;
 * the buffer stays the maker's, who may free it once this returns). ONA_ESTALE for a stale
 * handle or another kind of texture. */
int ona__textures_free_alpha(ona__textures *t, ona__gfx *gfx, ona_texture tex);
/* Marks such a texture's buffer changed: main uploads it again after this frame's turns. Any
 * thread, no lock; the buffer may only be written where main does not upload (inside turns). */
void ona__textures_touch(ona__textures *t, ona_texture tex);

/* Main thread, after upload: the GL name and size of a handle, or the placeholder's for a
 * stale one. */
uint32_t ona__textures_gl(ona__textures *t, uint32_t id, int *width, int *height);

#endif
