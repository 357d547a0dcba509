/*
 * video.c: the main thread's side of a frame's picture (video.h).
 *
 * Design note. Before the turns, main polls the window into the frame's event list (plus any
 * events an embedder pushed) and folds them into the input state; both stay read-only while
 * systems run, which is what lets every system on every thread read them without locks. After
 * the turns, main uploads the textures systems loaded during the frame (and glyph atlas pages
 * their prints wrote, text_glyphs.c) and builds their shaders, before present (ona__textures_upload and
 * ona__video_shaders_build, called as the asset registry's upload hooks); present merges the
 * threads' render queues (render_queue.c), copies the
 * sorted sprites once into the renderer's mapped instance buffer, and draws one instanced draw per
 * run of sprites sharing a texture. The debug overlay (F3) is drawn last, in screen space, with the
 * built-in font.
 *
 * Draw state: the frame's settings are applied, and the sorted draws resolved into
 * runs and drawn, by video_state.c (video_internal.h); ona__video_present calls it between the
 * merge and the swap.
 */
#include "video_internal.h"

#include "common.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef ONA_INSTALL_SHADER_DIR
#define ONA_INSTALL_SHADER_DIR "/usr/local/share/ona/shaders"
#endif
#ifndef ONA_SOURCE_SHADER_DIR
#define ONA_SOURCE_SHADER_DIR "shaders"
#endif

/* Chooses the folder sprite.vert and sprite.frag are read from: the desc's shader_dir; else the
 * ONA_SHADER_DIR environment variable; else, where sprite.vert exists, <folder of the binary
 * holding this code>/../share/ona/shaders (dladdr names libona.so in a shared build and the
 * executable in a static one, maybe only by a relative argv[0], so /proc/self/exe is tried too),
 * then the install prefix's (ONA_INSTALL_SHADER_DIR), then the source tree's. A computed path is
 * written to `buf`. Returns NULL, after logging every place tried, when none has sprite.vert. */
static const char *choose_shader_dir(const ona_window_desc *desc, char *buf, size_t size) {
    if (desc && desc->shader_dir) {
        ona_log(ONA_LOG_DEBUG, "video", "shaders from %s (ona_window_desc.shader_dir)",
                desc->shader_dir);
        return desc->shader_dir;
    }
    const char *env = getenv("ONA_SHADER_DIR");
    if (env && *env) {
        ona_log(ONA_LOG_DEBUG, "video", "shaders from %s (ONA_SHADER_DIR)", env);
        return env;
    }
    char binaries[2][PATH_MAX];
    int binary_count = 0;
    union {
        int (*fn)(ona__video *, ona_video, const ona_window_desc *, uint32_t);
        void *address;
    } self = {.fn = ona__video_init};
    Dl_info info;
    if (dladdr(self.address, &info) && info.dli_fname && info.dli_fname[0] &&
        realpath(info.dli_fname, binaries[0]))
        binary_count++;
    ssize_t n = readlink("/proc/self/exe", binaries[binary_count], PATH_MAX - 1);
    if (n > 0) {
        binaries[binary_count][n] = '\0';
        if (binary_count == 0 || strcmp(binaries[0], binaries[1]) != 0)
            binary_count++;
    }
    char candidates[4][PATH_MAX + 32];
    const char *kinds[4];
    int count = 0;
    for (int i = 0; i < binary_count; i++) {
        const char *slash = strrchr(binaries[i], '/');
        snprintf(candidates[count], sizeof candidates[count], "%.*s/../share/ona/shaders",
                 slash ? (int)(slash - binaries[i]) : 1, slash ? binaries[i] : ".");
        kinds[count++] = binaries[i];
    }
    snprintf(candidates[count], sizeof candidates[count], "%s", ONA_INSTALL_SHADER_DIR);
    kinds[count++] = "the install prefix";
    snprintf(candidates[count], sizeof candidates[count], "%s", ONA_SOURCE_SHADER_DIR);
    kinds[count++] = "the source tree";
    char tried[sizeof candidates + 8];
    size_t used = 0;
    for (int i = 0; i < count; i++) {
        char vert[sizeof candidates[0] + sizeof "/sprite.vert"];
        size_t len = strlen(candidates[i]);
        memcpy(vert, candidates[i], len);
        memcpy(vert + len, "/sprite.vert", sizeof "/sprite.vert");
        if (access(vert, R_OK) == 0) {
            if (!realpath(candidates[i], buf)) { /* the path as it is */
                if (len >= size)
                    continue;
                memcpy(buf, candidates[i], len + 1);
            }
            ona_log(ONA_LOG_DEBUG, "video", "shaders from %s (found via %s)", buf, kinds[i]);
            return buf;
        }
        int w = snprintf(tried + used, sizeof tried - used, "%s%s", i ? ", " : "", candidates[i]);
        used += w > 0 ? (size_t)w : 0; /* never truncated: tried holds every candidate */
    }
    ona_log(ONA_LOG_ERROR, "video",
            "no sprite.vert in any of: %s (set ONA_SHADER_DIR or ona_window_desc.shader_dir)",
            tried);
    return NULL;
}

int ona__video_init(ona__video *v, ona_video mode, const ona_window_desc *desc, uint32_t threads) {
    memset(v, 0, sizeof *v);
    for (uint32_t i = 0; i < ONA__MAX_SHADERS; i++)
        atomic_init(&v->shaders[i].id, 0);
    v->start_ns = ona__now_ns();
    v->clear[3] = 1;
    v->width = desc && desc->width > 0 ? desc->width : 1280;
    v->height = desc && desc->height > 0 ? desc->height : 720;
    if (uv_mutex_init(&v->lock))
        return ONA_ENOMEM;
    v->queues = ona__calloc(threads ? threads : 1, sizeof *v->queues);
    int rc = v->queues ? ona__gamepads_init(&v->pads, threads) : ONA_ENOMEM;
    if (rc == 0 && (rc = ona__textures_init(&v->textures)) != 0) {
        ona__gamepads_free(&v->pads);
    } else if (rc == 0 && (rc = ona__fonts_create(&v->textures, &v->fonts)) != 0) {
        ona__textures_free(&v->textures, NULL);
        ona__gamepads_free(&v->pads);
    }
    if (rc) {
        ona__free(v->queues);
        uv_mutex_destroy(&v->lock);
        return rc;
    }
    v->queue_count = threads ? threads : 1;
    for (uint32_t i = 0; i < v->queue_count; i++)
        ona__render_queue_init(&v->queues[i]);
    v->mode = ONA_VIDEO_NONE;
    if (mode == ONA_VIDEO_NONE)
        return 0;
    char found[PATH_MAX];
    const char *shader_dir = choose_shader_dir(desc, found, sizeof found);
    rc = shader_dir ? ona__window_create(mode, desc, &v->window) : ONA_EGFX;
    if (rc == 0) {
        ona__gfx_desc gd = {
            .shader_dir = shader_dir,
            .debug_output = ona__window_debug_context(v->window),
        };
        rc = ona__gfx_create(&gd, &v->gfx);
    }
    if (rc) {
        ona__video_free(v);
        return rc;
    }
    v->mode = ona__window_is_offscreen(v->window) ? ONA_VIDEO_OFFSCREEN : ONA_VIDEO_WINDOW;
    ona__gamepads_start(&v->pads);
    ona__window_size(v->window, &v->width, &v->height);
    return 0;
}

void ona__video_free(ona__video *v) {
    for (uint32_t i = 0; i < v->queue_count; i++)
        ona__render_queue_free(&v->queues[i]);
    ona__free(v->queues);
    v->queues = NULL;
    v->queue_count = 0;
    ona__textures_free(&v->textures, v->gfx);
    ona__fonts_destroy(v->fonts); /* after the textures, which borrow its atlas pages */
    v->fonts = NULL;
    ona__render_list_free(&v->list);
    for (uint32_t i = 0; i < v->shader_count; i++) {
        if (v->gfx)
            ona__gfx_program_free(v->gfx, v->shaders[i].program);
        ona__free(v->shaders[i].path);
        v->shaders[i].path = NULL;
    }
    v->shader_count = 0;
    ona__free(v->runs);
    ona__free(v->run_targets);
    if (v->gfx)
        ona__gfx_destroy(v->gfx);
    ona__gamepads_free(&v->pads);
    ona__window_destroy(v->window);
    uv_mutex_destroy(&v->lock);
    v->gfx = NULL;
    v->window = NULL;
}

static void apply_input(ona__video *v, const ona_event *e) {
    switch (e->type) {
    case ONA_EVENT_KEY_DOWN:
    case ONA_EVENT_KEY_UP:
        if (e->as.key.scancode > 0 && e->as.key.scancode < ONA__MAX_SCANCODES)
            v->keys[e->as.key.scancode] = e->type == ONA_EVENT_KEY_DOWN;
        break;
    case ONA_EVENT_MOUSE_MOVE:
        v->mouse_x = e->as.mouse.x;
        v->mouse_y = e->as.mouse.y;
        break;
    case ONA_EVENT_MOUSE_DOWN:
    case ONA_EVENT_MOUSE_UP:
        v->mouse_x = e->as.mouse.x;
        v->mouse_y = e->as.mouse.y;
        if (e->as.mouse.button >= 1 && e->as.mouse.button <= 32) {
            uint32_t bit = 1u << (e->as.mouse.button - 1);
            v->mouse_buttons =
                e->type == ONA_EVENT_MOUSE_DOWN ? v->mouse_buttons | bit : v->mouse_buttons & ~bit;
        }
        break;
    case ONA_EVENT_WINDOW_RESIZED:
        v->width = e->as.window.width;
        v->height = e->as.window.height;
        break;
    default:
        break;
    }
}

/* Folds the frame's events into the input state. */
static void take_events(ona__video *v, bool *quit) {
    for (uint32_t i = 0; i < v->event_count; i++) {
        const ona_event *e = &v->events[i];
        apply_input(v, e);
        if (e->type == ONA_EVENT_QUIT)
            *quit = true;
        if (e->type == ONA_EVENT_KEY_DOWN && !e->as.key.repeat && strcmp(e->as.key.name, "f3") == 0)
            v->overlay = !v->overlay;
    }
}

void ona__video_request_window(ona__video *v, const ona_window_desc *desc) {
    uv_mutex_lock(&v->lock);
    v->pending_window = *desc;
    if (desc->title) {
        snprintf(v->pending_title, sizeof v->pending_title, "%s", desc->title);
        v->pending_window.title = v->pending_title;
    }
    v->window_pending = true;
    uv_mutex_unlock(&v->lock);
}

void ona__video_begin_frame(ona__video *v, bool *quit, const ona_event *replay,
                            uint32_t replay_count) {
    uv_mutex_lock(&v->lock);
    bool configure = v->window_pending;
    ona_window_desc desc = v->pending_window;
    v->window_pending = false;
    uv_mutex_unlock(&v->lock);
    if (configure && v->window) {
        ona__window_configure(v->window, &desc);
        int w, h;
        ona__window_size(v->window, &w, &h);
        /* The default camera is pixel space from the top-left, whatever the size. */
        v->width = w;
        v->height = h;
    } else if (configure && desc.width > 0 && desc.height > 0) {
        v->width = desc.width;
        v->height = desc.height;
    }
    v->event_count = 0;
    if (replay) {
        /* The devices' events are dropped (a closed window still ends the replay). */
        uint32_t n = v->window ? ona__window_poll(v->window, &v->pads, v->events, ONA__MAX_EVENTS)
                               : 0;
        for (uint32_t i = 0; i < n; i++)
            if (v->events[i].type == ONA_EVENT_QUIT)
                *quit = true;
        v->injected_count = 0;
        v->event_count = ONA_MIN(replay_count, (uint32_t)ONA__MAX_EVENTS);
        memcpy(v->events, replay, v->event_count * sizeof *replay);
    } else {
        for (uint32_t i = 0; i < v->injected_count && v->event_count < ONA__MAX_EVENTS; i++)
            v->events[v->event_count++] = v->injected[i];
        v->injected_count = 0;
        if (v->window)
            v->event_count += ona__window_poll(v->window, &v->pads, v->events + v->event_count,
                                               ONA__MAX_EVENTS - v->event_count);
        v->event_count += ona__gamepads_update(&v->pads, v->events + v->event_count,
                                               ONA__MAX_EVENTS - v->event_count);
    }
    take_events(v, quit);
}

void ona__video_step_events(ona__video *v, bool *quit, const ona_event *events, uint32_t count) {
    v->event_count = ONA_MIN(count, (uint32_t)ONA__MAX_EVENTS);
    if (v->event_count)
        memcpy(v->events, events, v->event_count * sizeof *events);
    take_events(v, quit);
}

int ona__video_request_screenshot(ona__video *v, const char *path) {
    if (!path || !*path || strlen(path) >= sizeof v->screenshot_path)
        return ONA_EINVAL;
    uv_mutex_lock(&v->lock);
    snprintf(v->screenshot_path, sizeof v->screenshot_path, "%s", path);
    v->screenshot_requested = true;
    uv_mutex_unlock(&v->lock);
    return v->gfx ? 0 : ONA_EGFX;
}

uint32_t ona__video_text(const char *text, size_t size, float x, float y, float scale,
                         uint32_t tint, ona_sprite *out, uint32_t max) {
    uint32_t n = 0;
    float cx = x;
    for (size_t i = 0; i < size && n < max; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            cx = x;
            y += ONA__FONT_GLYPH * scale;
            continue;
        }
        if (c != ' ') {
            ona_sprite *s = &out[n++];
            memset(s, 0, sizeof *s);
            s->x = cx;
            s->y = y;
            s->scale_x = s->scale_y = scale;
            ona__font_glyph(c, &s->src_x, &s->src_y);
            s->src_w = s->src_h = ONA__FONT_GLYPH;
            s->tint = tint;
        }
        cx += ONA__FONT_GLYPH * scale;
    }
    return n;
}

/* The stats overlay in screen space (its run has the default view: pixels from the top-left). */
static uint32_t overlay_sprites(ona__video *v, const ona__overlay *overlay, ona_sprite *out,
                                uint32_t max) {
    char text[2048];
    size_t len = overlay->text(overlay->user, v->fps, v->list.sprite_total, text, sizeof text);
    return ona__video_text(text, ONA_MIN(len, sizeof text - 1), 8, 8, 2,
                           ONA_RGBA(255, 255, 96, 255), out, max);
}

static int grow_runs(ona__video *v, uint32_t need) {
    if (need <= v->run_capacity)
        return 0;
    uint32_t cap = v->run_capacity ? v->run_capacity * 2 : 64;
    while (cap < need)
        cap *= 2;
    ona__gfx_run *runs = ona__realloc(v->runs, cap * sizeof *runs);
    if (!runs)
        return ONA_ENOMEM;
    v->runs = runs;
    uint32_t *targets = ona__realloc(v->run_targets, cap * sizeof *targets);
    if (!targets)
        return ONA_ENOMEM;
    v->run_targets = targets;
    v->run_capacity = cap;
    return 0;
}

ona__render_queue *ona__video_queue(ona__video *v, int thread) {
    return thread >= 0 && (uint32_t)thread < v->queue_count ? &v->queues[thread] : NULL;
}

void ona__video_drop_draws(ona__video *v) {
    ona__gamepads_apply(&v->pads);
    ona__render_queue *queues[256];
    uint32_t nq = ONA_MIN(v->queue_count, 256u);
    for (uint32_t i = 0; i < nq; i++)
        queues[i] = &v->queues[i];
    if (ona__render_merge(queues, nq, &v->list) == 0)
        ona__video_apply_settings(v);
    else
        ona_log(ONA_LOG_ERROR, "gfx", "out of memory merging the render queues; settings lost");
    v->list.count = 0;
    v->list.setting_count = 0;
    for (uint32_t i = 0; i < nq; i++)
        ona__render_queue_clear(queues[i]);
}

void ona__video_present(ona__video *v, const ona__overlay *overlay) {
    v->draw_start_ns = ona__now_ns();
    v->swap_start_ns = 0;
    ona__gamepads_apply(&v->pads);
    ona__render_queue *queues[256];
    uint32_t nq = ONA_MIN(v->queue_count, 256u);
    for (uint32_t i = 0; i < nq; i++)
        queues[i] = &v->queues[i];
    bool merged = ona__render_merge(queues, nq, &v->list) == 0;
    if (!merged) {
        ona_log(ONA_LOG_ERROR, "gfx", "out of memory merging the render queues; frame skipped");
        v->list.count = 0;
        v->list.setting_count = 0;
    }
    ona__video_apply_settings(v);

    if (v->gfx) {
        ona__gfx_set_time(v->gfx, (float)((double)(ona__now_ns() - v->start_ns) / 1e9));
        ona_sprite overlay_sprites_buf[2048];
        uint32_t overlay_count =
            v->overlay && overlay ? overlay_sprites(v, overlay, overlay_sprites_buf, 2048) : 0;
        uint32_t total = v->list.sprite_total + overlay_count;
        ona__gfx_begin(v->gfx, v->width, v->height, v->clear, NULL);
        ona__sprite *instances = ona__gfx_instances(v->gfx, total);
        if (instances && grow_runs(v, v->list.count + 1) == 0) {
            uint32_t written = 0;
            uint32_t runs = ona__video_build_runs(v, queues, instances, &written);
            if (overlay_count) {
                memcpy(instances + written, overlay_sprites_buf,
                       overlay_count * sizeof(ona_sprite));
                ona__gfx_run *r = &v->runs[runs];
                *r = (ona__gfx_run){0};
                r->texture =
                    ona__textures_gl(&v->textures, v->textures.font.id, &r->width, &r->height);
                r->first = written;
                r->count = overlay_count;
                v->run_targets[runs++] = 0;
            }
            ona__video_draw_runs(v, runs);
        }
        ona__gfx_end(v->gfx);
        uv_mutex_lock(&v->lock);
        bool shoot = v->screenshot_requested;
        char path[sizeof v->screenshot_path];
        memcpy(path, v->screenshot_path, sizeof path);
        v->screenshot_requested = false;
        uv_mutex_unlock(&v->lock);
        v->swap_start_ns = ona__now_ns();
        if (shoot && ona__gfx_screenshot(v->gfx, v->width, v->height, path) == 0)
            ona_log(ONA_LOG_INFO, "screenshot", "written to %s", path);
        ona__window_swap(v->window);
    }
    for (uint32_t i = 0; i < nq; i++)
        ona__render_queue_clear(queues[i]);
    uint64_t now = ona__now_ns();
    v->present_end_ns = now;
    if (!v->swap_start_ns)
        v->swap_start_ns = now;
    if (v->last_present_ns) {
        double fps = 1e9 / (double)(now - v->last_present_ns);
        v->fps = v->fps > 0 ? v->fps * 0.9 + fps * 0.1 : fps;
    }
    v->last_present_ns = now;
}
