/*
 * services.c: the game's files and assets for both hosts (services.h): finding a file under the
 * script roots, watching it for reloads, and loading textures, fonts and sounds; and the input
 * and sound commands systems queue.
 *
 * Design note. Assets load through the asset registry (assets.c), which resolves the name under
 * the roots, loads each file once, watches it and reloads it; the caller may resolve the name
 * first (ona__services_locate) to name the file in its own report. Every function here may run
 * on any thread: the roots are set at creation and only read after, the watcher and the asset
 * tables take their own locks.
 */
#include "services.h"
#include "keys.h"
#include "text.h"
#include "window.h"

int ona__services_find(const ona__services *s, const char *name, char *path, size_t size) {
    return ona__paths_resolve(s->roots, s->root_count, name, path, size);
}

int ona__services_locate(const ona__services *s, const char *name, char *path, size_t size) {
    int rc = ona__paths_resolve_game(s->roots, s->root_count, name, path, size);
    if (rc != 0 && rc != ONA_ENOTFILE)
        snprintf(path, size, "%s", name);
    return rc;
}

void ona__services_watch(ona__services *s, const char *path) {
    if (s->hot)
        ona__hot_reload_watch(s->hot, path);
}

void ona__services_watch_once(ona__services *s, const char *path) {
    if (s->hot)
        ona__hot_reload_watch_once(s->hot, path);
}

int ona__services_texture_load(ona__services *s, const char *path, const char *who, uint64_t holder,
                               ona_texture *out) {
    return ona__assets_load(&s->assets, ONA__ASSET_TEXTURE, path, 0, who, holder, &out->id, NULL,
                            0);
}

int ona__services_texture_release(ona__services *s, ona_texture texture, uint64_t holder) {
    return ona__assets_release(&s->assets, ONA__ASSET_TEXTURE, texture.id, holder);
}

bool ona__services_texture_size(ona__services *s, ona_texture texture, int *w, int *h) {
    return ona__textures_size(&s->video.textures, texture, w, h);
}

bool ona__services_texture_is_placeholder(const ona__services *s, ona_texture texture) {
    return ona__textures_is_placeholder((ona__textures *)&s->video.textures, texture.id);
}

int ona__services_font_load(ona__services *s, const char *path, int size, const char *who,
                            uint64_t holder, ona_font *out) {
    if (!path || size < 1 || size > ONA_FONT_MAX_SIZE || !s->video_ready) /* default, refused */
        return ona__fonts_load(s->video.fonts, path, size, who, out);
    return ona__assets_load(&s->assets, ONA__ASSET_FONT, path, size, who, holder, &out->id, NULL,
                            0);
}

int ona__services_font_measure(ona__services *s, ona_font font, const char *text, size_t length,
                               const ona_text_desc *desc, float *width, float *height) {
    if (!s->video_ready)
        return ONA_EINVAL;
    return ona__text_measure(s->video.fonts, font, text, length, desc, width, height);
}

float ona__services_font_line_height(ona__services *s, ona_font font) {
    return s->video_ready ? ona__text_line_height(s->video.fonts, font) : 0;
}

int ona__services_sound_load(ona__services *s, const char *path, const char *who, uint64_t holder,
                             ona_sound *out) {
    return ona__assets_load(&s->assets, ONA__ASSET_SOUND, path, 0, who, holder, &out->id, NULL, 0);
}

int ona__services_sound_release(ona__services *s, ona_sound sound, uint64_t holder) {
    return ona__assets_release(&s->assets, ONA__ASSET_SOUND, sound.id, holder);
}

int ona__services_music_load(ona__services *s, const char *name, const char *who, uint64_t holder,
                             char *path, size_t size) {
    uint32_t handle;
    return ona__assets_load(&s->assets, ONA__ASSET_MUSIC, name, 0, who, holder, &handle, path,
                            size);
}

void ona__services_system_ended(ona__services *s, const ona__system *sys) {
    if (s && s->assets_ready)
        ona__assets_release_all(&s->assets, sys->id);
}

/* --- Input and sound commands of systems --------------------------------------------------- */

const char *ona__services_love_key(const char *name) {
    return ona__keys_love_name(name);
}

bool ona__services_key_is_character(const char *name) {
    return ona__keys_is_character_only(name);
}

void ona__services_normalise_key(ona_event *e) {
    ona__window_normalise_key(e);
}

int ona__system_pad_command(ona__system *sys, ona__pad_command *c) {
    return ona__gamepads_command(&ona__services_of(sys)->video.pads, ona__runq_thread_index(),
                                 sys->spawn_order, &sys->draw_seq, c);
}

int ona__services_play_cmd(ona__services *s, ona_sound sound, double volume, double pan,
                           double pitch, bool loop, const char *group, ona__audio_cmd *cmd,
                           const char **why) {
    return ona__audio_play_cmd(&s->audio, sound, volume, pan, pitch, loop, group, cmd, why);
}

int ona__services_volume_cmd(ona__services *s, const char *group, double volume,
                             ona__audio_cmd *cmd, const char **why) {
    return ona__audio_volume_cmd(&s->audio, group, volume, cmd, why);
}

int ona__services_music_cmd(bool start, double volume, double fade, bool loop, ona__audio_cmd *cmd,
                            const char **why) {
    return ona__audio_music_cmd(start, volume, fade, loop, cmd, why);
}

int ona__services_set_cmd(uint64_t voice, unsigned set, double volume, double pan, double pitch,
                          ona__audio_cmd *cmd, const char **why) {
    return ona__audio_set_cmd(voice, set, volume, pan, pitch, cmd, why);
}

bool ona__system_audio_playing(ona__system *sys, uint64_t voice, int *rc) {
    return ona__audio_playing(&ona__services_of(sys)->audio, sys, voice, rc);
}

bool ona__system_audio_warn_once(ona__system *sys) {
    return ona__audio_warn_once(&ona__services_of(sys)->audio, sys);
}

/* How many bytes of `path` are the script root it lies under, or (a path resolved elsewhere)
 * its folders. */
static size_t root_prefix(const ona__services *s, const char *path) {
    for (uint32_t i = 0; i < s->root_count; i++) {
        size_t n = strlen(s->roots[i]);
        if (strncmp(path, s->roots[i], n) == 0 && path[n] == '/')
            return n + 1;
    }
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

int ona__system_audio_push(ona__system *sys, ona__audio_cmd *cmd, const char *path,
                           uint64_t *voice) {
    int rc = ona__audio_push(&ona__services_of(sys)->audio, sys, cmd, path, voice);
    if (rc == 0 && sys->core->digesting) {
        /* A recording's digest of the command: what it asks, not the handles it carries. */
        float f[4] = {cmd->volume, cmd->pan, cmd->pitch, cmd->fade};
        uint64_t h = ona__digest_bytes(ONA__DIGEST_SEED, f, sizeof f);
        h = ona__digest_word(h, ((uint64_t)cmd->set << 24) | ((uint64_t)cmd->op << 16) |
                                    ((uint64_t)cmd->group << 8) | cmd->loop);
        if (path) /* relative to its script root: a replay may run the game from elsewhere */
            h = ona__digest_bytes(h, path + root_prefix(ona__services_of(sys), path),
                                  strlen(path + root_prefix(ona__services_of(sys), path)));
        ona__system_digest(sys, ONA__DIGEST_PLAYED, h);
    }
    return rc;
}
