/*
 * asset_kinds.c: the kinds of asset every runtime has (assets.h): textures (gfx/texture.c),
 * sounds (audio/sound.c, reloaded through audio/audio.c so playing voices follow), fonts
 * (gfx/text.c) and game shaders (gfx/video_state.c). Each is a thin table of hooks over the
 * kind's own decode and upload code; the registry (assets.c) keeps which path has which handle.
 *
 * Threads: the load hooks run on the thread asking (a system's turn) and only decode and make a
 * handle (GL work waits for main: textures are uploaded, shaders built, atlas pages uploaded,
 * after the turns); the reload hooks run on main at the frame boundary.
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
    int rc = ona__textures_load(ctx, path, who, &tex);
    *handle = tex.id;
    return rc;
}

static int texture_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)param;
    return ona__textures_reload(ctx, (ona_texture){handle}, path);
}

static uint32_t texture_placeholder(void *ctx) {
    return ((ona__textures *)ctx)->placeholder.id;
}

static const ona__asset_ops texture_ops = {"texture", texture_load, texture_reload,
                                           texture_placeholder, true};

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

static uint32_t sound_placeholder(void *ctx) {
    return ((ona__audio *)ctx)->sounds.placeholder.id;
}

static const ona__asset_ops sound_ops = {"sound", sound_load, sound_reload, sound_placeholder,
                                         true};

static int font_load(void *ctx, const char *path, int param, const char *who, uint32_t *handle) {
    ona_font font = {0};
    int rc = ona__fonts_load(ctx, path, param, who, &font);
    *handle = font.id;
    return rc;
}

static int font_reload(void *ctx, uint32_t handle, const char *path, int param) {
    (void)handle;
    (void)param;
    int rc = ona__fonts_reload(ctx, path);
    if (rc)
        ona_log(ONA_LOG_ERROR, "hot reload", "font %s: %s; the old font stays", path,
                rc == ONA_ENOENT ? "no such file" : ona_strerror(rc));
    return rc;
}

/* A font whose file cannot be read falls back to the default font's handle, shared: the next
 * load of the path tries the file again. */
static const ona__asset_ops font_ops = {"font", font_load, font_reload, NULL, false};

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

/* A shader file that is missing gets no handle (0): the next load tries it again. */
static const ona__asset_ops shader_ops = {"shader", shader_load, shader_reload, NULL, false};

void ona__assets_set_builtin_kinds(ona__assets *a, void *textures, void *audio, void *fonts,
                                   void *video) {
    if (textures)
        ona__assets_set_kind(a, ONA__ASSET_TEXTURE, &texture_ops, textures);
    if (audio)
        ona__assets_set_kind(a, ONA__ASSET_SOUND, &sound_ops, audio);
    if (fonts)
        ona__assets_set_kind(a, ONA__ASSET_FONT, &font_ops, fonts);
    if (video)
        ona__assets_set_kind(a, ONA__ASSET_SHADER, &shader_ops, video);
}
