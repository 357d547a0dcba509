/*
 * ona/audio.h: sounds, voices, groups and music.
 *
 * Systems play sounds the way they draw: a call appends a command to the audio queue of the
 * thread running the system's turn (no lock); after the frame's turns the main thread merges the
 * queues in a fixed order (system spawn order, then submission order) and hands the list to the
 * mixer, which runs on SDL's audio thread. So the mix depends only on what the systems asked
 * for, never on how many threads ran the frame; a sound starts at most one frame plus the
 * device's buffer (1024 frames at 48 kHz, ~21 ms) after the call.
 *
 * The device opens at the first frame that has an audio command. Without one (no sound card, a
 * server, ona_runtime_desc.no_audio, `ona --no-audio`) everything below still works and returns
 * the same handles, and nothing is heard; the runtime logs once why. SDL chooses the driver
 * (SDL_AUDIODRIVER=dummy runs silent, =disk records the mix to SDL_DISKAUDIOFILE).
 *
 * Handles: an ona_sound is a generation-checked id (0 is invalid); an ona_voice is
 * (the system's registry slot << 32 | that slot's play counter), below 2^53 so a Lua number holds
 * it exactly, and the same numbers on 1 or N threads. A play and a music each give one, and the
 * counter never goes back, so a finished voice's handle stays stale: changing or stopping it
 * does nothing and it does not play.
 *
 * Game time. Whether a voice plays (ona_ctx_audio_playing) is what the runtime's clock of voices
 * says at the frame's start, with the calling system's own plays and stops of this frame applied;
 * the clock follows game time (each frame's dt at 48 kHz) and each sound's length and pitch, not
 * the sound card, so the answer is the same on any thread count, with or without a device, and
 * under record/replay. A voice another system started this frame plays from the next frame on.
 * Without a window, and with SDL's disk or dummy driver, the mix itself follows game time too:
 * 600 frames of 1/60 s are 10 s of audio, however fast they ran.
 */
#ifndef ONA_AUDIO_H
#define ONA_AUDIO_H

#include "ona/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A decoded sound (WAV or OGG, converted once to the mixer's format). 0 is invalid. */
typedef struct ona_sound {
    uint32_t id;
} ona_sound;

/* A playing (or finished) instance of a sound. 0 is invalid. */
typedef struct ona_voice {
    uint64_t id;
} ona_voice;

/* The most voices that play at once. A play that the calling system can tell is past it (the
 * clock's voices plus its own plays this frame, less its stops) is refused with ONA_EBUSY; plays
 * of several systems in one frame that together pass it are dropped, the newest in merge order,
 * and logged. */
#define ONA_AUDIO_MAX_VOICES 256
/* The most named groups (besides "master", which scales every voice and the music, and "music",
 * the music's). */
#define ONA_AUDIO_MAX_GROUPS 15
/* The longest group name in bytes. */
#define ONA_AUDIO_MAX_GROUP_NAME 31

/* How a voice plays. Every 0 means the default. */
typedef struct ona_play_desc {
    float volume;      /* 0 = 1 (as recorded); at most 16 */
    float pan;         /* -1 left .. 0 centre .. 1 right: the far side is scaled by 1 - |pan| */
    float pitch;       /* playback rate: 0 = 1; 2 = an octave up (and twice as fast); 1/16..16 */
    bool loop;         /* play until stopped */
    const char *group; /* NULL = none (only "master" scales it); else a group's name */
} ona_play_desc;

/* How music starts or stops. Every 0 means the default. */
typedef struct ona_music_desc {
    float volume; /* 0 = 1; at most 16 */
    float fade;   /* seconds to fade in (the old music fades out meanwhile); 0 = at once */
    bool loop;    /* play again from the start at the end (default: once) */
} ona_music_desc;

/* Loads a WAV or OGG sound (path absolute or under a script root) and converts it to the mixer's
 * format, once per path: the same path gives the same handle. Each call takes a reference for
 * the embedder (ona_runtime_sound_release). With hot_reload, a changed file is
 * decoded again under the same handle at the next frame boundary. Any thread. Errors: ONA_EINVAL
 * (NULLs), ONA_ENOENT (no such file), ONA_EFORMAT (not a readable WAV/OGG), ONA_ELIMIT (over 10
 * minutes long, or 1024 sounds loaded), ONA_ENOMEM; on each of these the file's name is logged
 * and *out is still a silent placeholder sound that can be played (rt and out given). */
ONA_API int ona_runtime_sound_load(ona_runtime *rt, const char *path, ona_sound *out);
/* Gives back the reference a ona_runtime_sound_load took (one per load). A sound nobody holds
 * (the embedder, or a system that loaded it and is still running) is freed at the next frame
 * boundary and voices still playing it stop; its handle is stale from then on (playing it is
 * ONA_ESTALE). Any thread. Errors: ONA_EINVAL (no runtime), ONA_ESTALE (not a sound the embedder
 * holds). */
ONA_API int ona_runtime_sound_release(ona_runtime *rt, ona_sound sound);

/* Which fields of an ona_voice_set apply. */
#define ONA_VOICE_VOLUME 1u
#define ONA_VOICE_PAN 2u
#define ONA_VOICE_PITCH 4u

/* A change to a playing voice or music: only the fields named in `fields` change (so a volume
 * of 0 mutes). Ranges as ona_play_desc's: volume 0..16, pan -1..1, pitch 1/16..16. */
typedef struct ona_voice_set {
    unsigned fields; /* ONA_VOICE_VOLUME | ONA_VOICE_PAN | ONA_VOICE_PITCH */
    float volume, pan, pitch;
} ona_voice_set;

/* Inside a native system's callback, on the thread running it (see ona/runtime.h); called
 * anywhere else, each returns ONA_ETHREAD (ona_ctx_audio_playing: false): */

/* Plays `sound` (desc may be NULL: the defaults) and writes the new voice's handle to *out
 * (optional; 0 on an error). The voice starts when this frame's commands reach the mixer.
 * Errors: ONA_EINVAL (NULL ctx, a desc field out of range, a group name too long), ONA_ESTALE
 * (not a sound handle), ONA_EBUSY (all ONA_AUDIO_MAX_VOICES voices are busy; see above),
 * ONA_ELIMIT (more than ONA_AUDIO_MAX_GROUPS group names), ONA_ENOMEM. */
ONA_API int ona_ctx_audio_play(ona_ctx *ctx, ona_sound sound, const ona_play_desc *desc,
                               ona_voice *out);
/* Stops a voice or the music; a finished or stale one is ignored. Errors: ONA_EINVAL (NULL
 * ctx), ONA_ENOMEM. */
ONA_API int ona_ctx_audio_stop(ona_ctx *ctx, ona_voice voice);
/* Changes a voice or the music from when this frame's commands reach the mixer (a music's fade
 * in progress ends at the new volume); a finished or stale one is ignored. Errors: ONA_EINVAL
 * (NULL ctx or set, a field out of range, a bit outside ONA_VOICE_*), ONA_ENOMEM. */
ONA_API int ona_ctx_audio_set(ona_ctx *ctx, ona_voice voice, const ona_voice_set *set);
/* Whether `voice` (a voice or a music) plays: true from the play until it ends or is stopped,
 * as the clock of voices says (see above); false for 0, stale and finished voices and for a NULL
 * ctx. */
ONA_API bool ona_ctx_audio_playing(ona_ctx *ctx, ona_voice voice);
/* Sets a group's volume (0..16; "master" scales everything, "music" the music). Errors:
 * ONA_EINVAL (NULLs, volume out of range, name too long), ONA_ELIMIT, ONA_ENOMEM. */
ONA_API int ona_ctx_audio_volume(ona_ctx *ctx, const char *group, float volume);
/* Starts music streamed from `path` (an OGG, decoded in chunks as it plays; a WAV is loaded
 * whole), replacing the music playing (which stops playing then, though it fades out); path NULL
 * stops the music (fading out over desc->fade). Writes the music's voice to *out (optional; 0
 * for a stop or an error), which takes ona_ctx_audio_set, _stop (at once) and _playing. The file
 * is opened by the main thread when the frame's commands are merged: a missing or unreadable file
 * is logged there, by name, and the music is silent and not playing. Errors: ONA_EINVAL (NULL
 * ctx, a desc field out of range), ONA_ENOMEM. */
ONA_API int ona_ctx_audio_music(ona_ctx *ctx, const char *path, const ona_music_desc *desc,
                                ona_voice *out);

#ifdef __cplusplus
}
#endif

#endif /* ONA_AUDIO_H */
