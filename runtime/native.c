/*
 * native.c: systems written in C (ona_runtime_spawn_native) and the ona_ctx_* functions their
 * callbacks use.
 *
 * Design note. A native system is a core system whose host calls its desc's callbacks: init on
 * the first turn, process every turn, exit when it ends. It cannot wait, so a turn is one call;
 * it sends and receives through the same actor functions (core/actor.c) as Lua systems, with the
 * same message encoding. Its state block is zeroed again on restart.
 */
#include "draw_state.h"
#include "runtime_internal.h"
#include "save.h"
#include "shapes.h"

#include <stdio.h>

typedef struct ona__native {
    ona_system_desc desc;
    void *state;
    ona_runtime *rt;
    uint64_t seeds; /* default random seeds taken since the last restart (issue 10) */
} ona__native;

struct ona_ctx {
    ona__system *sys;
};

static ona__turn native_run(ona__system *sys, ona__resume why) {
    (void)why; /* a native turn never waits, so it is always a new turn */
    ona__native *n = sys->host_data;
    ona_ctx ctx = {sys};
    int rc = 0;
    /* Native code cannot be interrupted: past the budget the watchdog names it once a second. */
    uint32_t budget_ms = n->rt->desc.turn_budget_ms;
    ona__watch watch = {.system = sys->name,
                        .what = "turn",
                        .budget_ns = budget_ms == ONA_BUDGET_OFF ? 0 : budget_ms * 1000000ull};
    ona__watch_scope scope;
    ona__watchdog_begin(n->rt->watchdog, &watch, &scope);
    if (sys->needs_init) {
        sys->needs_init = false;
        if (n->desc.init)
            rc = n->desc.init(&ctx, n->state);
    }
    if (rc == 0 && n->desc.process)
        rc = n->desc.process(&ctx, n->state, n->rt->core.dt);
    ona__watchdog_end(&scope);
    ona_message_release(&sys->inbox);
    if (rc != 0) {
        char text[160];
        snprintf(text, sizeof text, "native callback failed with %d (%s)", rc,
                 rc < 0 ? ona_strerror(rc) : "nonzero return");
        ona__actor_fail(sys, text);
        return ONA__TURN_FAILED;
    }
    return ONA__TURN_DONE;
}

static int native_restart(ona__system *sys) {
    ona__native *n = sys->host_data;
    if (n->desc.size)
        memset(n->state, 0, n->desc.size);
    n->seeds = 0;
    return 0;
}

static void native_destroy(ona__system *sys, bool run_exit) {
    ona__native *n = sys->host_data;
    if (run_exit && n->desc.exit) {
        ona_ctx ctx = {sys};
        n->desc.exit(&ctx, n->state);
    }
    ona__free(n->state);
    ona__free(n);
}

/* The statistics report Lua heaps; a native system's state block is the embedder's. */
static void native_memory(const ona__system *sys, size_t *used, size_t *peak, size_t *cap) {
    (void)sys;
    *used = *peak = *cap = 0;
}

const ona__host ona__native_host = {
    .kind = "native",
    .run = native_run,
    .restart = native_restart,
    .destroy = native_destroy,
    .memory = native_memory,
};

int ona_runtime_spawn_native(ona_runtime *rt, const ona_system_desc *desc, ona_system *out) {
    if (out)
        out->id = 0;
    if (!rt || !desc || !out || !desc->name || !desc->name[0])
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    const char *bad = ona__runtime_check_spawn(desc->name, desc->mailbox_capacity, desc->policy);
    if (bad) {
        ona_log(ONA_LOG_ERROR, "spawn", "cannot spawn native system '%.64s': %s", desc->name, bad);
        return ONA_EINVAL;
    }
    ona__native *n = ona__calloc(1, sizeof *n);
    if (!n)
        return ONA_ENOMEM;
    n->desc = *desc;
    n->rt = rt;
    if (desc->size && !(n->state = ona__calloc(1, desc->size))) {
        ona__free(n);
        return ONA_ENOMEM;
    }
    ona__spawn spawn = {
        .name = desc->name,
        .host = &ona__native_host,
        .host_data = n,
        .mailbox_capacity = desc->mailbox_capacity,
        .restart_limit = desc->restart_limit,
        .policy = desc->policy,
    };
    ona__system *sys;
    char err[256];
    int rc = ona__core_spawn(&rt->core, &spawn, &sys, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "spawn", "%s", err);
        ona__free(n->state);
        ona__free(n);
        return rc;
    }
    n->desc.name = sys->name;
    out->id = sys->id;
    ona__runtime_merge_if_between_frames(rt);
    return 0;
}

/* --- The context ----------------------------------------------------------------------------- */

/* A ctx is only ever made by this file, on the stack of a callback, so a non-NULL one is valid
 * unless the embedder kept it past its callback, which cannot be detected. */

ona_system ona_ctx_self(ona_ctx *ctx) {
    return (ona_system){ctx ? ctx->sys->id : 0};
}

ona_runtime *ona_ctx_runtime(ona_ctx *ctx) {
    return ctx ? ona__runtime_of(ctx->sys->core) : NULL;
}

void *ona_ctx_user(ona_ctx *ctx) {
    return ctx ? ((ona__native *)ctx->sys->host_data)->desc.user : NULL;
}

uint64_t ona_ctx_frame(ona_ctx *ctx) {
    return ctx ? ctx->sys->core->frame : 0;
}

int ona__system_draw(ona__system *sys, const ona__draw_key *key, const ona_sprite *sprites,
                     uint32_t count) {
    ona__render_queue *q =
        ona__video_queue(&ona__runtime_of(sys->core)->video, ona__runq_thread_index());
    if (!q)
        return ONA_ETHREAD;
    return ona__render_queue_push(q, key, sys->spawn_order, &sys->draw_seq, sprites, count);
}

int ona_ctx_draw(ona_ctx *ctx, ona_texture texture, int layer, const ona_sprite *sprites,
                 uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    return ona__system_draw(ctx->sys, &(ona__draw_key){.layer = layer, .texture = texture.id},
                            sprites, count);
}

/* Issue 11: the draw options and cameras per layer range (draw_state.c). */
int ona_ctx_draw_ex(ona_ctx *ctx, ona_texture texture, const ona_draw_desc *desc,
                    const ona_sprite *sprites, uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    ona__draw_key key = {.texture = texture.id};
    if (desc) {
        key.layer = desc->layer;
        key.blend = (uint32_t)desc->blend;
        key.shader = desc->shader.id;
        key.target = desc->target.id;
    }
    const char *why;
    if (ona__draw_key_check(ona_ctx_runtime(ctx), &key, &why))
        return ONA_EINVAL;
    return ona__system_draw(ctx->sys, &key, sprites, count);
}

int ona_ctx_camera(ona_ctx *ctx, const ona_camera_desc *desc) {
    if (!ctx || !desc || (desc->layer_range && desc->layer_lo > desc->layer_hi) ||
        desc->viewport_w < 0 || desc->viewport_h < 0)
        return ONA_EINVAL;
    ona__setting s = ona__camera_setting(desc);
    return ona__system_set(ctx->sys, &s);
}

int ona_ctx_try_send(ona_ctx *ctx, ona_system to, ona_message *m) {
    if (!ctx || !m)
        return ONA_EINVAL;
    return ona__actor_send(ctx->sys->core, ctx->sys, to.id, m, NULL, NULL, 0);
}

int ona_ctx_send_many(ona_ctx *ctx, ona_system to, ona_message *msgs, uint32_t n, uint32_t *sent) {
    if (sent)
        *sent = 0;
    if (!ctx || !sent || (!msgs && n > 0))
        return ONA_EINVAL;
    if (n == 0)
        return 0;
    return ona__actor_send_many(ctx->sys->core, ctx->sys, to.id, msgs, n, sent);
}

int ona_ctx_try_receive(ona_ctx *ctx, ona_message **out) {
    if (!ctx || !out)
        return ONA_EINVAL;
    int rc = ona__actor_receive(ctx->sys);
    if (rc == 0)
        *out = &ctx->sys->inbox;
    return rc;
}

int ona_ctx_spawn(ona_ctx *ctx, const ona_spawn_desc *desc, ona_system *out) {
    if (!ctx) {
        if (desc && desc->args)
            ona_message_release(desc->args);
        if (out)
            out->id = 0;
        return ONA_EINVAL;
    }
    return ona__runtime_spawn_lua(ona_ctx_runtime(ctx), desc, out);
}

int ona_ctx_lookup(ona_ctx *ctx, const char *name, ona_system *out) {
    return ctx ? ona_runtime_lookup(ona_ctx_runtime(ctx), name, out) : ONA_EINVAL;
}

int ona_ctx_kill(ona_ctx *ctx, ona_system system) {
    return ctx ? ona__actor_kill(ctx->sys->core, system.id) : ONA_EINVAL;
}

void ona_ctx_quit(ona_ctx *ctx) {
    ona_runtime_quit(ona_ctx_runtime(ctx));
}

/* --- Input (issue 10: gamepads and input; ona/input.h) --------------------------------------- */

/* The frame's input is main's, written before the turns and read-only during them (video.c). */

static ona__video *ctx_video(ona_ctx *ctx) {
    return &ona__runtime_of(ctx->sys->core)->video;
}

const ona_event *ona_ctx_events(ona_ctx *ctx, uint32_t *count) {
    ona__video *v = ctx ? ctx_video(ctx) : NULL;
    uint32_t n = v ? v->event_count : 0;
    if (count)
        *count = n;
    return n ? v->events : NULL;
}

int ona_ctx_key_down(ona_ctx *ctx, const char *name) {
    if (!ctx || !name)
        return ONA_EINVAL;
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(e.as.key.name, sizeof e.as.key.name, "%s", name);
    ona__window_normalise_key(&e);
    if (e.as.key.scancode <= 0)
        return ONA_EINVAL;
    return e.as.key.scancode < ONA__MAX_SCANCODES && ctx_video(ctx)->keys[e.as.key.scancode];
}

int ona_ctx_mouse(ona_ctx *ctx, float *x, float *y, uint32_t *buttons) {
    if (!ctx)
        return ONA_EINVAL;
    ona__video *v = ctx_video(ctx);
    if (x)
        *x = v->mouse_x;
    if (y)
        *y = v->mouse_y;
    if (buttons)
        *buttons = v->mouse_buttons;
    return 0;
}

int ona_ctx_gamepad(ona_ctx *ctx, int index, ona_gamepad_state *out) {
    if (!ctx || !out || index < 1 || index > ONA_GAMEPAD_MAX)
        return ONA_EINVAL;
    *out = ctx_video(ctx)->pads.state[index - 1];
    return 0;
}

static int pad_command(ona_ctx *ctx, ona__pad_command *c) {
    return ona__gamepads_command(&ctx_video(ctx)->pads, ona__runq_thread_index(),
                                 ctx->sys->spawn_order, &ctx->sys->draw_seq, c);
}

int ona_ctx_rumble(ona_ctx *ctx, int index, float low, float high, double seconds) {
    if (!ctx || index < 1 || index > ONA_GAMEPAD_MAX || !(low >= 0 && low <= 1) ||
        !(high >= 0 && high <= 1) || !(seconds >= 0 && seconds <= 60))
        return ONA_EINVAL;
    const ona_gamepad_state *s = &ctx_video(ctx)->pads.state[index - 1];
    if (!s->connected || !s->rumble)
        return 0;
    ona__pad_command c = {.kind = ONA__PAD_RUMBLE,
                          .slot = (uint8_t)(index - 1),
                          .a = low,
                          .b = high,
                          .ms = (uint32_t)(seconds * 1000 + 0.5)};
    int rc = pad_command(ctx, &c);
    return rc ? rc : 1;
}

int ona_ctx_gamepad_deadzone(ona_ctx *ctx, int index, float stick, float trigger) {
    if (!ctx || index < 1 || index > ONA_GAMEPAD_MAX || !(stick >= 0 && stick <= 0.95f) ||
        !(trigger >= 0 && trigger <= 0.95f))
        return ONA_EINVAL;
    ona__pad_command c = {
        .kind = ONA__PAD_DEADZONE, .slot = (uint8_t)(index - 1), .a = stick, .b = trigger};
    return pad_command(ctx, &c);
}

/* --- Audio (issue 10): the same commands as ona.audio, from C -------------------------------- */

static int audio_push(ona_ctx *ctx, ona__audio_cmd *cmd, const char *path, uint64_t *voice) {
    return ona__audio_push(&ona__runtime_of(ctx->sys->core)->audio, ctx->sys, cmd, path, voice);
}

static double or_one(float x) {
    return x == 0 ? 1.0 : (double)x;
}

int ona_ctx_audio_play(ona_ctx *ctx, ona_sound sound, const ona_play_desc *desc, ona_voice *out) {
    if (out)
        out->id = 0;
    if (!ctx)
        return ONA_EINVAL;
    ona_play_desc d = desc ? *desc : (ona_play_desc){0};
    ona__audio_cmd cmd;
    const char *why = NULL;
    int rc = ona__audio_play_cmd(&ona__runtime_of(ctx->sys->core)->audio, sound, or_one(d.volume),
                                 d.pan, or_one(d.pitch), d.loop, d.group, &cmd, &why);
    if (rc)
        return rc;
    uint64_t voice = 0;
    rc = audio_push(ctx, &cmd, NULL, &voice);
    if (rc == 0 && out)
        out->id = voice;
    return rc;
}

int ona_ctx_audio_stop(ona_ctx *ctx, ona_voice voice) {
    if (!ctx)
        return ONA_EINVAL;
    ona__audio_cmd cmd = {.op = ONA__AUDIO_STOP, .voice = voice.id};
    return voice.id ? audio_push(ctx, &cmd, NULL, NULL) : 0;
}

int ona_ctx_audio_volume(ona_ctx *ctx, const char *group, float volume) {
    if (!ctx || !group)
        return ONA_EINVAL;
    ona__audio_cmd cmd;
    const char *why = NULL;
    int rc =
        ona__audio_volume_cmd(&ona__runtime_of(ctx->sys->core)->audio, group, volume, &cmd, &why);
    return rc ? rc : audio_push(ctx, &cmd, NULL, NULL);
}

int ona_ctx_audio_music(ona_ctx *ctx, const char *path, const ona_music_desc *desc) {
    if (!ctx)
        return ONA_EINVAL;
    ona_music_desc d = desc ? *desc : (ona_music_desc){0};
    ona__audio_cmd cmd;
    const char *why = NULL;
    int rc = ona__audio_music_cmd(path != NULL, or_one(d.volume), d.fade, d.loop, &cmd, &why);
    if (rc)
        return rc;
    char resolved[4096];
    if (path)
        ona__runtime_locate(ona_ctx_runtime(ctx), path, resolved, sizeof resolved);
    return audio_push(ctx, &cmd, path ? resolved : NULL, NULL);
}

/* --- Steady time, random numbers and saves (issue 10) ---------------------------------------- */

double ona_ctx_time(ona_ctx *ctx) {
    return ctx ? ona_ctx_runtime(ctx)->game_time : 0;
}

double ona_ctx_dt(ona_ctx *ctx) {
    return ctx ? ctx->sys->core->dt : 0;
}

uint64_t ona_ctx_random(ona_ctx *ctx, ona_random *out) {
    if (!ctx || !out)
        return 0;
    ona__native *n = ctx->sys->host_data;
    uint64_t seed = ona__runtime_default_seed(ctx->sys, n->seeds++);
    ona_random_seed(out, seed);
    return seed;
}

int ona_ctx_save(ona_ctx *ctx, const char *name, ona_message *value) {
    return ctx ? ona_runtime_save(ona_ctx_runtime(ctx), name, value) : ONA_EINVAL;
}

int ona_ctx_load(ona_ctx *ctx, const char *name, ona_message *out) {
    return ctx ? ona_runtime_load(ona_ctx_runtime(ctx), name, out) : ONA_EINVAL;
}

/* --- Text (issue 10): fonts from any thread, printing from a native system's callbacks ----------
 */

int ona_runtime_font_load(ona_runtime *rt, const char *path, int size, ona_font *out) {
    if (out)
        out->id = 0;
    if (!rt || !out || !rt->video_ready)
        return ONA_EINVAL;
    if (!path || size < 1 || size > ONA_FONT_MAX_SIZE) /* the default font, or refused */
        return ona__fonts_load(rt->video.fonts, path, size, "text", out);
    return ona__assets_load(&rt->assets, ONA__ASSET_FONT, path, size, "text", &out->id, NULL, 0);
}

typedef struct print_target {
    ona__system *sys;
    int32_t layer;
} print_target;

/* Hands a print's sprites to the system's render queue. */
static int print_emit(void *user, uint32_t texture, const ona_sprite *sprites, uint32_t count) {
    print_target *to = user;
    return ona__system_draw(to->sys, &(ona__draw_key){.layer = to->layer, .texture = texture},
                            sprites, count);
}

int ona__system_print(ona__system *sys, ona_font font, const char *text, size_t length, float x,
                      float y, const ona_text_desc *desc) {
    ona_runtime *rt = ona__runtime_of(sys->core);
    /* Glyphs are only made inside a turn, where main cannot be uploading the atlas. */
    if (!ona__video_queue(&rt->video, ona__runq_thread_index()))
        return ONA_ETHREAD;
    print_target to = {sys, desc ? desc->layer : 0};
    return ona__text_print(rt->video.fonts, font, text, length, x, y, desc, print_emit, &to);
}

int ona_ctx_print(ona_ctx *ctx, ona_font font, const char *text, size_t length, float x, float y,
                  const ona_text_desc *desc) {
    if (!ctx || (!text && length))
        return ONA_EINVAL;
    return ona__system_print(ctx->sys, font, text, length, x, y, desc);
}

int ona_font_measure(ona_runtime *rt, ona_font font, const char *text, size_t length,
                     const ona_text_desc *desc, float *width, float *height) {
    if (!rt || !rt->video_ready || (!text && length))
        return ONA_EINVAL;
    return ona__text_measure(rt->video.fonts, font, text, length, desc, width, height);
}

float ona_font_line_height(ona_runtime *rt, ona_font font) {
    return rt && rt->video_ready ? ona__text_line_height(rt->video.fonts, font) : 0;
}

/* --- Issue 11 shapes: shapes and tile maps from native systems (ona/shapes.h) ---------------- */

int ona_ctx_draw_shapes(ona_ctx *ctx, int layer, const ona_sprite *sprites, uint32_t count) {
    if (!ctx || (!sprites && count))
        return ONA_EINVAL;
    ona_texture white = ona__runtime_of(ctx->sys->core)->video.textures.white;
    return ona__system_draw(ctx->sys, &(ona__draw_key){.layer = layer, .texture = white.id},
                            sprites, count);
}

/* Draws what a shape function wrote into a stack array (shapes larger than it are refused by
 * the count check: ONA_SHAPE_MAX_POINTS bounds every shape below). */
static int draw_shape(ona_ctx *ctx, int layer, const ona_sprite *s, uint32_t needed,
                      uint32_t capacity) {
    if (needed > capacity)
        return ONA_EINVAL;
    return ona_ctx_draw_shapes(ctx, layer, s, needed);
}

int ona_ctx_rect(ona_ctx *ctx, int layer, float x, float y, float w, float h,
                 const ona_shape_style *style) {
    ona_sprite s[4];
    return draw_shape(ctx, layer, s, ona_shape_rect(x, y, w, h, style, s, 4), 4);
}

int ona_ctx_line(ona_ctx *ctx, int layer, float x1, float y1, float x2, float y2,
                 const ona_shape_style *style) {
    ona_sprite s[1 + 2 * (ONA_SHAPE_MAX_POINTS / 2)];
    uint32_t n = ona_shape_line(x1, y1, x2, y2, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

int ona_ctx_circle(ona_ctx *ctx, int layer, float x, float y, float r,
                   const ona_shape_style *style) {
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
    uint32_t n = ona_shape_circle(x, y, r, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

int ona_ctx_polygon(ona_ctx *ctx, int layer, const float *xy, uint32_t count,
                    const ona_shape_style *style) {
    if (!xy || count > ONA_SHAPE_MAX_POINTS)
        return ONA_EINVAL;
    ona_sprite s[ONA_SHAPE_MAX_POINTS];
    uint32_t n = ona_shape_polygon(xy, count, style, s, ONA_ARRAY_COUNT(s));
    return draw_shape(ctx, layer, s, n, ONA_ARRAY_COUNT(s));
}

/* Draws the tiles visible on the key's layer in chunks of a stack array. */
static int tilemap_draw(ona__system *sys, const ona__draw_key *key, const ona_tilemap *map, float x,
                        float y) {
    ona_runtime *rt = ona__runtime_of(sys->core);
    ona_tilemap m = *map;
    if (m.texture_w <= 0 || m.texture_h <= 0)
        ona__textures_size(&rt->video.textures, m.texture, &m.texture_w, &m.texture_h);
    float view[4];
    uint32_t total = 0;
    if (ona__video_layer_view(&rt->video, key->layer, view)) {
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

int ona_ctx_draw_tilemap(ona_ctx *ctx, int layer, const ona_tilemap *map, float x, float y) {
    if (!ctx || !map || !map->tiles || map->w <= 0 || map->h <= 0 || map->tile_w <= 0 ||
        map->tile_h <= 0)
        return ONA_EINVAL;
    return tilemap_draw(ctx->sys, &(ona__draw_key){.layer = layer, .texture = map->texture.id}, map,
                        x, y);
}
