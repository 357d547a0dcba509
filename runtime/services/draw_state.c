/*
 * draw_state.c: the draw state systems set (draw_state.h), and the canvases and game
 * shaders behind ona_runtime_canvas, ona_runtime_shader_load (ona/gfx.h), ona.gfx.canvas and
 * ona.gfx.shader.
 *
 * Design note. A setting is queued like a draw, on the render queue of the thread running the
 * turn, tagged (spawn order, submission number); main applies the frame's settings in that order
 * (video_state.c), so the last setter wins whatever thread ran what. Canvases and shaders are
 * handles made on any thread; their GL objects are made by main before the next frame is drawn.
 */
#include "draw_state.h"

#include <limits.h>
#include <stdio.h>

int ona__system_set(ona__system *sys, const ona__setting *setting) {
    ona__render_queue *q =
        ona__video_queue(&ona__services_of(sys)->video, ona__runq_thread_index());
    if (!q)
        return ONA_ETHREAD;
    return ona__render_queue_set(q, sys->spawn_order, &sys->draw_seq, setting);
}

int ona__draw_key_check(ona__services *s, const ona__draw_key *key, const char **why) {
    if (key->blend > ONA_BLEND_MULTIPLY) {
        *why = "unknown blend mode";
        return ONA_EINVAL;
    }
    if (key->shader && !ona__video_shader_valid(&s->video, key->shader)) {
        *why = "not a shader handle (ona.gfx.shader)";
        return ONA_EINVAL;
    }
    if (key->target && !ona__textures_is_canvas(&s->video.textures, key->target)) {
        *why = "the target is not a canvas (ona.gfx.canvas)";
        return ONA_EINVAL;
    }
    if (key->target && key->target == key->texture) {
        *why = "a canvas cannot be drawn into itself";
        return ONA_EINVAL;
    }
    return 0;
}

ona__setting ona__camera_setting(const ona_camera_desc *d) {
    ona__setting s = {.kind = ONA__SET_CAMERA};
    s.lo = d->layer_range ? d->layer_lo : INT32_MIN;
    s.hi = d->layer_range ? d->layer_hi : INT32_MAX;
    s.camera = (ona__camera){d->x,          d->y,          d->zoom > 0 ? d->zoom : 1,
                             d->viewport_x, d->viewport_y, d->viewport_w,
                             d->viewport_h};
    return s;
}

bool ona__services_shader_valid(const ona__services *s, uint32_t id) {
    return ona__video_shader_valid(&s->video, id);
}

bool ona__services_is_canvas(ona__services *s, uint32_t id) {
    return ona__textures_is_canvas(&s->video.textures, id);
}

int ona__services_canvas(ona__services *s, int width, int height, uint64_t owner,
                         ona_texture *out) {
    return ona__textures_canvas(&s->video.textures, width, height, owner, out);
}

uint32_t ona__services_free_canvases(ona__services *s, uint64_t owner) {
    return ona__textures_free_canvases(&s->video.textures, s->video.gfx, owner);
}

int ona__services_shader_load(ona__services *s, const char *path, uint64_t holder,
                              ona_shader *out) {
    out->id = 0;
    if (!*path)
        return ONA_EINVAL;
    return ona__assets_load(&s->assets, ONA__ASSET_SHADER, path, 0, "gfx", holder, &out->id, NULL,
                            0);
}
