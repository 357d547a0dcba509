/*
 * draw_state.c: the draw state systems set (draw_state.h) and the C API for it (ona/runtime.h:
 * ona_runtime_canvas, ona_runtime_shader_load; ona_ctx_draw_ex and ona_ctx_camera are in
 * native.c, which owns ona_ctx).
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
        ona__video_queue(&ona__runtime_of(sys->core)->video, ona__runq_thread_index());
    if (!q)
        return ONA_ETHREAD;
    return ona__render_queue_set(q, sys->spawn_order, &sys->draw_seq, setting);
}

int ona__draw_key_check(ona_runtime *rt, const ona__draw_key *key, const char **why) {
    if (key->blend > ONA_BLEND_MULTIPLY) {
        *why = "unknown blend mode";
        return ONA_EINVAL;
    }
    if (key->shader && !ona__video_shader_valid(&rt->video, key->shader)) {
        *why = "not a shader handle (ona.gfx.shader)";
        return ONA_EINVAL;
    }
    if (key->target && !ona__textures_is_canvas(&rt->video.textures, key->target)) {
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

int ona_runtime_canvas(ona_runtime *rt, int width, int height, ona_texture *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    return ona__textures_canvas(&rt->video.textures, width, height, out);
}

int ona_runtime_shader_load(ona_runtime *rt, const char *path, ona_shader *out) {
    if (!rt || !path || !*path || !out)
        return ONA_EINVAL;
    out->id = 0;
    return ona__assets_load(&rt->assets, ONA__ASSET_SHADER, path, 0, "gfx", &out->id, NULL, 0);
}
