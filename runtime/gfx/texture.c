/*
 * texture.c: the texture registry (texture.h).
 *
 * Design note. Handles are generation-checked (core/handle.h): a slot's `id` is published with a
 * release store and readers on any thread check it with an acquire load, then read the size,
 * which only main changes, between frames. A texture loaded from a file is freed by
 * ona__textures_unload (main, at the frame boundary, when the asset registry drops its last
 * reference): its id is retired there, where no turn runs, and its slot is reused, with the next
 * generation, by a later insert, so a handle kept past its unload looks up to NULL.
 * A canvas is freed the same way when the system that owns it ends (ona__textures_free_canvases),
 * its slot going back to the same free list.
 * `pixels` and `gl` are written under the lock (load, upload), and read by main only. Decoding
 * happens outside the lock, so two threads loading different files do not wait for each other;
 * which file a texture came from is the asset registry's business (services/assets.c), which
 * loads each path once; a texture keeps its path only for messages.
 * A file that cannot be read still gets a slot of its own that draws the placeholder (no GL
 * name), so that a reload fills it when the file appears or is fixed.
 * Images are PNG, decoded by libpng's simplified API (png_image), which reports a damaged file
 * by a message rather than by reading past it. An image is sized from its header
 * (png_image_begin_read_from_memory) before it is decoded: one over
 * MAX_SIDE a side or MAX_PIXELS in all is refused, by name, without spending the memory and the
 * time a decode would (a 1 MB PNG can claim 16000x16000: 1 GB of RGBA, twice with the copy).
 */
#include "texture.h"

#include "common.h"
#include "handle.h"
#include "paths.h"

#include <png.h>
#include <stdio.h>

/* The largest image loaded from a file: GL's common maximum texture side, and 64 Mpixels
 * (8192x8192: 256 MB of RGBA) in all. */
enum { MAX_SIDE = 16384, MAX_PIXELS = 8192 * 8192 };

static ona__texture *slot_of(ona__textures *t, uint32_t id) {
    return ONA__HANDLE_LOOKUP(t->slots, ona__texture, ONA__MAX_TEXTURES, id);
}

/* A slot's fields as an empty one holds them (its size and generation aside): nothing owned,
 * no GL objects, no kind. */
static void clear_fields(ona__texture *s) {
    s->path = NULL;
    s->pixels = NULL;
    s->alpha = NULL;
    s->gl = 0;
    s->fbo = 0;
    s->placeholder = false;
    s->canvas = false;
    s->canvas_made = false;
    s->owner = 0;
}

/* Takes ownership of `pixels` and `path`; `canvas` and `alpha` say what kind of texture it is
 * (a slot's fields are set before the release store publishes its id). A slot freed by
 * ona__textures_unload is reused first, with the next generation. Called with the lock held. */
static int insert(ona__textures *t, char *path, int w, int h, uint8_t *pixels, bool placeholder,
                  bool canvas, const uint8_t *alpha, ona_texture *out) {
    uint32_t index;
    if (!ona__handle_take_slot(t->free_slots, &t->free_count, &t->used, ONA__MAX_TEXTURES, &index))
        return ONA_ELIMIT;
    ona__texture *s = &t->slots[index];
    s->generation = ona__handle_next_generation(s->generation);
    clear_fields(s);
    s->path = path;
    s->width = w;
    s->height = h;
    s->pixels = pixels;
    s->placeholder = placeholder;
    s->canvas = canvas;
    s->alpha = alpha;
    /* relaxed: published with the handle by the release store below. */
    atomic_store_explicit(&s->dirty, alpha != NULL, memory_order_relaxed);
    if (pixels || canvas)
        t->pending++; /* an alpha texture's buffer goes up through `dirty` instead */
    out->id = ona__handle_make(index, s->generation);
    /* release: readers that see the id see the fields above. */
    atomic_store_explicit(&s->id, out->id, memory_order_release);
    return 0;
}

static int create_locked(ona__textures *t, int w, int h, const uint8_t *rgba, bool placeholder,
                         ona_texture *out) {
    size_t bytes = (size_t)w * (size_t)h * 4;
    uint8_t *copy = ona__malloc(bytes);
    if (!copy)
        return ONA_ENOMEM;
    memcpy(copy, rgba, bytes);
    int rc = insert(t, NULL, w, h, copy, placeholder, false, NULL, out);
    if (rc)
        ona__free(copy);
    return rc;
}

int ona__textures_init(ona__textures *t) {
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < ONA__MAX_TEXTURES; i++) {
        atomic_init(&t->slots[i].id, 0);
        atomic_init(&t->slots[i].dirty, false);
    }
    if (uv_mutex_init(&t->lock))
        return ONA_ENOMEM;
    /* The placeholder: 16x16, 4x4 squares of magenta and black, impossible to miss. */
    uint8_t check[16 * 16 * 4];
    for (int y = 0; y < 16; y++) {
        for (int x = 0; x < 16; x++) {
            bool on = ((x / 4) + (y / 4)) % 2 == 0;
            uint8_t *p = check + (y * 16 + x) * 4;
            p[0] = on ? 255 : 0;
            p[1] = 0;
            p[2] = on ? 255 : 0;
            p[3] = 255;
        }
    }
    int rc = create_locked(t, 16, 16, check, true, &t->placeholder);
    if (rc == 0) {
        uint8_t *atlas = ona__malloc(ONA__FONT_ATLAS_W * ONA__FONT_ATLAS_H * 4);
        if (!atlas)
            rc = ONA_ENOMEM;
        else {
            ona__font_atlas(atlas);
            rc = insert(t, NULL, ONA__FONT_ATLAS_W, ONA__FONT_ATLAS_H, atlas, false, false, NULL,
                        &t->font);
            if (rc)
                ona__free(atlas);
        }
    }
    if (rc == 0) {
        /* One opaque white texel that shapes (free quads) are filled with. */
        static const uint8_t white[4] = {255, 255, 255, 255};
        rc = create_locked(t, 1, 1, white, false, &t->white);
    }
    if (rc)
        ona__textures_free(t, NULL);
    return rc;
}

void ona__textures_free(ona__textures *t, ona__gfx *gfx) {
    for (uint32_t i = 0; i < t->used; i++) {
        ona__texture *s = &t->slots[i];
        if (gfx && s->canvas)
            ona__gfx_canvas_free(gfx, s->gl, s->fbo);
        else if (gfx && s->gl)
            ona__gfx_texture_free(gfx, s->gl);
        ona__free(s->pixels);
        ona__free(s->path);
        s->pixels = NULL;
        s->path = NULL;
        s->gl = 0;
    }
    t->used = 0;
    uv_mutex_destroy(&t->lock);
}

/* Reads and decodes a PNG into RGBA8 pixels (sRGB, straight alpha). Logs under `who` what went
 * wrong. */
static int decode_file(const char *path, const char *who, int *w, int *h, uint8_t **out) {
    uint8_t *file = NULL;
    size_t size = 0;
    int rc = ona__read_file(path, INT32_MAX, &file, &size);
    if (rc) {
        ona_log(ONA_LOG_ERROR, who, "texture %s: %s; drawing the placeholder instead", path,
                ona__paths_why(rc, path));
        return rc;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (size < 8 || png_sig_cmp(file, 0, 8) != 0) {
        ona__free(file);
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: not a PNG file (no PNG signature); drawing the placeholder instead",
                path);
        return ONA_EFORMAT;
    }
    if (!png_image_begin_read_from_memory(&image, file, size)) {
        ona__free(file);
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: not a readable PNG (libpng: %s); drawing the placeholder instead",
                path, image.message);
        png_image_free(&image);
        return ONA_EFORMAT;
    }
    if (image.width > MAX_SIDE || image.height > MAX_SIDE ||
        (uint64_t)image.width * image.height > MAX_PIXELS) {
        ona__free(file);
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: %ux%u is too large (at most %dx%d, %d pixels in "
                "all); not decoded, drawing the placeholder instead",
                path, (unsigned)image.width, (unsigned)image.height, MAX_SIDE, MAX_SIDE,
                MAX_PIXELS);
        png_image_free(&image);
        return ONA_ELIMIT;
    }
    image.format = PNG_FORMAT_RGBA;
    *w = (int)image.width;
    *h = (int)image.height;
    uint8_t *pixels = ona__malloc(PNG_IMAGE_SIZE(image));
    if (!pixels) {
        ona__free(file);
        png_image_free(&image);
        return ONA_ENOMEM;
    }
    /* finish_read frees libpng's state whether or not it succeeds. */
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        ona__free(file);
        ona__free(pixels);
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: not a readable PNG (libpng: %s); drawing the placeholder instead",
                path, image.message);
        png_image_free(&image);
        return ONA_EFORMAT;
    }
    ona__free(file);
    *out = pixels;
    return 0;
}

int ona__textures_load(ona__textures *t, const char *path, const char *who, ona_texture *out) {
    out->id = t->placeholder.id;
    int w = 0, h = 0;
    uint8_t *pixels = NULL;
    int rc = decode_file(path, who, &w, &h, &pixels);
    char *path_copy = ona__malloc(strlen(path) + 1);
    if (!path_copy) {
        ona__free(pixels);
        return ONA_ENOMEM;
    }
    strcpy(path_copy, path);
    uv_mutex_lock(&t->lock);
    int made;
    if (rc == 0) {
        made = insert(t, path_copy, w, h, pixels, false, false, NULL, out);
    } else {
        /* The file's own slot, drawing the placeholder (no GL name) at its size, until a reload
         * fills it: nothing to upload yet. */
        ona__texture *ph = slot_of(t, t->placeholder.id);
        made = insert(t, path_copy, ph->width, ph->height, NULL, true, false, NULL, out);
    }
    if (made) {
        ona__free(pixels);
        ona__free(path_copy);
        out->id = t->placeholder.id;
    }
    uv_mutex_unlock(&t->lock);
    if (made)
        ona_log(ONA_LOG_ERROR, who, "texture %s: %s (at most %d textures)", path,
                ona_strerror(made), ONA__MAX_TEXTURES);
    return rc ? rc : made;
}

int ona__textures_reload(ona__textures *t, ona_texture tex, const char *path) {
    ona__texture *s = slot_of(t, tex.id);
    if (!s || !s->path)
        return ONA_ESTALE; /* not loaded from a file (the placeholder, a canvas, an atlas) */
    int w = 0, h = 0;
    uint8_t *pixels = NULL;
    int rc = decode_file(path, "hot reload", &w, &h, &pixels);
    if (rc)
        return rc;
    uv_mutex_lock(&t->lock);
    if (s->pixels)
        ona__free(s->pixels);
    else
        t->pending++;
    s->pixels = pixels;
    s->width = w;
    s->height = h;
    s->placeholder = false;
    uv_mutex_unlock(&t->lock);
    return 0;
}

/* Frees a slot's pixels and GL objects and retires its id, for reuse. Main, at the frame boundary
 * or after the turns (no turn can look the id up); called with the lock held. */
static void free_slot_locked(ona__textures *t, ona__gfx *gfx, ona__texture *s) {
    /* release: the next frame's start orders this before any turn that could look the id up. */
    atomic_store_explicit(&s->id, 0, memory_order_release);
    if (s->canvas) {
        if (!s->canvas_made)
            t->pending--; /* its GL objects were never made */
        else if (gfx)
            ona__gfx_canvas_free(gfx, s->gl, s->fbo);
        t->canvases--;
    } else if (gfx && s->gl) {
        ona__gfx_texture_free(gfx, s->gl);
    }
    if (s->pixels)
        t->pending--;
    ona__free(s->pixels);
    ona__free(s->path);
    clear_fields(s);
    t->free_slots[t->free_count++] = (uint32_t)(s - t->slots);
}

static void free_slot(ona__textures *t, ona__gfx *gfx, ona__texture *s) {
    uv_mutex_lock(&t->lock);
    free_slot_locked(t, gfx, s);
    uv_mutex_unlock(&t->lock);
}

int ona__textures_unload(ona__textures *t, ona__gfx *gfx, ona_texture tex) {
    ona__texture *s = slot_of(t, tex.id);
    if (!s || !s->path)
        return ONA_ESTALE; /* not loaded from a file: the texture's maker keeps it */
    free_slot(t, gfx, s);
    return 0;
}

int ona__textures_free_alpha(ona__textures *t, ona__gfx *gfx, ona_texture tex) {
    ona__texture *s = slot_of(t, tex.id);
    if (!s || !s->alpha)
        return ONA_ESTALE;
    free_slot(t, gfx, s);
    return 0;
}

uint32_t ona__textures_live(ona__textures *t) {
    uv_mutex_lock(&t->lock);
    uint32_t n = t->used - t->free_count;
    uv_mutex_unlock(&t->lock);
    return n;
}

int ona__textures_create(ona__textures *t, int width, int height, const uint8_t *rgba,
                         ona_texture *out) {
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384 || !rgba || !out)
        return ONA_EINVAL;
    uv_mutex_lock(&t->lock);
    int rc = create_locked(t, width, height, rgba, false, out);
    uv_mutex_unlock(&t->lock);
    return rc;
}

int ona__textures_canvas(ona__textures *t, int width, int height, uint64_t owner,
                         ona_texture *out) {
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384 || !out)
        return ONA_EINVAL;
    uv_mutex_lock(&t->lock);
    int rc = insert(t, NULL, width, height, NULL, false, true, NULL, out);
    if (rc == 0) {
        /* Read only under the lock (ona__textures_free_canvases), so set after the publish. */
        slot_of(t, out->id)->owner = owner;
        t->canvases++;
    }
    uv_mutex_unlock(&t->lock);
    return rc;
}

uint32_t ona__textures_free_canvases(ona__textures *t, ona__gfx *gfx, uint64_t owner) {
    if (!owner)
        return 0;
    uint32_t freed = 0;
    uv_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->used; i++) {
        ona__texture *s = &t->slots[i];
        /* relaxed: main wrote every id it reads here (retires and publishes are main's or under
         * this lock). */
        if (!s->canvas || s->owner != owner ||
            atomic_load_explicit(&s->id, memory_order_relaxed) == 0)
            continue;
        free_slot_locked(t, gfx, s);
        freed++;
    }
    uv_mutex_unlock(&t->lock);
    return freed;
}

bool ona__textures_is_placeholder(ona__textures *t, uint32_t id) {
    ona__texture *s = slot_of(t, id);
    return s && s->placeholder;
}

bool ona__textures_is_canvas(ona__textures *t, uint32_t id) {
    ona__texture *s = slot_of(t, id);
    return s && s->canvas;
}

uint32_t ona__textures_fbo(ona__textures *t, uint32_t id, int *width, int *height) {
    ona__texture *s = slot_of(t, id);
    if (!s || !s->canvas)
        return 0;
    *width = s->width;
    *height = s->height;
    return s->fbo;
}

bool ona__textures_size(ona__textures *t, ona_texture tex, int *width, int *height) {
    ona__texture *s = slot_of(t, tex.id);
    if (!s)
        return false;
    *width = s->width;
    *height = s->height;
    return true;
}

/* An alpha texture's buffer as white RGBA, uploaded in place of its previous GL texture. */
static void upload_alpha(ona__texture *s, ona__gfx *gfx) {
    size_t count = (size_t)s->width * (size_t)s->height;
    uint8_t *rgba = ona__malloc(count * 4);
    if (!rgba) {
        ona_log(ONA_LOG_ERROR, "gfx", "glyph atlas: out of memory uploading; retried next frame");
        atomic_store_explicit(&s->dirty, true, memory_order_relaxed); /* main only, as below */
        return;
    }
    for (size_t i = 0; i < count; i++) {
        rgba[i * 4] = rgba[i * 4 + 1] = rgba[i * 4 + 2] = 255;
        rgba[i * 4 + 3] = s->alpha[i];
    }
    if (s->gl)
        ona__gfx_texture_free(gfx, s->gl);
    s->gl = 0;
    if (ona__gfx_texture_upload(gfx, s->width, s->height, rgba, &s->gl) != 0)
        ona_log(ONA_LOG_ERROR, "gfx", "glyph atlas: upload failed");
    ona__free(rgba);
}

void ona__textures_upload(ona__textures *t, ona__gfx *gfx) {
    uv_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < t->used; i++) {
        ona__texture *s = &t->slots[i];
        if (s->canvas) { /* no pixels: main makes its texture and framebuffer once */
            if (!s->canvas_made) {
                s->canvas_made = true;
                if (ona__gfx_canvas_create(gfx, s->width, s->height, &s->gl, &s->fbo) != 0)
                    ona_log(ONA_LOG_ERROR, "gfx",
                            "canvas %dx%d: cannot make its framebuffer; drawing into it is "
                            "discarded",
                            s->width, s->height);
                t->pending--;
            }
            continue;
        }
        /* relaxed: the buffer was written inside this frame's turns, and the frame's end
         * synchronised every worker with main before this call, which orders flag and bytes. */
        if (s->alpha && atomic_exchange_explicit(&s->dirty, false, memory_order_relaxed))
            upload_alpha(s, gfx);
        if (!s->pixels || !t->pending)
            continue;
        if (s->gl) { /* reloaded: the new pixels replace the old texture */
            ona__gfx_texture_free(gfx, s->gl);
            s->gl = 0;
        }
        if (ona__gfx_texture_upload(gfx, s->width, s->height, s->pixels, &s->gl) != 0)
            ona_log(ONA_LOG_ERROR, "gfx", "texture %s: upload failed",
                    s->path ? s->path : "(made)");
        ona__free(s->pixels);
        s->pixels = NULL;
        t->pending--;
    }
    uv_mutex_unlock(&t->lock);
}

int ona__textures_create_alpha(ona__textures *t, int width, int height, const uint8_t *alpha,
                               ona_texture *out) {
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384 || !alpha || !out)
        return ONA_EINVAL;
    uv_mutex_lock(&t->lock);
    int rc = insert(t, NULL, width, height, NULL, false, false, alpha, out);
    uv_mutex_unlock(&t->lock);
    return rc;
}

void ona__textures_touch(ona__textures *t, ona_texture tex) {
    ona__texture *s = slot_of(t, tex.id);
    /* relaxed: main reads it after the frame's end synchronised with this thread. */
    if (s && s->alpha)
        atomic_store_explicit(&s->dirty, true, memory_order_relaxed);
}

uint32_t ona__textures_gl(ona__textures *t, uint32_t id, int *width, int *height) {
    ona__texture *s = slot_of(t, id);
    if (!s || !s->gl)
        s = slot_of(t, t->placeholder.id);
    *width = s->width;
    *height = s->height;
    return s->gl;
}
