/*
 * clock.c: the game's clock of voices (mixer.h): which voices and which music play, in game time.
 *
 * Design note. The game asks whether a voice plays (ona.audio.playing) and is told when every
 * voice is busy; both answers must be the same on every thread count and under record/replay,
 * so they cannot come from the device, whose mixer runs on SDL's thread at the sound card's pace.
 * The clock is the mixer without samples: main applies each frame's merged list to it (plays
 * take the lowest free slot and are dropped when none is left, as in the mixer), then advances
 * it by the frame's dt at 48 kHz, stepping every position by its pitch in 32.32 fixed point, as
 * the mixer does. A voice ends when its position passes its sound's length; the music when it
 * passes its stream's length (ona__stream.length), or never for a loop. Main writes it only
 * between frames; systems read it during the turns.
 */
#include "mixer.h"

#include <string.h>

void ona__clock_init(ona__clock *c) {
    memset(c, 0, sizeof *c);
}

static uint64_t step_of(float pitch) {
    uint64_t step = (uint64_t)((double)pitch * 4294967296.0);
    return step ? step : 1;
}

static ona__clock_voice *find(ona__clock *c, uint64_t handle) {
    if (!handle)
        return NULL;
    if (c->music.handle == handle)
        return &c->music;
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
        if (c->voices[s].handle == handle)
            return &c->voices[s];
    return NULL;
}

static void end_voice(ona__clock *c, ona__clock_voice *v) {
    if (v != &c->music && v->handle)
        c->live--;
    *v = (ona__clock_voice){0};
}

void ona__clock_apply(ona__clock *c, const ona__audio_cmd *cmds, uint32_t count) {
    bool full = false; /* as ona__mixer_apply: dropped once full, until a stop */
    c->dropped_last = 0;
    c->dropped_who = NULL;
    for (uint32_t i = 0; i < count; i++) {
        const ona__audio_cmd *cmd = &cmds[i];
        switch (cmd->op) {
        case ONA__AUDIO_PLAY: {
            if (!cmd->pcm || cmd->pcm->count == 0)
                break;
            ona__clock_voice *v = NULL;
            for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES && !v && !full; s++)
                if (!c->voices[s].handle)
                    v = &c->voices[s];
            if (!v) {
                full = true;
                if (c->dropped_last++ == 0)
                    c->dropped_who = cmd->who;
                break;
            }
            *v = (ona__clock_voice){.handle = cmd->voice,
                                    .step = step_of(cmd->pitch),
                                    .end = (uint64_t)cmd->pcm->count << 32,
                                    .sound = cmd->sound,
                                    .loop = cmd->loop};
            c->live++;
            break;
        }
        case ONA__AUDIO_STOP: {
            full = false;
            ona__clock_voice *v = find(c, cmd->voice);
            if (v)
                end_voice(c, v);
            break;
        }
        case ONA__AUDIO_SET: {
            ona__clock_voice *v = find(c, cmd->voice);
            if (v && (cmd->set & ONA__SET_PITCH))
                v->step = step_of(cmd->pitch);
            break;
        }
        case ONA__AUDIO_MUSIC: {
            c->music = (ona__clock_voice){0};
            uint64_t length = cmd->stream ? cmd->stream->length : 0;
            if (length == 0)
                break; /* silent music (its file could not be opened) or an empty one */
            c->music =
                (ona__clock_voice){.handle = cmd->voice,
                                   .step = UINT64_C(1) << 32,
                                   .end = length >= (UINT64_C(1) << 31) ? UINT64_MAX : length << 32,
                                   .loop = cmd->loop};
            break;
        }
        case ONA__AUDIO_MUSIC_STOP:
            c->music = (ona__clock_voice){0};
            break;
        default:
            break;
        }
    }
}

/* Advances one voice; true when it has ended. */
static bool advance(ona__clock_voice *v, uint64_t frames) {
    if (!v->handle || v->loop || v->end == UINT64_MAX)
        return false;
    uint64_t left = v->end > v->pos ? v->end - v->pos : 0;
    if (frames >= (left + v->step - 1) / v->step) /* frames * step >= left, not overflowing */
        return true;
    v->pos += frames * v->step;
    return v->pos >= v->end;
}

void ona__clock_advance(ona__clock *c, uint64_t frames) {
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES && c->live; s++)
        if (advance(&c->voices[s], frames))
            end_voice(c, &c->voices[s]);
    if (advance(&c->music, frames))
        end_voice(c, &c->music);
    c->frames += frames;
}

bool ona__clock_playing(const ona__clock *c, uint64_t handle) {
    return find((ona__clock *)c, handle) != NULL;
}

void ona__clock_replace(ona__clock *c, uint32_t sound, uint32_t count) {
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++) {
        ona__clock_voice *v = &c->voices[s];
        if (!v->handle || v->sound != sound)
            continue;
        v->end = (uint64_t)count << 32;
        if (count == 0 || (!v->loop && v->pos >= v->end))
            end_voice(c, v);
        else if (v->pos >= v->end)
            v->pos %= v->end;
    }
}

void ona__clock_music_restart(ona__clock *c, uint64_t length) {
    if (!c->music.handle)
        return;
    c->music.pos = 0;
    c->music.end = length >= (UINT64_C(1) << 31) ? UINT64_MAX : length << 32;
    if (length == 0)
        c->music = (ona__clock_voice){0};
}
