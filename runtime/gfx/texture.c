/*
 * texture.c: the texture registry (texture.h).
 *
 * Design note. Slots are handed out in order and never reused, so a handle's slot index is
 * stable and `id` (generation << 16 | index + 1) is published once with a release store;
 * readers on any thread check it with an acquire load and then read the immutable size.
 * `pixels` and `gl` are written under the lock (load, upload), and read by main only. Decoding
 * happens outside the lock, so two threads loading different files do not wait for each other;
 * which file a texture came from is the asset registry's business (services/assets.c), which
 * loads each path once; a texture keeps its path only for messages.
 * A file that cannot be read still gets a slot of its own that draws the placeholder (no GL
 * name), so that a reload fills it when the file appears or is fixed.
 * An image is sized from its header (stbi_info_from_memory) before it is decoded: one over
 * MAX_SIDE a side or MAX_PIXELS in all is refused, by name, without spending the memory and the
 * time a decode would (a 1 MB PNG can claim 16000x16000: 1 GB of RGBA, twice with the copy).
 */
#include "texture.h"

#include "common.h"
#include "paths.h"

#include <stb_image.h>
#include <stdio.h>

/* The largest image loaded from a file: GL's common maximum texture side, and 64 Mpixels
 * (8192x8192: 256 MB of RGBA) in all. */
enum { MAX_SIDE = 16384, MAX_PIXELS = 8192 * 8192 };

static uint32_t make_id(uint32_t index, uint16_t generation) {
    return ((uint32_t)generation << 16) | (index + 1);
}

static ona__texture *slot_of(ona__textures *t, uint32_t id) {
    uint32_t index = id & 0xFFFFu;
    if (index == 0 || index > ONA__MAX_TEXTURES)
        return NULL;
    ona__texture *s = &t->slots[index - 1];
    /* acquire: pairs with the release in insert; the slot's size and path are complete. */
    return atomic_load_explicit(&s->id, memory_order_acquire) == id ? s : NULL;
}

/* Takes ownership of `pixels` and `path`. Called with the lock held. */
static int insert(ona__textures *t, char *path, int w, int h, uint8_t *pixels, bool placeholder,
                  ona_texture *out) {
    if (t->used >= ONA__MAX_TEXTURES)
        return ONA_ELIMIT;
    uint32_t index = t->used++;
    ona__texture *s = &t->slots[index];
    s->generation = 1;
    s->path = path;
    s->width = w;
    s->height = h;
    s->pixels = pixels;
    s->gl = 0;
    s->fbo = 0;
    s->placeholder = placeholder; /* `canvas` stays as the caller set it: slots start zeroed */
    t->pending++;
    out->id = make_id(index, s->generation);
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
    int rc = insert(t, NULL, w, h, copy, placeholder, out);
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
            rc = insert(t, NULL, ONA__FONT_ATLAS_W, ONA__FONT_ATLAS_H, atlas, false, &t->font);
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

/* Reads and decodes a PNG (or any format stb_image reads) into RGBA8 pixels. Logs under `who`
 * what went wrong. */
static int decode_file(const char *path, const char *who, int *w, int *h, uint8_t **out) {
    uint8_t *file = NULL;
    size_t size = 0;
    int rc = ona__read_file(path, INT32_MAX, &file, &size);
    if (rc) {
        ona_log(ONA_LOG_ERROR, who, "texture %s: %s; drawing the placeholder instead", path,
                ona__paths_why(rc, path));
        return rc;
    }
    int channels = 0;
    if (size <= INT32_MAX && stbi_info_from_memory(file, (int)size, w, h, &channels) &&
        (*w > MAX_SIDE || *h > MAX_SIDE || (int64_t)*w * *h > MAX_PIXELS)) {
        ona__free(file);
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: %dx%d is too large (at most %dx%d, %d pixels in "
                "all); not decoded, drawing the placeholder instead",
                path, *w, *h, MAX_SIDE, MAX_SIDE, MAX_PIXELS);
        return ONA_ELIMIT;
    }
    stbi_uc *decoded =
        size <= INT32_MAX ? stbi_load_from_memory(file, (int)size, w, h, &channels, 4) : NULL;
    ona__free(file);
    if (!decoded) {
        ona_log(ONA_LOG_ERROR, who,
                "texture %s: not a readable image (%s); drawing the "
                "placeholder instead",
                path, stbi_failure_reason() ? stbi_failure_reason() : "unknown format");
        return ONA_EFORMAT;
    }
    size_t bytes = (size_t)*w * (size_t)*h * 4;
    uint8_t *pixels = ona__malloc(bytes);
    if (!pixels) {
        stbi_image_free(decoded);
        return ONA_ENOMEM;
    }
    memcpy(pixels, decoded, bytes);
    stbi_image_free(decoded);
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
        made = insert(t, path_copy, w, h, pixels, false, out);
    } else {
        /* The file's own slot, drawing the placeholder (no GL name) at its size, until a reload
         * fills it: nothing to upload yet. */
        ona__texture *ph = slot_of(t, t->placeholder.id);
        made = insert(t, path_copy, ph->width, ph->height, NULL, true, out);
        if (made == 0)
            t->pending--;
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
    int rc = ONA_ELIMIT;
    if (t->free_count) { /* a freed canvas's slot, its generation already moved on */
        uint32_t index = t->free_slots[--t->free_count];
        ona__texture *s = &t->slots[index];
        s->width = width;
        s->height = height;
        s->gl = s->fbo = 0;
        s->canvas_made = false;
        s->owner = owner;
        t->pending++;
        out->id = make_id(index, s->generation);
        /* release: readers that see the id see the fields above. */
        atomic_store_explicit(&s->id, out->id, memory_order_release);
        rc = 0;
    } else if (t->used < ONA__MAX_TEXTURES) {
        /* Marked a canvas before insert publishes the id (release), so readers see it. */
        t->slots[t->used].canvas = true;
        t->slots[t->used].owner = owner;
        rc = insert(t, NULL, width, height, NULL, false, out);
    }
    if (rc == 0)
        t->canvases++;
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
        if (!s->canvas || s->owner != owner ||
            atomic_load_explicit(&s->id, memory_order_relaxed) == 0) /* main wrote it: as below */
            continue;
        if (!s->canvas_made)
            t->pending--;
        else if (gfx)
            ona__gfx_canvas_free(gfx, s->gl, s->fbo);
        s->gl = s->fbo = 0;
        s->canvas_made = true; /* nothing for the upload to make */
        s->owner = 0;
        /* relaxed: no turn runs between frames, and the next turn's start orders this store
         * before any lookup; the reuse below publishes the new id with release. */
        atomic_store_explicit(&s->id, 0, memory_order_relaxed);
        t->canvases--;
        freed++;
        if (s->generation < UINT16_MAX) { /* else retired: no handle ever comes back */
            s->generation++;
            t->free_slots[t->free_count++] = i;
        }
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
    /* Set before insert's release store publishes the handle (slots start zeroed and are never
     * reused, so `alpha` is NULL in every other texture). */
    if (t->used < ONA__MAX_TEXTURES) {
        t->slots[t->used].alpha = alpha;
        /* relaxed: published with the handle by insert's release store. */
        atomic_store_explicit(&t->slots[t->used].dirty, true, memory_order_relaxed);
    }
    int rc = insert(t, NULL, width, height, NULL, false, out);
    if (rc == 0)
        t->pending--; /* nothing in `pixels`: the alpha path uploads it */
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
