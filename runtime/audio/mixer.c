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
 * voice plays at its recorded level in both ears. Pitch resamples with linear interpolation, for
 * music too (each music reads ahead into its own buffer). A voice or the music is changed (SET)
 * and stopped by its handle; a handle nothing plays is ignored.
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

/* The music's read-ahead, emptied (a new stream, or the same one swapped). */
static void music_reset(ona__music *mu) {
    mu->pos = 0;
    mu->count = 0;
    mu->drained = false;
}

/* Starts `stream` as the music over `fade` seconds; the current music fades out meanwhile. */
static void start_music(ona__mixer *m, const ona__audio_cmd *c) {
    ona__stream *stream = c->stream;
    float volume = c->volume, fade = c->fade;
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
    m->music.stream = stream;
    m->music.handle = stream ? c->voice : 0;
    m->music.target = volume;
    m->music.delta = 0;
    m->music.retire_at_zero = false;
    m->music.step = UINT64_C(1) << 32;
    m->music.pan = 0;
    m->music.left = m->music.right = 1;
    music_reset(&m->music);
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

/* A SET command on a voice or the music. */
static void set_voice(ona__mixer *m, const ona__audio_cmd *c) {
    if (c->voice == m->music.handle && m->music.stream) {
        ona__music *mu = &m->music;
        if (c->set & ONA__SET_VOLUME) { /* at once: a fade in progress ends here */
            mu->gain = mu->target = m->music_volume = c->volume;
            mu->delta = 0;
        }
        if (c->set & ONA__SET_PAN) {
            mu->pan = c->pan;
            balance(1, c->pan, &mu->left, &mu->right);
        }
        if (c->set & ONA__SET_PITCH)
            mu->step = (uint64_t)((double)c->pitch * 4294967296.0);
        return;
    }
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++) {
        ona__voice *v = &m->voices[s];
        if (v->handle != c->voice)
            continue;
        if (c->set & ONA__SET_VOLUME)
            v->volume = c->volume;
        if (c->set & ONA__SET_PAN)
            v->pan = c->pan;
        if (c->set & ONA__SET_PITCH)
            v->step = (uint64_t)((double)c->pitch * 4294967296.0);
        if (v->step == 0)
            v->step = 1;
        balance(v->volume, v->pan, &v->left, &v->right);
        return;
    }
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
                              .volume = c->volume,
                              .pan = c->pan,
                              .group = c->group,
                              .loop = c->loop};
            if (v->step == 0)
                v->step = 1;
            balance(c->volume, c->pan, &v->left, &v->right);
            break;
        }
        case ONA__AUDIO_STOP:
            full = false;
            if (c->voice && c->voice == m->music.handle) {
                retire_now(m->music.stream);
                m->music.stream = NULL;
                m->music.handle = 0;
                break;
            }
            for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
                if (m->voices[s].handle == c->voice)
                    m->voices[s] = (ona__voice){0};
            break;
        case ONA__AUDIO_SET:
            if (c->voice)
                set_voice(m, c);
            break;
        case ONA__AUDIO_VOLUME:
            if (c->group < ONA__GROUP_COUNT)
                m->groups[c->group] = c->volume;
            break;
        case ONA__AUDIO_MUSIC:
            start_music(m, c);
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

/* Makes sure frames i and i + 1 of the music's read-ahead exist where the stream has them,
 * reading on; returns the index of frame i in the buffer, or UINT32_MAX at the stream's end. */
static uint32_t music_frame(ona__music *mu) {
    uint64_t i = mu->pos >> 32;
    while (i + 1 >= mu->count && !mu->drained) {
        uint32_t drop = i < mu->count ? (uint32_t)i : mu->count; /* frames behind the position */
        memmove(mu->buf, mu->buf + (size_t)drop * 2,
                (size_t)(mu->count - drop) * 2 * sizeof *mu->buf);
        mu->count -= drop;
        mu->pos -= (uint64_t)drop << 32;
        i -= drop;
        uint32_t want = ONA__MIX_BUF - mu->count;
        uint32_t got = mu->stream->read(mu->stream, mu->buf + (size_t)mu->count * 2, want);
        mu->count += got;
        if (got < want)
            mu->drained = true;
    }
    return i < mu->count ? (uint32_t)i : UINT32_MAX;
}

/* Adds one music's frames into out, resampled by its pitch, balanced by its pan. */
static void mix_music(ona__mixer *m, ona__music *mu, float *out, uint32_t frames, float scale) {
    if (!mu->stream)
        return;
    uint32_t f = 0;
    bool ended = false;
    for (; f < frames; f++) {
        uint32_t i = music_frame(mu);
        if (i == UINT32_MAX) {
            ended = true;
            break;
        }
        uint32_t j = i + 1 < mu->count ? i + 1 : i;
        float t = (float)(mu->pos & 0xFFFFFFFFu) * (1.0f / 4294967296.0f);
        float g = mu->gain * scale;
        float a0 = mu->buf[i * 2], a1 = mu->buf[j * 2];
        float b0 = mu->buf[i * 2 + 1], b1 = mu->buf[j * 2 + 1];
        out[f * 2] += (a0 + (a1 - a0) * t) * g * mu->left;
        out[f * 2 + 1] += (b0 + (b1 - b0) * t) * g * mu->right;
        mu->pos += mu->step;
        if (mu->delta != 0) {
            mu->gain += mu->delta;
            if ((mu->delta > 0 && mu->gain >= mu->target) ||
                (mu->delta < 0 && mu->gain <= mu->target)) {
                mu->gain = mu->target;
                mu->delta = 0;
            }
        }
        if (mu->retire_at_zero && mu->delta == 0 && mu->gain <= 0) {
            ended = true;
            break;
        }
    }
    if (ended) {
        if (retire_later(m, mu->stream)) {
            mu->stream = NULL;
            mu->handle = 0;
            mu->gain = mu->delta = 0;
            mu->retire_at_zero = false;
        } else
            mu->gain = mu->delta = 0; /* silent until main makes room */
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
        if (v->handle && !v->loop && v->pos >= end)
            *v = (ona__voice){0}; /* done now, as the game's clock counts it (ona__clock) */
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
    music_reset(&m->music);
    if (!stream)
        m->music.handle = 0;
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
    m->music.stream = m->old_music.stream = NULL;
    m->music.handle = m->old_music.handle = 0;
    return n;
}

uint32_t ona__mixer_voices(const ona__mixer *m) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
        n += m->voices[s].handle != 0;
    return n;
}
