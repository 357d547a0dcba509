/*
 * sound.h: sounds (WAV/OGG decoded into the mixer's format, behind handles) and music
 * streams. Internal.
 */
#ifndef ONA_SOUND_H
#define ONA_SOUND_H

#include "mixer.h"

#include <stdatomic.h>
#include <uv.h>

#define ONA__MAX_SOUNDS 1024
/* The longest sound loaded whole: 10 minutes (230 MB in the mixer's format). */
#define ONA__MAX_SOUND_FRAMES (ONA__MIX_RATE * 600u)

typedef struct ona__sound {
    _Atomic uint32_t id; /* the live handle, or 0 */
    uint16_t generation;
    ona__pcm *pcm; /* replaced by main only (reload, unload), under the lock */
} ona__sound;

typedef struct ona__sounds {
    uv_mutex_t lock;
    ona__sound slots[ONA__MAX_SOUNDS];
    uint32_t used;                        /* slots handed out so far (high-water mark) */
    uint32_t free_slots[ONA__MAX_SOUNDS]; /* slots below `used` freed by unload, reused first */
    uint32_t free_count;
    ona_sound placeholder; /* silent: 0 frames */
} ona__sounds;

int ona__sounds_init(ona__sounds *s);
void ona__sounds_free(ona__sounds *s);
/* Loads `path` (resolved) into a new sound. Any thread. On failure logs the file under `who`,
 * sets *out to a silent sound (the file's own, which a reload fills, or the shared placeholder
 * when none can be made) and returns ONA_ENOENT, ONA_EFORMAT, ONA_ELIMIT or ONA_ENOMEM. */
int ona__sounds_load(ona__sounds *s, const char *path, const char *who, ona_sound *out);
/* True for a live handle. Any thread. */
bool ona__sounds_valid(ona__sounds *s, ona_sound sound);
/* The samples of a live handle, or NULL. Main thread (the pointer changes only on main). */
const ona__pcm *ona__sounds_pcm(ona__sounds *s, uint32_t id);
/* Main: gives the sound `id` new samples and returns the old ones (the caller frees them with
 * ona__pcm_free once the mixer no longer plays them). */
ona__pcm *ona__sounds_swap(ona__sounds *s, uint32_t id, ona__pcm *pcm);

/* Main, at the frame boundary: retires the sound `id` (stale from then on; its slot is reused)
 * and returns its samples for the caller to free once the mixer no longer plays them; NULL for
 * a stale id or the shared placeholder. */
ona__pcm *ona__sounds_unload(ona__sounds *s, uint32_t id);
/* How many sounds are live (the placeholder included). Any thread. */
uint32_t ona__sounds_live(ona__sounds *s);

/* sound_decode.c. Decodes a WAV or OGG file into the mixer's format. Any thread. Logs the file
 * under `who` on failure: ONA_ENOENT, ONA_EIO, ONA_EFORMAT, ONA_ELIMIT, ONA_ENOMEM. */
int ona__sound_decode(const char *path, const char *who, ona__pcm **out);
void ona__pcm_free(ona__pcm *pcm);
/* What libvorbisfile's error code means, for the log. */
const char *ona__sound_ov_error_text(long err);
/* Checks an OGG stream's format (the current link's); false with the log's words in `why`. */
struct vorbis_info;
bool ona__sound_ogg_format_ok(const struct vorbis_info *info, char *why, size_t size);

/* music.c. Opens music: an OGG is streamed (decoded a chunk at a time on the mixer's thread), a
 * WAV is decoded whole. Main thread. Logs the file on failure and returns NULL. */
ona__stream *ona__music_open(const char *path, bool loop);

#endif
