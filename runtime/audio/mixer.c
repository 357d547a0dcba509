/*
 * mixer.c: audio command queues, their merge, and the float mixer (mixer.h). Pure C, no SDL.
 *
 * Design note. Determinism: a frame's commands come from per-thread queues and are sorted by
 * (system spawn order, submission number), which no thread count changes; the mixer applies
 * them in that order, takes voice slots lowest first, sums voices in slot order and steps every
 * position in 32.32 fixed point, so the same list gives the same samples bit for bit. What the
 * mixer cannot control is which device buffer a frame's list lands in (that is the device's
 * clock), so the tests compare mixes of the same list applied at the same point.
 *
 * Threads: queues as in render_queue.c (one writer thread during the frame, main after it). The
 * mixer itself belongs to whoever holds the device's lock: SDL's audio thread while it mixes,
 * main while it applies a frame's list (audio.c). Nothing here blocks or allocates while mixing;
 * a stream's read (sound.c) decodes the next chunk of an OGG, and libvorbis, which keeps its
 * buffers between packets, allocates only for a packet larger than any before.
 *
 * Pan is a balance: the far side is scaled by 1 - |pan|, the near side stays whole, so a centred
 * voice plays at its recorded level in both ears. Pitch resamples with linear interpolation.
 */
#include "mixer.h"

#include "common.h"

#include <stdlib.h>

/* --- Queues and merge ------------------------------------------------------------------------ */

void ona__audio_queue_free(ona__audio_queue *q) {
    ona__free(q->cmds);
    ona__free(q->strings);
    memset(q, 0, sizeof *q);
}

void ona__audio_queue_clear(ona__audio_queue *q) {
    q->count = 0;
    q->string_size = 0;
}

int ona__audio_queue_push(ona__audio_queue *q, const ona__audio_cmd *cmd, const char *path) {
    uint32_t at = 0;
    if (path) {
        size_t len = strlen(path) + 1;
        if (len > UINT32_MAX - q->string_size)
            return ONA_ENOMEM;
        if (ona__grow((void **)&q->strings, &q->string_capacity, q->string_size + (uint32_t)len, 1))
            return ONA_ENOMEM;
        at = q->string_size;
        memcpy(q->strings + at, path, len);
    }
    if (q->count == UINT32_MAX ||
        ona__grow((void **)&q->cmds, &q->capacity, q->count + 1, sizeof *q->cmds))
        return ONA_ENOMEM;
    if (path)
        q->string_size += (uint32_t)(strlen(path) + 1);
    ona__audio_cmd *c = &q->cmds[q->count++];
    *c = *cmd;
    c->path = at;
    c->pcm = NULL;
    c->stream = NULL;
    c->path_ptr = NULL;
    return 0;
}

static int by_key(const void *a, const void *b) {
    const ona__audio_cmd *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

int ona__audio_merge(ona__audio_queue *const *queues, uint32_t queue_count, ona__audio_list *list) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < queue_count; i++)
        total += queues[i]->count;
    list->count = 0;
    if (total > UINT32_MAX ||
        ona__grow((void **)&list->cmds, &list->capacity, (uint32_t)total, sizeof *list->cmds))
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < queue_count; i++) {
        const ona__audio_queue *q = queues[i];
        for (uint32_t c = 0; c < q->count; c++) {
            ona__audio_cmd *out = &list->cmds[list->count++];
            *out = q->cmds[c];
            if (out->op == ONA__AUDIO_MUSIC)
                out->path_ptr = q->strings + out->path;
        }
    }
    /* (order, seq) is unique per command: a system's turn runs on one thread at a time and its
     * submission counter only grows within a frame, so qsort's instability cannot show. */
    bool sorted = true; /* the usual case with one thread, or one system playing */
    for (uint32_t i = 1; i < list->count && sorted; i++)
        sorted = by_key(&list->cmds[i - 1], &list->cmds[i]) < 0;
    if (!sorted)
        qsort(list->cmds, list->count, sizeof *list->cmds, by_key);
    return 0;
}

void ona__audio_list_free(ona__audio_list *list) {
    ona__free(list->cmds);
    memset(list, 0, sizeof *list);
}

/* --- The mixer ------------------------------------------------------------------------------- */

void ona__mixer_init(ona__mixer *m) {
    memset(m, 0, sizeof *m);
    for (uint32_t g = 0; g < ONA__GROUP_COUNT; g++)
        m->groups[g] = 1.0f;
}

static void balance(float volume, float pan, float *left, float *right) {
    *left = volume * (pan > 0 ? 1.0f - pan : 1.0f);
    *right = volume * (pan < 0 ? 1.0f + pan : 1.0f);
}

static void retire_now(ona__stream *s) {
    if (s)
        s->close(s);
}

/* Starts `stream` as the music over `fade` seconds; the current music fades out meanwhile. */
static void start_music(ona__mixer *m, ona__stream *stream, float volume, float fade) {
    retire_now(m->old_music.stream); /* a third music cannot fade: the oldest goes at once */
    m->old_music = (ona__music){0};
    uint32_t fade_frames = fade > 0 ? (uint32_t)(fade * ONA__MIX_RATE) : 0;
    if (m->music.stream) {
        if (fade_frames) {
            m->old_music = m->music;
            m->old_music.target = 0;
            m->old_music.delta = -m->music.gain / (float)fade_frames;
            m->old_music.retire_at_zero = true;
        } else
            retire_now(m->music.stream);
    }
    m->music = (ona__music){.stream = stream, .target = volume};
    m->music_volume = volume;
    if (fade_frames && stream) {
        m->music.gain = 0;
        m->music.delta = volume / (float)fade_frames;
    } else
        m->music.gain = volume;
}

static void stop_music(ona__mixer *m, float fade) {
    uint32_t fade_frames = fade > 0 ? (uint32_t)(fade * ONA__MIX_RATE) : 0;
    if (!m->music.stream)
        return;
    if (!fade_frames) {
        retire_now(m->music.stream);
        m->music = (ona__music){0};
        return;
    }
    retire_now(m->old_music.stream);
    m->old_music = m->music;
    m->old_music.target = 0;
    m->old_music.delta = -m->music.gain / (float)fade_frames;
    m->old_music.retire_at_zero = true;
    m->music = (ona__music){0};
}

void ona__mixer_apply(ona__mixer *m, const ona__audio_cmd *cmds, uint32_t count) {
    /* Once a play finds every voice busy, later plays of this list are dropped without scanning
     * again, until a stop frees one: a list of 1,000 plays costs 1,000 scans at most once. */
    bool full = false;
    m->dropped_last = 0;
    m->dropped_who = NULL;
    for (uint32_t i = 0; i < count; i++) {
        const ona__audio_cmd *c = &cmds[i];
        m->commands_applied++;
        switch (c->op) {
        case ONA__AUDIO_PLAY: {
            if (!c->pcm || c->pcm->count == 0)
                break; /* the silent placeholder: nothing to play */
            if (full) {
                m->dropped++;
                m->dropped_last++;
                break;
            }
            ona__voice *v = NULL;
            for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES && !v; s++)
                if (!m->voices[s].handle)
                    v = &m->voices[s];
            if (!v) {
                m->dropped++;
                if (m->dropped_last++ == 0)
                    m->dropped_who = c->who;
                full = true;
                break;
            }
            *v = (ona__voice){.handle = c->voice,
                              .pcm = c->pcm,
                              .step = (uint64_t)((double)c->pitch * 4294967296.0),
                              .group = c->group,
                              .loop = c->loop};
            if (v->step == 0)
                v->step = 1;
            balance(c->volume, c->pan, &v->left, &v->right);
            break;
        }
        case ONA__AUDIO_STOP:
            full = false;
            for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
                if (m->voices[s].handle == c->voice)
                    m->voices[s] = (ona__voice){0};
            break;
        case ONA__AUDIO_VOLUME:
            if (c->group < ONA__GROUP_COUNT)
                m->groups[c->group] = c->volume;
            break;
        case ONA__AUDIO_MUSIC:
            start_music(m, c->stream, c->volume, c->fade);
            break;
        case ONA__AUDIO_MUSIC_STOP:
            stop_music(m, c->fade);
            break;
        default:
            break;
        }
    }
}

/* Retires a stream from the mixing thread: main closes it later. False when the list is full
 * (the caller keeps the stream, silent, and tries again next buffer). */
static bool retire_later(ona__mixer *m, ona__stream *s) {
    if (m->retired_count == ONA__MIX_RETIRED)
        return false;
    m->retired[m->retired_count++] = s;
    return true;
}

/* Adds one music's frames into out. */
static void mix_music(ona__mixer *m, ona__music *mu, float *out, uint32_t frames, float scale) {
    uint32_t done = 0;
    while (mu->stream && done < frames) {
        uint32_t want = ONA__MIX_CHUNK < frames - done ? ONA__MIX_CHUNK : frames - done;
        uint32_t got = mu->stream->read(mu->stream, m->scratch, want);
        for (uint32_t f = 0; f < got; f++) {
            float g = mu->gain * scale;
            out[(done + f) * 2] += m->scratch[f * 2] * g;
            out[(done + f) * 2 + 1] += m->scratch[f * 2 + 1] * g;
            if (mu->delta != 0) {
                mu->gain += mu->delta;
                if ((mu->delta > 0 && mu->gain >= mu->target) ||
                    (mu->delta < 0 && mu->gain <= mu->target)) {
                    mu->gain = mu->target;
                    mu->delta = 0;
                }
            }
        }
        done += got;
        bool ended = got < want || (mu->retire_at_zero && mu->delta == 0 && mu->gain <= 0);
        if (ended) {
            if (retire_later(m, mu->stream))
                *mu = (ona__music){0};
            else
                mu->gain = mu->delta = 0; /* silent until main makes room */
            break;
        }
    }
}

void ona__mixer_mix(ona__mixer *m, float *out, uint32_t frames) {
    memset(out, 0, (size_t)frames * ONA__MIX_CHANNELS * sizeof *out);
    float master = m->groups[ONA__GROUP_MASTER];
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++) {
        ona__voice *v = &m->voices[s];
        if (!v->handle)
            continue;
        float g = master * (v->group < ONA__GROUP_COUNT ? m->groups[v->group] : 1.0f);
        float l = v->left * g, r = v->right * g;
        const float *pcm = v->pcm->frames;
        uint64_t count = v->pcm->count, end = count << 32;
        for (uint32_t f = 0; f < frames; f++) {
            if (v->pos >= end) {
                if (!v->loop) {
                    *v = (ona__voice){0};
                    break;
                }
                v->pos %= end;
            }
            uint64_t i = v->pos >> 32;
            float t = (float)(v->pos & 0xFFFFFFFFu) * (1.0f / 4294967296.0f);
            uint64_t j = i + 1 < count ? i + 1 : (v->loop ? 0 : i);
            float a0 = pcm[i * 2], a1 = pcm[j * 2];
            float b0 = pcm[i * 2 + 1], b1 = pcm[j * 2 + 1];
            out[f * 2] += (a0 + (a1 - a0) * t) * l;
            out[f * 2 + 1] += (b0 + (b1 - b0) * t) * r;
            v->pos += v->step;
        }
    }
    float music = master * m->groups[ONA__GROUP_MUSIC];
    mix_music(m, &m->music, out, frames, music);
    mix_music(m, &m->old_music, out, frames, music);
    for (uint32_t i = 0; i < frames * ONA__MIX_CHANNELS; i++)
        out[i] = out[i] > 1.0f ? 1.0f : (out[i] < -1.0f ? -1.0f : out[i]);
    m->frames_mixed += frames;
}

void ona__mixer_replace(ona__mixer *m, const ona__pcm *old, const ona__pcm *new_pcm) {
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++) {
        ona__voice *v = &m->voices[s];
        if (!v->handle || v->pcm != old)
            continue;
        v->pcm = new_pcm;
        uint64_t end = (uint64_t)new_pcm->count << 32;
        if (new_pcm->count == 0 || (!v->loop && v->pos >= end))
            *v = (ona__voice){0}; /* past the end of a shorter sound: it has finished */
        else if (v->pos >= end)
            v->pos %= end; /* a loop goes on from where it is in its cycle of the new sound */
    }
}

ona__stream *ona__mixer_music_swap(ona__mixer *m, ona__stream *stream) {
    ona__stream *old = m->music.stream;
    m->music.stream = stream;
    return old;
}

uint32_t ona__mixer_take_retired(ona__mixer *m, ona__stream **out, uint32_t max) {
    uint32_t n = m->retired_count < max ? m->retired_count : max;
    memcpy(out, m->retired, n * sizeof *out);
    memmove(m->retired, m->retired + n, (m->retired_count - n) * sizeof *out);
    m->retired_count -= n;
    return n;
}

uint32_t ona__mixer_take_all(ona__mixer *m, ona__stream **out, uint32_t max) {
    uint32_t n = ona__mixer_take_retired(m, out, max);
    if (m->music.stream && n < max)
        out[n++] = m->music.stream;
    if (m->old_music.stream && n < max)
        out[n++] = m->old_music.stream;
    m->music = m->old_music = (ona__music){0};
    return n;
}

uint32_t ona__mixer_voices(const ona__mixer *m) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
        n += m->voices[s].handle != 0;
    return n;
}
