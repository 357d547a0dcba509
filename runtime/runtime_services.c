/*
 * runtime_services.c: the public functions of ona/time.h, ona/save.h and ona/gfx.h (canvases,
 * shaders, fonts) that take an ona_runtime. Each checks its arguments and hands the runtime's
 * services (runtime/services) the call, so the embedding API and both hosts share one
 * implementation.
 */
#include "draw_state.h"
#include "runtime_internal.h"

/* --- Time (ona/time.h) ----------------------------------------------------------------------- */

double ona_runtime_frame_dt(ona_runtime *rt) {
    return rt ? ona__services_frame_dt(&rt->services) : 0;
}

double ona_runtime_time(const ona_runtime *rt) {
    return rt ? ona__services_time(&rt->services) : 0;
}

/* --- Saves (ona/save.h) ---------------------------------------------------------------------- */

int ona_runtime_save(ona_runtime *rt, const char *name, ona_message *value) {
    if (!rt || !name || !value)
        return ONA_EINVAL;
    return ona__services_save(&rt->services, name, value);
}

int ona_runtime_load(ona_runtime *rt, const char *name, ona_message *out) {
    if (!rt || !name || !out)
        return ONA_EINVAL;
    return ona__services_load(&rt->services, name, out);
}

const char *ona_runtime_save_dir(const ona_runtime *rt) {
    return rt && rt->services.save_dir ? rt->services.save_dir : "";
}

/* --- Canvases, shaders and fonts (ona/gfx.h, ona/text.h) -------------------------------------- */

int ona_runtime_canvas(ona_runtime *rt, int width, int height, ona_texture *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    return ona__services_canvas(&rt->services, width, height, 0, out);
}

int ona_runtime_shader_load(ona_runtime *rt, const char *path, ona_shader *out) {
    if (!rt || !path || !*path || !out)
        return ONA_EINVAL;
    return ona__services_shader_load(&rt->services, path, ONA__ASSET_RUNTIME, out);
}

int ona_runtime_font_load(ona_runtime *rt, const char *path, int size, ona_font *out) {
    if (out)
        out->id = 0;
    if (!rt || !out || !rt->services.video_ready)
        return ONA_EINVAL;
    /* The embedder's path is opened as given, not searched under the script roots. */
    return ona__services_font_load(&rt->services, path, size, "text", ONA__ASSET_RUNTIME, out);
}

int ona_font_measure(ona_runtime *rt, ona_font font, const char *text, size_t length,
                     const ona_text_desc *desc, float *width, float *height) {
    if (!rt || (!text && length))
        return ONA_EINVAL;
    return ona__services_font_measure(&rt->services, font, text, length, desc, width, height);
}

float ona_font_line_height(ona_runtime *rt, ona_font font) {
    return rt ? ona__services_font_line_height(&rt->services, font) : 0;
}
