/*
 * video_state.c: the draw state main applies between the turns (video.h): cameras per
 * layer range, layer defaults, game shaders and their uniforms, and the resolution of the frame's
 * sorted draws into runs that video.c's ona__video_present draws.
 *
 * Design note. The frame's settings (cameras per layer range, clear colours, layer defaults,
 * uniforms) are applied in merge order before drawing, so the last setter of each wins; they
 * persist until set again. Cameras, layer defaults and shader handles are written only here, by
 * main, between the turns, so systems read them without locks during the turns (to_world,
 * to_screen, ona__video_layer_view: "as resolved at the frame's start"). Each entry's blend,
 * program, view and target are resolved, and consecutive entries whose resolved state is equal
 * become one run; runs are drawn pass by pass (render_queue.c orders the canvas passes before the
 * screen's). Game shaders are compiled on first use or when their file changes; a failed compile
 * keeps the old program, and a shader that never compiled draws with the sprite program, said
 * once. Shader slots are published with a release store of their id, so any thread that sees the
 * id sees the path; v->lock guards only the slot count and the path search.
 */
#include "video_internal.h"

#include "common.h"

#include <math.h>
#include <string.h>

const ona__camera *ona__video_camera_for(const ona__video *v, int32_t layer) {
    for (uint32_t i = v->camera_count; i-- > 0;)
        if (v->cameras[i].lo <= layer && layer <= v->cameras[i].hi)
            return &v->cameras[i].camera;
    return NULL;
}

/* The screen view of `layer`: view as in ona__gfx_run, and the viewport from the top-left. */
static void layer_screen_view(const ona__video *v, int32_t layer, float view[4], float vp[4]) {
    int gl_vp[4];
    ona__camera_view(ona__video_camera_for(v, layer), v->width, v->height, false, view, gl_vp);
    vp[0] = (float)gl_vp[0];
    vp[1] = (float)(v->height - gl_vp[1] - gl_vp[3]);
    vp[2] = (float)gl_vp[2];
    vp[3] = (float)gl_vp[3];
}

void ona__video_to_world(const ona__video *v, int32_t layer, float sx, float sy, float *wx,
                         float *wy) {
    float view[4], vp[4];
    layer_screen_view(v, layer, view, vp);
    float nx = vp[2] > 0 ? (sx - vp[0]) / vp[2] * 2 - 1 : 0;
    float ny = vp[3] > 0 ? 1 - (sy - vp[1]) / vp[3] * 2 : 0;
    *wx = view[0] != 0 ? (nx - view[2]) / view[0] : 0;
    *wy = view[1] != 0 ? (ny - view[3]) / view[1] : 0;
}

void ona__video_to_screen(const ona__video *v, int32_t layer, float wx, float wy, float *sx,
                          float *sy) {
    float view[4], vp[4];
    layer_screen_view(v, layer, view, vp);
    float nx = wx * view[0] + view[2], ny = wy * view[1] + view[3];
    *sx = vp[0] + (nx + 1) / 2 * vp[2];
    *sy = vp[1] + (1 - ny) / 2 * vp[3];
}

bool ona__video_layer_view(const ona__video *v, int32_t layer, float rect[4]) {
    float view[4], vp[4];
    layer_screen_view(v, layer, view, vp);
    if (vp[2] <= 0 || vp[3] <= 0)
        return false;
    float x0, y0, x1, y1;
    ona__video_to_world(v, layer, vp[0], vp[1], &x0, &y0);
    ona__video_to_world(v, layer, vp[0] + vp[2], vp[1] + vp[3], &x1, &y1);
    rect[0] = ONA_MIN(x0, x1);
    rect[1] = ONA_MIN(y0, y1);
    rect[2] = fabsf(x1 - x0);
    rect[3] = fabsf(y1 - y0);
    return true;
}

static ona__shader_slot *shader_slot(ona__video *v, uint32_t id) {
    if (id == 0 || id > ONA__MAX_SHADERS)
        return NULL;
    ona__shader_slot *s = &v->shaders[id - 1];
    /* acquire: pairs with the release in ona__video_shader_load; path is complete. */
    return atomic_load_explicit(&s->id, memory_order_acquire) == id ? s : NULL;
}

bool ona__video_shader_valid(const ona__video *v, uint32_t id) {
    return id > 0 && id <= ONA__MAX_SHADERS &&
           /* acquire: as in shader_slot. */
           atomic_load_explicit(&v->shaders[id - 1].id, memory_order_acquire) == id;
}

const char *ona__video_shader_path(ona__video *v, uint32_t id) {
    ona__shader_slot *s = shader_slot(v, id);
    return s ? s->path : NULL;
}

int ona__video_shader_load(ona__video *v, const char *path, uint32_t *id) {
    size_t len = strlen(path);
    char *copy = ona__malloc(len + 1);
    if (!copy)
        return ONA_ENOMEM;
    memcpy(copy, path, len + 1);
    int rc = 0;
    uv_mutex_lock(&v->lock);
    if (v->shader_count >= ONA__MAX_SHADERS) {
        rc = ONA_ELIMIT;
    } else {
        ona__shader_slot *s = &v->shaders[v->shader_count++];
        s->path = copy;
        copy = NULL;
        *id = v->shader_count;
        /* release: readers that see the id see the path. */
        atomic_store_explicit(&s->id, *id, memory_order_release);
    }
    uv_mutex_unlock(&v->lock);
    ona__free(copy);
    return rc;
}

/* Main: sets a stored uniform on the shader's program, reporting (not passing to GL) a value
 * its type cannot take, with the shader file, the uniform and who set it; a name the program
 * does not have is reported once per name, with the names it has. */
static void apply_uniform(ona__video *v, ona__shader_slot *s, ona__uniform *u) {
    char why[512];
    int rc = ona__gfx_program_uniform(v->gfx, s->program, u->name, u->components, u->value, why,
                                      sizeof why);
    const char *at = u->at[0] ? u->at : "C";
    if (rc == ONA_EINVAL)
        ona_log(ONA_LOG_ERROR, s->path, "ona.gfx.uniform '%s' (at %s): %s; not set", u->name, at,
                why);
    else if (rc == ONA_ENOENT && !u->missing) {
        u->missing = true;
        ona_log(ONA_LOG_WARN, s->path,
                "ona.gfx.uniform '%s' (at %s): the shader has no such uniform in use (its "
                "uniforms: %s; one the shader does not use is compiled away)",
                u->name, at, why[0] ? why : "none");
    }
}

/* Main: builds a shader's program, keeping the old one (and logging) when the build fails; the
 * uniforms set so far are set again on a new program. */
static int build_shader(ona__video *v, ona__shader_slot *s) {
    s->tried = true;
    uint32_t program = 0;
    int rc = ona__gfx_program_build(v->gfx, s->path, &program);
    if (rc != 0)
        return rc;
    ona__gfx_program_free(v->gfx, s->program);
    s->program = program;
    s->warned = false;
    for (uint32_t i = 0; i < s->uniform_count; i++) {
        s->uniforms[i].missing = false; /* the new program may have it */
        apply_uniform(v, s, &s->uniforms[i]);
    }
    return 0;
}

void ona__video_shaders_build(ona__video *v) {
    if (!v->gfx)
        return;
    uv_mutex_lock(&v->lock);
    uint32_t count = v->shader_count;
    uv_mutex_unlock(&v->lock);
    for (uint32_t i = 0; i < count; i++) {
        ona__shader_slot *s = shader_slot(v, i + 1);
        if (s && !s->tried)
            build_shader(v, s);
    }
}

int ona__video_shader_reload(ona__video *v, uint32_t id) {
    ona__shader_slot *s = shader_slot(v, id);
    if (!s)
        return ONA_ESTALE;
    int rc = v->gfx ? build_shader(v, s) : 0;
    if (rc == 0)
        ona_log(ONA_LOG_INFO, "hot reload", "shader %s reloaded", s->path);
    else
        ona_log(ONA_LOG_WARN, "gfx", "shader %s: reload failed, the previous program stays",
                s->path);
    return rc;
}

static void set_uniform(ona__video *v, const ona__setting *st) {
    ona__shader_slot *s = shader_slot(v, st->target);
    if (!s)
        return;
    uint32_t i = 0;
    while (i < s->uniform_count && strcmp(s->uniforms[i].name, st->name) != 0)
        i++;
    if (i == ONA__MAX_UNIFORMS) {
        ona_log(ONA_LOG_WARN, s->path, "more than %d uniforms set: %s ignored", ONA__MAX_UNIFORMS,
                st->name);
        return;
    }
    if (i == s->uniform_count)
        s->uniform_count++;
    ona__uniform *u = &s->uniforms[i];
    memcpy(u->name, st->name, sizeof u->name);
    u->components = st->components;
    memcpy(u->value, st->value, sizeof u->value);
    memcpy(u->at, st->at, sizeof u->at);
    if (v->gfx && s->program)
        apply_uniform(v, s, u);
}

/* A camera over lo..hi: cameras whose ranges it covers are forgotten; when the table is full the
 * oldest goes. */
static void set_camera(ona__video *v, int32_t lo, int32_t hi, const ona__camera *camera) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < v->camera_count; i++)
        if (!(lo <= v->cameras[i].lo && v->cameras[i].hi <= hi))
            v->cameras[kept++] = v->cameras[i];
    v->camera_count = kept;
    if (v->camera_count == ONA__MAX_CAMERAS) {
        memmove(v->cameras, v->cameras + 1, (ONA__MAX_CAMERAS - 1) * sizeof *v->cameras);
        v->camera_count--;
    }
    v->cameras[v->camera_count++] = (ona__video_camera){lo, hi, *camera};
}

static void set_layer(ona__video *v, int32_t layer, uint32_t blend, uint32_t shader) {
    uint32_t i = 0;
    while (i < v->layer_count && v->layers[i].layer != layer)
        i++;
    if (i == ONA__MAX_LAYER_STATES) {
        ona_log(ONA_LOG_WARN, "gfx", "more than %d layers with defaults: layer %d's ignored",
                ONA__MAX_LAYER_STATES, (int)layer);
        return;
    }
    if (i == v->layer_count)
        v->layer_count++;
    v->layers[i] = (ona__layer_state){layer, blend, shader};
}

/* Applies the frame's settings in merge order (the last setter of each thing wins). */
void ona__video_apply_settings(ona__video *v) {
    for (uint32_t i = 0; i < v->list.setting_count; i++) {
        const ona__setting *st = v->list.settings[i];
        switch (st->kind) {
        case ONA__SET_CLEAR:
            if (st->target == 0)
                memcpy(v->clear, st->value, sizeof v->clear);
            break; /* canvas clears are done in draw_frame */
        case ONA__SET_CAMERA:
            set_camera(v, st->lo, st->hi, &st->camera);
            break;
        case ONA__SET_LAYER:
            set_layer(v, st->lo, st->blend, st->shader);
            break;
        case ONA__SET_UNIFORM:
            set_uniform(v, st);
            break;
        }
    }
}

static const ona__layer_state *layer_state(const ona__video *v, int32_t layer) {
    for (uint32_t i = 0; i < v->layer_count; i++)
        if (v->layers[i].layer == layer)
            return &v->layers[i];
    return NULL;
}

/* The GL program for a draw's shader: a game shader's, or 0 (the sprite program) for none, or
 * for one that never compiled (said once). */
static uint32_t program_for(ona__video *v, uint32_t shader) {
    ona__shader_slot *s = shader ? shader_slot(v, shader) : NULL;
    if (!s)
        return 0;
    if (!s->program && !s->warned) {
        s->warned = true;
        ona_log(ONA_LOG_WARN, s->path,
                "this shader never compiled: its draws use the default sprite shader");
    }
    return s->program;
}

/* Fills v->runs from the sorted entries, resolving each entry's state; writes the instances of
 * the entries drawn. Returns the run count. */
uint32_t ona__video_build_runs(ona__video *v, ona__render_queue *const *queues,
                               ona__sprite *instances, uint32_t *written_out) {
    uint32_t runs = 0, written = 0;
    for (uint32_t i = 0; i < v->list.count; i++) {
        const ona__draw *d = v->list.sorted[i];
        uint32_t fbo = 0;
        int tw = v->width, th = v->height;
        if (d->key.target) {
            fbo = ona__textures_fbo(&v->textures, d->key.target, &tw, &th);
            if (!fbo || d->key.texture == d->key.target)
                continue; /* not a canvas (or not made): discarded; sampling itself: refused */
        }
        const ona__layer_state *ls = layer_state(v, d->key.layer);
        ona__gfx_run r = {0};
        r.blend = d->key.blend ? d->key.blend : (ls && ls->blend ? ls->blend : ONA_BLEND_ALPHA);
        r.program = program_for(v, d->key.shader ? d->key.shader : (ls ? ls->shader : 0));
        r.has_view = true;
        ona__camera_view(ona__video_camera_for(v, d->key.layer), tw, th, fbo != 0, r.view,
                         r.viewport);
        r.texture = ona__textures_gl(&v->textures, d->key.texture, &r.width, &r.height);
        memcpy(instances + written, queues[d->queue]->sprites + d->first,
               (size_t)d->count * sizeof(ona_sprite));
        ona__gfx_run *last = runs ? &v->runs[runs - 1] : NULL;
        if (last && v->run_targets[runs - 1] == d->key.target && last->texture == r.texture &&
            last->program == r.program && last->blend == r.blend &&
            memcmp(last->view, r.view, sizeof r.view) == 0 &&
            memcmp(last->viewport, r.viewport, sizeof r.viewport) == 0) {
            last->count += d->count;
        } else {
            r.first = written;
            r.count = d->count;
            v->runs[runs] = r;
            v->run_targets[runs++] = d->key.target;
        }
        written += d->count;
    }
    *written_out = written;
    return runs;
}

/* Draws the runs pass by pass: each canvas's (cleared first when a system asked), then the
 * screen's. */
void ona__video_draw_runs(ona__video *v, uint32_t runs) {
    for (uint32_t i = 0; i < v->list.setting_count; i++) {
        const ona__setting *st = v->list.settings[i];
        int w, h;
        uint32_t fbo;
        if (st->kind == ONA__SET_CLEAR && st->target &&
            (fbo = ona__textures_fbo(&v->textures, st->target, &w, &h)) != 0)
            ona__gfx_canvas_clear(v->gfx, fbo, st->value);
    }
    uint32_t start = 0;
    while (start < runs) {
        uint32_t end = start + 1;
        while (end < runs && v->run_targets[end] == v->run_targets[start])
            end++;
        int w = v->width, h = v->height;
        uint32_t fbo = v->run_targets[start]
                           ? ona__textures_fbo(&v->textures, v->run_targets[start], &w, &h)
                           : 0;
        ona__gfx_target(v->gfx, fbo, w, h);
        ona__gfx_draw(v->gfx, v->runs + start, end - start);
        start = end;
    }
    ona__gfx_target(v->gfx, 0, v->width, v->height);
}
