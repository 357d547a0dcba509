/*
 * sound_decode.c: decoding a whole WAV or OGG file into the mixer's format (sound.h).
 *
 * Design note. A sound is converted to the mixer's format (48 kHz stereo float) here, once, so
 * the mixer never converts; WAV comes through SDL_LoadWAV_RW, OGG Vorbis through libvorbisfile
 * (ov_open_callbacks over the file's bytes in memory), which refuses a damaged file by name. Any
 * thread: nothing here is shared, and the file is read whole before it is decoded.
 */
#include "sound.h"

#include "common.h"
#include "paths.h"

#include <SDL.h>
#include <limits.h>
#include <stdio.h>

#define OV_EXCLUDE_STATIC_CALLBACKS /* the header's own FILE callbacks: unused here */
#include <vorbis/vorbisfile.h>

/* One sample of a frame as a float in -1..1. Formats are SDL's (SDL_LoadWAV gives any of them;
 * libvorbisfile gives AUDIO_S16SYS). Only SDL's byte-order macros are used: no converter of SDL's,
 * which exist only while its audio subsystem is initialised, and sounds load before any device
 * opens (or where none ever does). */
static float sample_at(SDL_AudioFormat format, const uint8_t *p) {
    uint16_t u16;
    uint32_t u32;
    float f;
    switch (format) {
    case AUDIO_U8:
        return ((int)p[0] - 128) / 128.0f;
    case AUDIO_S8:
        return (float)(int8_t)p[0] / 128.0f;
    case AUDIO_S16LSB:
    case AUDIO_S16MSB:
        memcpy(&u16, p, 2);
        u16 = format == AUDIO_S16LSB ? SDL_SwapLE16(u16) : SDL_SwapBE16(u16);
        return (float)(int16_t)u16 / 32768.0f;
    case AUDIO_U16LSB:
    case AUDIO_U16MSB:
        memcpy(&u16, p, 2);
        u16 = format == AUDIO_U16LSB ? SDL_SwapLE16(u16) : SDL_SwapBE16(u16);
        return ((int)u16 - 32768) / 32768.0f;
    case AUDIO_S32LSB:
    case AUDIO_S32MSB:
        memcpy(&u32, p, 4);
        u32 = format == AUDIO_S32LSB ? SDL_SwapLE32(u32) : SDL_SwapBE32(u32);
        return (float)((double)(int32_t)u32 / 2147483648.0);
    case AUDIO_F32LSB:
    case AUDIO_F32MSB:
        memcpy(&u32, p, 4);
        u32 = format == AUDIO_F32LSB ? SDL_SwapLE32(u32) : SDL_SwapBE32(u32);
        memcpy(&f, &u32, 4);
        return f == f ? (f < -1 ? -1 : (f > 1 ? 1 : f)) : 0; /* NaN and overs clamped */
    default:
        return 0;
    }
}

static bool known_format(SDL_AudioFormat format) {
    switch (format) {
    case AUDIO_U8:
    case AUDIO_S8:
    case AUDIO_S16LSB:
    case AUDIO_S16MSB:
    case AUDIO_U16LSB:
    case AUDIO_U16MSB:
    case AUDIO_S32LSB:
    case AUDIO_S32MSB:
    case AUDIO_F32LSB:
    case AUDIO_F32MSB:
        return true;
    default:
        return false;
    }
}

/* What a file too long to decode whole is told: WAV music is decoded whole too; only OGG music
 * streams. */
#define TOO_LONG_HINT                                                                              \
    "a WAV is decoded whole, as music too: make it OGG Vorbis and play it with ona.audio.music, "  \
    "which streams"

/* Converts `bytes` of audio in (format, channels, rate) into a new pcm in the mixer's format
 * (ONA__MIX_RATE, stereo float): mono goes to both sides, a third channel and up are dropped,
 * and the rate is changed by linear interpolation (the same arithmetic everywhere, so a sound
 * decodes to the same samples on every machine). */
static int convert(const char *path, const char *who, SDL_AudioFormat format, int channels,
                   int rate, const void *data, size_t bytes, ona__pcm **out) {
    _Static_assert(ONA__MIX_CHANNELS == 2, "the converter writes stereo");
    int sample_bytes = (int)SDL_AUDIO_BITSIZE(format) / 8;
    int frame_bytes = sample_bytes * channels;
    if (!known_format(format) || channels < 1 || channels > 8 || rate < 1000 || rate > 384000 ||
        frame_bytes <= 0) {
        ona_log(ONA_LOG_ERROR, who, "sound %s: unsupported format (%d channels at %d Hz)", path,
                channels, rate);
        return ONA_EFORMAT;
    }
    uint64_t in_frames = bytes / (size_t)frame_bytes;
    uint64_t out_frames = in_frames * ONA__MIX_RATE / (uint64_t)rate;
    if (in_frames && !out_frames)
        out_frames = 1;
    if (out_frames > ONA__MAX_SOUND_FRAMES) {
        ona_log(ONA_LOG_ERROR, who, "sound %s: longer than 10 minutes; not loaded (%s)", path,
                TOO_LONG_HINT);
        return ONA_ELIMIT;
    }
    float *frames = ona__malloc((size_t)(out_frames ? out_frames : 1) * 2 * sizeof(float));
    ona__pcm *pcm = ona__calloc(1, sizeof *pcm);
    if (!frames || !pcm) {
        ona__free(frames);
        ona__free(pcm);
        return ONA_ENOMEM;
    }
    const uint8_t *in = data;
    int right = channels > 1 ? sample_bytes : 0; /* mono: the one channel on both sides */
    double step = (double)rate / ONA__MIX_RATE;
    for (uint64_t j = 0; j < out_frames; j++) {
        double pos = (double)j * step;
        uint64_t i = (uint64_t)pos;
        if (i >= in_frames)
            i = in_frames - 1;
        uint64_t next = i + 1 < in_frames ? i + 1 : i;
        float t = (float)(pos - (double)i);
        const uint8_t *a = in + i * (uint64_t)frame_bytes, *b = in + next * (uint64_t)frame_bytes;
        float al = sample_at(format, a), ar = sample_at(format, a + right);
        float bl = sample_at(format, b), br = sample_at(format, b + right);
        frames[j * 2] = al + (bl - al) * t;
        frames[j * 2 + 1] = ar + (br - ar) * t;
    }
    pcm->frames = frames;
    pcm->count = (uint32_t)out_frames;
    *out = pcm;
    return 0;
}

/* What libvorbisfile's error codes mean, for the log. */
const char *ona__sound_ov_error_text(long err) {
    switch (err) {
    case OV_EREAD:
        return "a read failed";
    case OV_ENOTVORBIS:
        return "not Vorbis data";
    case OV_EVERSION:
        return "an unsupported Vorbis version";
    case OV_EBADHEADER:
        return "a damaged Vorbis header";
    case OV_EFAULT:
        return "damaged data (decoder fault)";
    case OV_HOLE:
        return "damaged or missing data (a hole in the stream)";
    case OV_EBADLINK:
        return "a damaged link in the stream";
    case OV_EINVAL:
        return "damaged stream structure";
    case OV_EIMPL:
        return "a feature the decoder does not implement";
    default:
        return "damaged data";
    }
}

/* libvorbisfile's reads over a file in memory. */
typedef struct memory_file {
    const uint8_t *data;
    size_t size, pos;
} memory_file;

static size_t memory_read(void *ptr, size_t size, size_t count, void *source) {
    memory_file *m = source;
    size_t want = size && count <= SIZE_MAX / size ? size * count : 0;
    size_t n = ONA_MIN(want, m->size - m->pos);
    memcpy(ptr, m->data + m->pos, n);
    m->pos += n;
    return size ? n / size : 0;
}

static int memory_seek(void *source, ogg_int64_t offset, int whence) {
    memory_file *m = source;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)m->pos : (int64_t)m->size;
    if (offset < -base || offset > (int64_t)m->size - base)
        return -1;
    m->pos = (size_t)(base + offset);
    return 0;
}

static long memory_tell(void *source) {
    return (long)((memory_file *)source)->pos;
}

/* Checks a stream's format (the current link's); false with the log's words in `why`. */
bool ona__sound_ogg_format_ok(const vorbis_info *info, char *why, size_t size) {
    if (!info || info->channels < 1 || info->channels > 8 || info->rate < 1000 ||
        info->rate > 384000) {
        snprintf(why, size, "unsupported format (%d channels at %ld Hz)", info ? info->channels : 0,
                 info ? info->rate : 0L);
        return false;
    }
    return true;
}

/* Decodes a whole OGG Vorbis file held in memory, then converts it (convert). Every error of the
 * decoder refuses the file, by name: a sound is decoded before it plays, so nothing half-decoded
 * is kept. */
static int decode_ogg(const char *path, const char *who, const uint8_t *data, size_t size,
                      ona__pcm **out) {
    memory_file m = {data, size, 0};
    OggVorbis_File vf;
    ov_callbacks io = {memory_read, memory_seek, NULL, memory_tell};
    long err = ov_open_callbacks(&m, &vf, NULL, 0, io);
    if (err < 0) {
        ona_log(ONA_LOG_ERROR, who,
                "sound %s: not a readable OGG Vorbis file (%s); playing silence instead", path,
                ona__sound_ov_error_text(err));
        return ONA_EFORMAT;
    }
    char why[192];
    const vorbis_info *info = ov_info(&vf, -1);
    int channels = info ? info->channels : 0;
    long rate = info ? info->rate : 0;
    int rc = ona__sound_ogg_format_ok(info, why, sizeof why) ? 0 : ONA_EFORMAT;
    /* At most what converts to ONA__MAX_SOUND_FRAMES, plus one frame to tell "too long". */
    uint64_t max_bytes = ((uint64_t)ONA__MAX_SOUND_FRAMES * (uint64_t)rate / ONA__MIX_RATE + 2) *
                         (uint64_t)channels * sizeof(int16_t);
    uint8_t *pcm = NULL;
    size_t used = 0, capacity = 0;
    int big_endian = SDL_BYTEORDER == SDL_BIG_ENDIAN;
    while (rc == 0) {
        if (capacity - used < 4096) {
            size_t grown = capacity ? capacity * 2 : 65536;
            uint8_t *bigger = used < max_bytes ? ona__realloc(pcm, grown) : NULL;
            if (!bigger) {
                rc = used < max_bytes ? ONA_ENOMEM : ONA_ELIMIT;
                snprintf(why, sizeof why, "%s",
                         rc == ONA_ENOMEM ? "out of memory"
                                          : "longer than 10 minutes; not loaded (" TOO_LONG_HINT
                                            ")");
                break;
            }
            pcm = bigger;
            capacity = grown;
        }
        int link = 0;
        long got = ov_read(&vf, (char *)pcm + used, (int)ONA_MIN(capacity - used, 65536),
                           big_endian, 2, 1, &link);
        if (got == 0)
            break;
        if (got < 0) {
            snprintf(why, sizeof why, "damaged OGG Vorbis data (%s)",
                     ona__sound_ov_error_text(got));
            rc = ONA_EFORMAT;
            break;
        }
        const vorbis_info *now = ov_info(&vf, link);
        if (!now || now->channels != channels || now->rate != rate) {
            snprintf(why, sizeof why, "its chained streams change format");
            rc = ONA_EFORMAT;
            break;
        }
        used += (size_t)got;
    }
    ov_clear(&vf);
    if (rc == 0)
        rc = convert(path, who, AUDIO_S16SYS, channels, (int)rate, pcm, used, out);
    else
        ona_log(ONA_LOG_ERROR, who, "sound %s: %s; playing silence instead", path, why);
    ona__free(pcm);
    return rc;
}

/* Checks that every RIFF chunk of a WAV lies inside the file: SDL_LoadWAV_RW allocates what a
 * chunk's header claims before it reads, so a 300-byte file claiming a 3 GB data chunk would
 * have it ask for 3 GB. Writes what is wrong to `why`. */
static bool wav_chunks_inside(const uint8_t *file, size_t size, char *why, size_t why_size) {
    size_t pos = 12; /* after "RIFF", its length and "WAVE" */
    while (pos + 8 <= size) {
        const uint8_t *h = file + pos;
        uint32_t length =
            (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
        if (length > size - pos - 8) {
            snprintf(why, why_size,
                     "its \"%c%c%c%c\" chunk claims %u bytes, past the end of the file "
                     "(%zu bytes)",
                     h[0] >= 32 && h[0] < 127 ? h[0] : '?', h[1] >= 32 && h[1] < 127 ? h[1] : '?',
                     h[2] >= 32 && h[2] < 127 ? h[2] : '?', h[3] >= 32 && h[3] < 127 ? h[3] : '?',
                     (unsigned)length, size);
            return false;
        }
        pos += 8 + (size_t)length + (length & 1); /* chunks are padded to even sizes */
    }
    return true;
}

int ona__sound_decode(const char *path, const char *who, ona__pcm **out) {
    uint8_t *file = NULL;
    size_t size = 0;
    int rc = ona__read_file(path, INT32_MAX, &file, &size);
    if (rc) {
        ona_log(ONA_LOG_ERROR, who, "sound %s: %s; playing silence instead", path,
                ona__paths_why(rc, path));
        return rc;
    }
    char why[160];
    if (size >= 12 && memcmp(file, "RIFF", 4) == 0 &&
        !wav_chunks_inside(file, size, why, sizeof why)) {
        ona_log(ONA_LOG_ERROR, who,
                "sound %s: not a readable WAV file (%s); playing silence instead", path, why);
        rc = ONA_EFORMAT;
    } else if (size >= 12 && memcmp(file, "RIFF", 4) == 0) {
        SDL_AudioSpec spec;
        Uint8 *wav = NULL;
        Uint32 len = 0;
        SDL_RWops *rw = SDL_RWFromConstMem(file, (int)size);
        if (!rw || !SDL_LoadWAV_RW(rw, 1, &spec, &wav, &len)) {
            ona_log(ONA_LOG_ERROR, who,
                    "sound %s: not a readable WAV file (%s); playing silence "
                    "instead",
                    path, SDL_GetError());
            rc = ONA_EFORMAT;
        } else {
            rc = convert(path, who, spec.format, spec.channels, spec.freq, wav, len, out);
            SDL_FreeWAV(wav);
        }
    } else if (size >= 4 && memcmp(file, "OggS", 4) == 0) {
        rc = decode_ogg(path, who, file, size, out);
    } else {
        ona_log(ONA_LOG_ERROR, who,
                "sound %s: not a WAV or OGG file (unknown header); playing silence instead", path);
        rc = ONA_EFORMAT;
    }
    ona__free(file);
    return rc;
}
