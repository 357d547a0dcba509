/*
 * asset_kinds.c: the kinds of asset every runtime has (assets.h): textures (gfx/texture.c),
 * sounds (audio/sound.c, reloaded and freed through audio/audio.c so playing voices follow),
 * fonts (gfx/text.c), game shaders (gfx/video_state.c) and music (audio/audio.c). Each is a thin
 * table of hooks over the kind's own decode, upload and free code; the registry (assets.c) keeps
 * which path has which handle, who holds it, and when each hook runs.
 *
 * Threads: the load hooks run on the thread asking (a system's turn) and only decode and make a
 * handle; the upload hooks make the GL objects on main after the turns (textures, canvases and
 * atlas pages uploaded, shaders built); reload and unload hooks run on main at the frame
 * boundary. Music is opened on main when played: its load only checks that the file is there,
 * and its reload restarts the music playing from that file.
 */
#include "assets.h"

#include "audio.h"
#include "common.h"
#include "paths.h"
#include "text.h"
#include "texture.h"
#include "video.h"

#include <stdio.h>

static int texture_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    (void)param;
    ona_texture tex = {0};
    int rc = ona__textures_load(&((ona__video *)ctx)->textures, path, who, &tex);
    *handle = tex.id;
    return rc;
}

static int texture_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)param;
    return ona__textures_reload(&((ona__video *)ctx)->textures, (ona_texture){handle}, path);
}

static void texture_unload(void *ctx, uint32_t handle) {
    ona__video *v = ctx;
    ona__textures_unload(&v->textures, v->gfx, (ona_texture){handle});
}

/* Every texture waiting, not only the registry's: canvases and atlas pages go up with them. */
static void texture_upload(void *ctx) {
    ona__video *v = ctx;
    if (v->gfx)
        ona__textures_upload(&v->textures, v->gfx);
}

static uint32_t texture_placeholder(void *ctx) {
    return ((ona__video *)ctx)->textures.placeholder.id;
}

static const ona__asset_ops texture_ops = {.name = "texture",
                                           .load = texture_load,
                                           .reload = texture_reload,
                                           .unload = texture_unload,
                                           .upload = texture_upload,
                                           .placeholder = texture_placeholder,
                                           .owns_failed = true};

static int sound_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    (void)param;
    ona__audio *a = ctx;
    ona_sound s = {0};
    int rc = ona__sounds_load(&a->sounds, path, who, &s);
    *handle = s.id;
    return rc;
}

static int sound_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)param;
    return ona__audio_reload(ctx, (ona_sound){handle}, path);
}

static void sound_unload(void *ctx, uint32_t handle) {
    ona__audio_unload(ctx, (ona_sound){handle});
}

static uint32_t sound_placeholder(void *ctx) {
    return ((ona__audio *)ctx)->sounds.placeholder.id;
}

static const ona__asset_ops sound_ops = {.name = "sound",
                                         .load = sound_load,
                                         .reload = sound_reload,
                                         .unload = sound_unload,
                                         .placeholder = sound_placeholder,
                                         .owns_failed = true};

static int font_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    ona_font font = {0};
    int rc = ona__fonts_load(((ona__video *)ctx)->fonts, path, param, who, &font);
    *handle = font.id;
    return rc;
}

static int font_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)handle;
    (void)param;
    int rc = ona__fonts_reload(((ona__video *)ctx)->fonts, path);
    if (rc)
        ona_log(ONA_LOG_ERROR, "hot reload", "font %s: %s; the old font stays", path,
                ona__paths_why(rc, path));
    return rc;
}

/* After the turns no print holds a font: the fonts a reload replaced, their atlas pages (GL
 * textures) and their file are freed here, once no measure reads them. The atlas pages of live
 * fonts are textures, uploaded by the texture kind. */
static void font_upload(void *ctx) {
    ona__video *v = ctx;
    ona__fonts_collect(v->fonts, v->gfx);
}

/* A font whose file cannot be read falls back to the default font's handle, shared: the next
 * load of the path tries the file again. Fonts stay until the runtime goes (no unload): a
 * measure may read one on any thread at any time, and their handles carry no generation. */
static const ona__asset_ops font_ops = {
    .name = "font", .load = font_load, .reload = font_reload, .upload = font_upload};

static int shader_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    (void)param;
    (void)who;
    /* Looked at, not opened: opening a FIFO would block the loading thread. */
    int rc = ona__paths_check_file(path);
    if (rc) {
        ona_log(ONA_LOG_ERROR, path, "shader: %s", ona__paths_why(rc, path));
        return rc;
    }
    return ona__video_shader_load(ctx, path, handle);
}

static int shader_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)path;
    (void)param;
    return ona__video_shader_reload(ctx, handle);
}

static void shader_upload(void *ctx) {
    ona__video_shaders_build(ctx);
}

/* A shader file that is missing gets no handle (0): the next load tries it again. Shaders stay
 * until the runtime goes (no unload). */
static const ona__asset_ops shader_ops = {
    .name = "shader", .load = shader_load, .reload = shader_reload, .upload = shader_upload};

/* Music has no decoded object: its handle only names the file, which main opens when it is
 * played. A missing file still gets its entry (handle 1), watched, so that the music starts
 * when the file appears. */
static int music_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    (void)ctx;
    (void)param;
    *handle = 1;
    /* Looked at, not opened: opening a FIFO would block the loading thread. */
    int rc = ona__paths_check_file(path);
    if (rc)
        ona_log(ONA_LOG_ERROR, who, "music %s: %s; silent until it can be read", path,
                ona__paths_why(rc, path));
    return rc;
}

static int music_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)handle;
    (void)param;
    return ona__audio_music_reload(ctx, path);
}

static const ona__asset_ops music_ops = {
    .name = "music", .load = music_load, .reload = music_reload, .owns_failed = true};

void ona__assets_set_builtin_kinds(ona__assets *a, void *video, void *audio) {
    if (video) {
        ona__assets_set_kind(a, ONA__ASSET_TEXTURE, &texture_ops, video);
        if (((ona__video *)video)->fonts)
            ona__assets_set_kind(a, ONA__ASSET_FONT, &font_ops, video);
        ona__assets_set_kind(a, ONA__ASSET_SHADER, &shader_ops, video);
    }
    if (audio) {
        ona__assets_set_kind(a, ONA__ASSET_SOUND, &sound_ops, audio);
        ona__assets_set_kind(a, ONA__ASSET_MUSIC, &music_ops, audio);
    }
}
