/*
 * music.c: music streams (sound.h): an OGG streamed, a WAV decoded whole.
 *
 * Design note. Music is not decoded whole: an OGG stream (libvorbisfile over the open file, opened
 * on main) decodes a chunk at a time on the mixer's thread, as the mixer reads, and an
 * SDL_AudioStream converts it to 48 kHz. Opening reads the headers and, the file being seekable,
 * walks its pages (ov_open_callbacks), so a file damaged there is refused at once; damage found
 * later while playing ends the music, said once in the log. libvorbis keeps its block buffers
 * between packets: after the first chunks, a read allocates only for a packet larger than any
 * before.
 */
#include "sound.h"

#include "common.h"
#include "paths.h"

#include <SDL.h>
#include <errno.h>
#include <stdio.h>

#define OV_EXCLUDE_STATIC_CALLBACKS /* the header's own FILE callbacks: unused here */
#include <vorbis/vorbisfile.h>

#define VORBIS_CHUNK 2048 /* frames decoded at a time */
#define MAX_HOLES 64      /* holes skipped in a row before a stream counts as broken */

typedef struct vorbis_stream {
    ona__stream base;
    OggVorbis_File vf; /* owns the FILE main opened (closed by ov_clear) */
    char *path;        /* for the log */
    long rate;         /* the first link's; a link at another rate ends the music */
    SDL_AudioStream *convert;
    bool loop, ended;
    float chunk[VORBIS_CHUNK * 2];
} vorbis_stream;

static size_t file_read(void *ptr, size_t size, size_t count, void *source) {
    return fread(ptr, size, count, source);
}

static int file_seek(void *source, ogg_int64_t offset, int whence) {
    return offset > LONG_MAX || offset < LONG_MIN ? -1 : fseek(source, (long)offset, whence);
}

static long file_tell(void *source) {
    return ftell(source);
}

/* Ends the music on damaged data, said once (the mixer's thread: the log does not allocate). */
static void stream_broken(vorbis_stream *s, const char *what) {
    ona_log(ONA_LOG_ERROR, "audio", "music %s: %s while playing; the music stops", s->path, what);
    SDL_AudioStreamFlush(s->convert);
    s->ended = true;
}

/* Decodes the next chunk as stereo into s->chunk: mono on both sides, a third channel and up
 * dropped (as convert does). Returns frames, 0 at the end, -1 when the stream is broken. */
static int decode_chunk(vorbis_stream *s) {
    for (int holes = 0; holes < MAX_HOLES; holes++) {
        float **pcm = NULL;
        int link = 0;
        long got = ov_read_float(&s->vf, &pcm, VORBIS_CHUNK, &link);
        if (got == OV_HOLE)
            continue; /* recoverable: the decoder resynchronises on the next page */
        if (got < 0) {
            stream_broken(s, ona__sound_ov_error_text(got));
            return -1;
        }
        const vorbis_info *info = ov_info(&s->vf, link);
        if (got > 0 && (!info || info->rate != s->rate || info->channels < 1)) {
            stream_broken(s, "a chained stream at another rate");
            return -1;
        }
        int right = got > 0 && info->channels > 1 ? 1 : 0;
        for (long i = 0; i < got; i++) {
            s->chunk[i * 2] = pcm[0][i];
            s->chunk[i * 2 + 1] = pcm[right][i];
        }
        return (int)got;
    }
    stream_broken(s, ona__sound_ov_error_text(OV_HOLE));
    return -1;
}

static uint32_t vorbis_read(ona__stream *base, float *out, uint32_t frames) {
    vorbis_stream *s = (vorbis_stream *)base;
    int want = (int)(frames * ONA__MIX_CHANNELS * sizeof(float));
    bool rewound = false; /* a loop that decodes nothing after a rewind has nothing to play */
    while (SDL_AudioStreamAvailable(s->convert) < want && !s->ended) {
        int got = decode_chunk(s);
        if (got > 0) {
            rewound = false;
            if (SDL_AudioStreamPut(s->convert, s->chunk, got * 2 * (int)sizeof(float)) != 0)
                s->ended = true;
        } else if (got == 0 && s->loop && !rewound) {
            rewound = true;
            if (ov_raw_seek(&s->vf, 0) != 0)
                stream_broken(s, "it cannot be rewound");
        } else if (got == 0) {
            SDL_AudioStreamFlush(s->convert);
            s->ended = true;
        }
    }
    int got = SDL_AudioStreamGet(s->convert, out, want);
    return got > 0 ? (uint32_t)got / (ONA__MIX_CHANNELS * sizeof(float)) : 0;
}

static void vorbis_close(ona__stream *base) {
    vorbis_stream *s = (vorbis_stream *)base;
    ov_clear(&s->vf); /* closes the file through the callbacks' close */
    SDL_FreeAudioStream(s->convert);
    ona__free(s->path);
    ona__free(s);
}

static int file_close(void *source) {
    return fclose(source);
}

/* Opens an OGG Vorbis stream of `path` (main thread). NULL, logged, when it cannot be played. */
static ona__stream *open_vorbis(const char *path, bool loop) {
    vorbis_stream *s = ona__calloc(1, sizeof *s);
    char *copy = ona__malloc(strlen(path) + 1);
    FILE *file = ona__paths_fopen(path);
    if (!s || !copy || !file) {
        ona_log(ONA_LOG_ERROR, "audio", "music %s: %s; playing silence instead", path,
                file ? "out of memory" : "cannot be read");
        if (file)
            fclose(file);
        ona__free(copy);
        ona__free(s);
        return NULL;
    }
    strcpy(copy, path);
    ov_callbacks io = {file_read, file_seek, file_close, file_tell};
    long err = ov_open_callbacks(file, &s->vf, NULL, 0, io);
    if (err < 0) {
        fclose(file); /* not ov_clear's after a failed open */
        ona_log(ONA_LOG_ERROR, "audio",
                "music %s: not a readable OGG Vorbis file (%s); playing silence instead", path,
                ona__sound_ov_error_text(err));
        ona__free(copy);
        ona__free(s);
        return NULL;
    }
    char why[128];
    const vorbis_info *info = ov_info(&s->vf, -1);
    SDL_AudioStream *c = NULL;
    if (ona__sound_ogg_format_ok(info, why, sizeof why)) {
        c = SDL_NewAudioStream(AUDIO_F32SYS, 2, (int)info->rate, AUDIO_F32SYS, ONA__MIX_CHANNELS,
                               ONA__MIX_RATE);
        if (!c)
            snprintf(why, sizeof why, "cannot stream it (%s)", SDL_GetError());
    }
    if (!c) {
        ona_log(ONA_LOG_ERROR, "audio", "music %s: %s; playing silence instead", path, why);
        ov_clear(&s->vf);
        ona__free(copy);
        ona__free(s);
        return NULL;
    }
    /* One pass's length at 48 kHz, for the game's clock of voices: the file's samples at its
     * rate, rounded up (the converter's count may differ by a frame). */
    ogg_int64_t total = ov_pcm_total(&s->vf, -1);
    uint64_t length = total < 0 ? UINT64_MAX
                                : ((uint64_t)total * ONA__MIX_RATE + (uint64_t)info->rate - 1) /
                                      (uint64_t)info->rate;
    s->base = (ona__stream){vorbis_read, vorbis_close, length};
    s->path = copy;
    s->rate = info->rate;
    s->convert = c;
    s->loop = loop;
    return &s->base;
}

typedef struct pcm_stream {
    ona__stream base;
    ona__pcm *pcm;
    uint32_t pos;
    bool loop;
} pcm_stream;

static uint32_t pcm_read(ona__stream *base, float *out, uint32_t frames) {
    pcm_stream *s = (pcm_stream *)base;
    uint32_t done = 0;
    while (done < frames && s->pcm->count) {
        if (s->pos >= s->pcm->count) {
            if (!s->loop)
                break;
            s->pos = 0;
        }
        uint32_t n = s->pcm->count - s->pos;
        if (n > frames - done)
            n = frames - done;
        memcpy(out + done * 2, s->pcm->frames + (size_t)s->pos * 2, (size_t)n * 2 * sizeof *out);
        s->pos += n;
        done += n;
    }
    return done;
}

static void pcm_close(ona__stream *base) {
    pcm_stream *s = (pcm_stream *)base;
    ona__pcm_free(s->pcm);
    ona__free(s);
}

ona__stream *ona__music_open(const char *path, bool loop) {
    /* Looked at before it is opened: opening a FIFO would block main. A found file's path is
     * canonical, so a relative one was not found under the game's folders and is never looked
     * for in the working directory. */
    int kind = path[0] == '/' ? ona__paths_check_file(path) : ONA_ENOENT;
    if (kind != 0) {
        ona_log(ONA_LOG_ERROR, "audio", "music %s: %s; playing silence instead", path,
                ona__paths_why(kind, path));
        return NULL;
    }
    FILE *probe = ona__paths_fopen(path);
    char magic[4] = {0};
    size_t n = probe ? fread(magic, 1, 4, probe) : 0;
    if (probe)
        fclose(probe);
    if (!probe) {
        ona_log(ONA_LOG_ERROR, "audio", "music %s: %s; playing silence instead", path,
                errno == ENOENT ? "no such file" : "cannot be read");
        return NULL;
    }
    if (n == 4 && memcmp(magic, "OggS", 4) == 0)
        return open_vorbis(path, loop);
    ona__pcm *pcm = NULL;
    if (ona__sound_decode(path, "audio", &pcm) != 0)
        return NULL;
    pcm_stream *s = ona__calloc(1, sizeof *s);
    if (!s) {
        ona__pcm_free(pcm);
        return NULL;
    }
    *s = (pcm_stream){{pcm_read, pcm_close, pcm->count}, pcm, 0, loop};
    return &s->base;
}
