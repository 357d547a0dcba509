/*
 * draw.c: the one draw path of Lua and native systems (services.h): sprites, printed text and
 * tile maps go through ona__system_draw into the render queue of the thread running the turn,
 * and the video queries the hosts make (coordinates, window and screenshot requests).
 *
 * Design note. A draw is tagged with the system's spawn order and its submission counter, so main
 * merges the queues into the same picture whatever thread ran which turn (render_queue.c). Outside
 * a turn the thread has no queue, which is how a draw from the wrong place is refused
 * (ONA_ETHREAD). Reads of the video here (cameras, texture sizes) see the frame start's state:
 * main changes it only between frames.
 */
#include "draw_transform.h"
#include "services.h"
#include "shapes.h"
#include "text.h"

/* Sprites through the system's draw state (draw_transform.c): its target unless the key names
 * one, and its transform, in chunks on the stack when it is not the identity. */
static int push_draw(ona__system *sys, const ona__draw_key *key, const ona_sprite *sprites,
                     uint32_t count) {
    ona__render_queue *q =
        ona__video_queue(&ona__services_of(sys)->video, ona__runq_thread_index());
    if (!q)
        return ONA_ETHREAD;
    const ona__draw_frame *f = &sys->draw;
    ona__draw_key k;
    if (f->target && !key->target) {
        k = *key;
        k.target = f->target;
        key = &k;
        if (k.target == k.texture)
            return ONA_EINVAL;
    }
    if (f->identity)
        return ona__render_queue_push(q, key, sys->spawn_order, &sys->draw_seq, sprites, count);
    ona_sprite chunk[ONA__SHAPE_CHUNK];
    for (uint32_t done = 0; done < count;) {
        uint32_t n = ONA_MIN(count - done, (uint32_t)ONA__SHAPE_CHUNK);
        ona__draw_frame_apply(f, sprites + done, chunk, n);
        int rc = ona__render_queue_push(q, key, sys->spawn_order, &sys->draw_seq, chunk, n);
        if (rc)
            return rc;
        done += n;
    }
    return 0;
}

/* A recording's digest of a draw: the key without its texture and canvas ids (handles are made
 * in load order, which may differ between thread counts) and the sprites' bytes. */
static void digest_draw(ona__system *sys, const ona__draw_key *key, const void *bytes,
                        size_t size) {
    uint64_t h = ona__digest_word(ONA__DIGEST_SEED, (uint64_t)(uint32_t)key->layer);
    h = ona__digest_word(h, ((uint64_t)key->blend << 32) | key->shader);
    if (!sys->draw.identity) /* the transform it went through */
        h = ona__digest_bytes(h, &sys->draw.a, 6 * sizeof sys->draw.a);
    ona__system_digest(sys, ONA__DIGEST_DREW, ona__digest_bytes(h, bytes, size));
}

int ona__system_draw(ona__system *sys, const ona__draw_key *key, const ona_sprite *sprites,
                     uint32_t count) {
    int rc = push_draw(sys, key, sprites, count);
    if (rc == 0 && sys->core->digesting)
        digest_draw(sys, key, sprites, (size_t)count * sizeof *sprites);
    return rc;
}

typedef struct print_target {
    ona__system *sys;
    int32_t layer;
} print_target;

/* Hands a print's sprites to the system's render queue. */
static int print_emit(void *user, uint32_t texture, const ona_sprite *sprites, uint32_t count) {
    print_target *to = user;
    return push_draw(to->sys, &(ona__draw_key){.layer = to->layer, .texture = texture}, sprites,
                     count);
}

int ona__system_print(ona__system *sys, ona_font font, const char *text, size_t length, float x,
                      float y, const ona_text_desc *desc) {
    ona__services *s = ona__services_of(sys);
    /* Glyphs are only made inside a turn, where main cannot be uploading the atlas. */
    if (!ona__video_queue(&s->video, ona__runq_thread_index()))
        return ONA_ETHREAD;
    print_target to = {sys, desc ? desc->layer : 0};
    int rc = ona__text_print(s->video.fonts, font, text, length, x, y, desc, print_emit, &to);
    if (rc == 0 && sys->core->digesting) {
        /* Printed text is digested as what was asked, not its glyph sprites: where a glyph lands
         * in the atlas depends on which thread made it first. */
        ona_text_desc d = desc ? *desc : (ona_text_desc){0};
        float place[4] = {x, y, d.width, d.scale};
        uint64_t h = ona__digest_bytes(ONA__DIGEST_SEED, place, sizeof place);
        h = ona__digest_word(h, ((uint64_t)d.align << 33) | ((uint64_t)d.wrap << 32) | d.tint);
        digest_draw(sys, &(ona__draw_key){.layer = d.layer}, text, length);
        sys->digest[ONA__DIGEST_DREW] = ona__digest_word(sys->digest[ONA__DIGEST_DREW], h);
    }
    return rc;
}

int ona__system_draw_tilemap(ona__system *sys, const ona__draw_key *key, const ona_tilemap *map,
                             float x, float y) {
    ona__services *s = ona__services_of(sys);
    ona_tilemap m = *map;
    if (m.texture_w <= 0 || m.texture_h <= 0)
        ona__textures_size(&s->video.textures, m.texture, &m.texture_w, &m.texture_h);
    float view[4];
    uint32_t total = 0;
    if (ona__video_layer_view(&s->video, key->layer, view)) {
        ona__system_view_to_local(sys, view); /* the map's own space under the transform */
        /* One tile of margin: the view is the frame start's, a moving camera's lags a frame. */
        view[0] -= (float)m.tile_w;
        view[1] -= (float)m.tile_h;
        view[2] += 2.0f * (float)m.tile_w;
        view[3] += 2.0f * (float)m.tile_h;
        ona_sprite chunk[ONA__SHAPE_CHUNK];
        for (;;) {
            uint32_t left = ona_tilemap_sprites(&m, x, y, view, total, chunk, ONA__SHAPE_CHUNK);
            uint32_t n = ONA_MIN(left, (uint32_t)ONA__SHAPE_CHUNK);
            if (n == 0)
                break;
            int rc = ona__system_draw(sys, key, chunk, n);
            if (rc)
                return rc;
            total += n;
        }
    }
    return 0;
}

ona__render_queue *ona__services_queue(ona__services *s) {
    return ona__video_queue(&s->video, ona__runq_thread_index());
}

bool ona__services_layer_view(const ona__services *s, int32_t layer, float rect[4]) {
    return ona__video_layer_view(&s->video, layer, rect);
}

ona_texture ona__services_white(const ona__services *s) {
    return s->video.textures.white;
}

ona_texture ona__services_debug_font(const ona__services *s) {
    return s->video.textures.font;
}

uint32_t ona__services_debug_text(const char *text, size_t size, float x, float y, float scale,
                                  uint32_t tint, ona_sprite *out, uint32_t max) {
    return ona__video_text(text, size, x, y, scale, tint, out, max);
}

void ona__services_video_size(const ona__services *s, int *width, int *height) {
    *width = s->video.width;
    *height = s->video.height;
}

void ona__services_request_window(ona__services *s, const ona_window_desc *desc) {
    ona__video_request_window(&s->video, desc);
}

int ona__services_screenshot(ona__services *s, const char *path) {
    return ona__video_request_screenshot(&s->video, path);
}

void ona__services_to_world(const ona__services *s, int32_t layer, float sx, float sy, float *wx,
                            float *wy) {
    ona__video_to_world(&s->video, layer, sx, sy, wx, wy);
}

void ona__services_to_screen(const ona__services *s, int32_t layer, float wx, float wy, float *sx,
                             float *sy) {
    ona__video_to_screen(&s->video, layer, wx, wy, sx, sy);
}
