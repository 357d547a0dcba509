/*
 * ctx_audio.c: sound from a C system's callbacks (ona/audio.h): the same commands as ona.audio.
 *
 * Design note. A command is built and checked here (audio.c's *_cmd), then queued on the audio
 * queue of the thread running the turn, tagged with the system's order; main hands the frame's
 * commands to the mixer after the turns (runtime/audio/audio.c).
 */
#include "native.h"

#include <stdio.h>

static int audio_push(ona_ctx *ctx, ona__audio_cmd *cmd, const char *path, uint64_t *voice) {
    return ona__system_audio_push(ctx->sys, cmd, path, voice);
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
    int rc = ona__services_play_cmd(ona__ctx_services(ctx), sound, or_one(d.volume), d.pan,
                                    or_one(d.pitch), d.loop, d.group, &cmd, &why);
    if (rc)
        return rc;
    uint64_t voice = 0;
    rc = audio_push(ctx, &cmd, NULL, &voice);
    if (rc == ONA_EBUSY && ona__system_audio_warn_once(ctx->sys))
        ona_log(
            ONA_LOG_WARN, "audio",
            "%s: all %d voices are busy: ona_ctx_audio_play returned ONA_EBUSY (stop voices, or "
            "play fewer at once; said once per system)",
            ctx->sys->name, ONA_AUDIO_MAX_VOICES);
    if (rc == 0 && out)
        out->id = voice;
    return rc;
}

int ona_ctx_audio_set(ona_ctx *ctx, ona_voice voice, const ona_voice_set *set) {
    if (!ctx || !set ||
        (set->fields & ~(unsigned)(ONA_VOICE_VOLUME | ONA_VOICE_PAN | ONA_VOICE_PITCH)))
        return ONA_EINVAL;
    unsigned fields = (set->fields & ONA_VOICE_VOLUME ? ONA__SET_VOLUME : 0) |
                      (set->fields & ONA_VOICE_PAN ? ONA__SET_PAN : 0) |
                      (set->fields & ONA_VOICE_PITCH ? ONA__SET_PITCH : 0);
    ona__audio_cmd cmd;
    const char *why = NULL;
    int rc = ona__services_set_cmd(voice.id, fields, set->volume, set->pan, set->pitch, &cmd, &why);
    if (rc || !voice.id)
        return rc;
    return audio_push(ctx, &cmd, NULL, NULL);
}

bool ona_ctx_audio_playing(ona_ctx *ctx, ona_voice voice) {
    if (!ctx)
        return false;
    int rc = 0;
    return ona__system_audio_playing(ctx->sys, voice.id, &rc);
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
    int rc = ona__services_volume_cmd(ona__ctx_services(ctx), group, volume, &cmd, &why);
    return rc ? rc : audio_push(ctx, &cmd, NULL, NULL);
}

int ona_ctx_audio_music(ona_ctx *ctx, const char *path, const ona_music_desc *desc,
                        ona_voice *out) {
    if (out)
        out->id = 0;
    if (!ctx)
        return ONA_EINVAL;
    ona_music_desc d = desc ? *desc : (ona_music_desc){0};
    ona__audio_cmd cmd;
    const char *why = NULL;
    int rc = ona__services_music_cmd(path != NULL, or_one(d.volume), d.fade, d.loop, &cmd, &why);
    if (rc)
        return rc;
    char resolved[4096];
    if (path) {
        char found[4096];
        rc = ona__services_locate(ona__ctx_services(ctx), path, found, sizeof found);
        if (rc == ONA_EPATH || rc == ONA_ERANGE)
            return rc; /* a name no file of the game can have */
        /* Registered and watched: a change of the file restarts it (a missing one logs). It
         * writes the path to open, except where there is no music kind (no audio). */
        snprintf(resolved, sizeof resolved, "%s", found);
        ona__services_music_load(ona__ctx_services(ctx), found, ctx->sys->name, ctx->sys->id,
                                 resolved, sizeof resolved);
    }
    uint64_t voice = 0;
    rc = audio_push(ctx, &cmd, path ? resolved : NULL, &voice);
    if (rc == 0 && out && path)
        out->id = voice;
    return rc;
}
