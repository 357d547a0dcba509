/*
 * mixer.h: audio commands, per-thread command queues and their merge, and the float mixer.
 * Internal. Pure C (no SDL): the tests drive it without a device.
 *
 * The mixer's format is fixed: 48 kHz, stereo, 32-bit float, interleaved. Sounds are converted
 * to it once when loaded (sound.c); music comes from a stream (ona__stream) that produces it.
 */
#ifndef ONA_MIXER_H
#define ONA_MIXER_H

#include "ona/audio.h"

#include <stdbool.h>
#include <stdint.h>

#define ONA__MIX_RATE 48000
#define ONA__MIX_CHANNELS 2
/* Group 0 is "master" (scales everything), 1 is "music"; the game's named groups follow. */
#define ONA__GROUP_MASTER 0
#define ONA__GROUP_MUSIC 1
#define ONA__GROUP_COUNT (ONA_AUDIO_MAX_GROUPS + 2)
#define ONA__GROUP_NONE 0xFF /* a voice in no named group */

/* A decoded sound in the mixer's format: `count` stereo frames. Immutable once made; a reload
 * makes a new one and re-points the voices (ona__mixer_replace). */
typedef struct ona__pcm {
    float *frames;
    uint32_t count;
} ona__pcm;

/* A source of music in the mixer's format, read on the mixer's thread. read writes up to
 * `frames` frames and returns how many: fewer means the music ended. close frees it (main).
 * `length` is how many frames one pass of it plays (UINT64_MAX: not known), for the game's clock
 * of voices (ona__clock), which never reads the stream. */
typedef struct ona__stream {
    uint32_t (*read)(struct ona__stream *s, float *out, uint32_t frames);
    void (*close)(struct ona__stream *s);
    uint64_t length;
} ona__stream;

typedef enum ona__audio_op {
    ONA__AUDIO_PLAY = 1,
    ONA__AUDIO_STOP,
    ONA__AUDIO_VOLUME,
    ONA__AUDIO_MUSIC,      /* start music (stream set by main's merge; NULL: silent music) */
    ONA__AUDIO_MUSIC_STOP, /* stop the music, fading out over `fade` */
    ONA__AUDIO_SET,        /* change a voice (or the music): the fields named in `set` */
} ona__audio_op;

/* ONA__AUDIO_SET's fields. */
#define ONA__SET_VOLUME 1u
#define ONA__SET_PAN 2u
#define ONA__SET_PITCH 4u

typedef struct ona__audio_cmd {
    uint32_t order, seq; /* the system's spawn order and submission number: the merge key */
    uint8_t op;          /* ona__audio_op */
    uint8_t group;       /* PLAY: the voice's group (ONA__GROUP_NONE); VOLUME: which */
    uint8_t set;         /* SET: ONA__SET_* */
    bool loop;
    uint32_t sound; /* PLAY: the sound handle's id */
    uint32_t path;  /* MUSIC: offset of the path in its queue's strings */
    uint64_t voice; /* PLAY, MUSIC: the new voice's handle; STOP, SET: the voice */
    float volume, pan, pitch, fade;
    /* Set by main when it merges, read by the mixer: */
    const ona__pcm *pcm;  /* PLAY */
    ona__stream *stream;  /* MUSIC (the mixer owns it from then on) */
    const char *path_ptr; /* MUSIC: the path (valid until the queues are cleared) */
    /* The pushing system's name, for reports: valid to the frame's end (systems end at the next
     * boundary, and a frame's list is applied in the frame). */
    const char *who;
} ona__audio_cmd;

/* One thread's commands this frame: written only by that thread during the frame, read and
 * cleared by main after it (like render queues). Memory is kept between frames. */
typedef struct ona__audio_queue {
    ona__audio_cmd *cmds;
    uint32_t count, capacity;
    char *strings;
    uint32_t string_size, string_capacity;
} ona__audio_queue;

void ona__audio_queue_free(ona__audio_queue *q);
void ona__audio_queue_clear(ona__audio_queue *q);
/* Appends a command (path: MUSIC's file, copied; NULL otherwise). Errors: ONA_ENOMEM. */
int ona__audio_queue_push(ona__audio_queue *q, const ona__audio_cmd *cmd, const char *path);

/* The merged list of a frame: every queue's commands sorted by (order, seq); path_ptr set. */
typedef struct ona__audio_list {
    ona__audio_cmd *cmds;
    uint32_t count, capacity;
} ona__audio_list;

int ona__audio_merge(ona__audio_queue *const *queues, uint32_t queue_count, ona__audio_list *list);
void ona__audio_list_free(ona__audio_list *list);

typedef struct ona__voice {
    uint64_t handle; /* 0: a free slot */
    const ona__pcm *pcm;
    uint64_t pos;  /* 32.32 fixed point frame position: exact and the same everywhere */
    uint64_t step; /* pitch in 32.32 */
    float volume, pan;
    float left, right; /* volume times pan */
    uint8_t group;
    bool loop;
} ona__voice;

#define ONA__MIX_BUF 1024 /* a music's read-ahead, in frames */

typedef struct ona__music {
    ona__stream *stream;
    uint64_t handle;           /* its voice (0: none given) */
    float gain, target, delta; /* per-frame ramp towards target */
    float pan, left, right;    /* balance, as a voice's */
    bool retire_at_zero;       /* fading out: retired when the gain reaches 0 */
    /* Resampling for pitch: `count` frames read from the stream, `pos` (32.32) in them, `step`
     * the pitch; `drained` once the stream gave fewer than asked. */
    uint64_t pos, step;
    uint32_t count;
    bool drained;
    float buf[ONA__MIX_BUF * ONA__MIX_CHANNELS];
} ona__music;

#define ONA__MIX_RETIRED 8
#define ONA__MIX_CHUNK 1024

typedef struct ona__mixer {
    ona__voice voices[ONA_AUDIO_MAX_VOICES];
    float groups[ONA__GROUP_COUNT];
    ona__music music, old_music;            /* the music, and the one fading out */
    float music_volume;                     /* the current music's own volume (its target) */
    ona__stream *retired[ONA__MIX_RETIRED]; /* streams done with, for main to close */
    uint32_t retired_count;
    uint64_t frames_mixed;
    uint64_t commands_applied;
    uint64_t dropped; /* plays refused: every voice was busy */
    /* Of the last list applied (main's, read by main after ona__mixer_apply): the plays it
     * dropped and the system that pushed the first of them. */
    uint32_t dropped_last;
    const char *dropped_who;
} ona__mixer;

void ona__mixer_init(ona__mixer *m);
/* Applies a merged list. The caller owns the mixer (holds the device's lock). Streams in MUSIC
 * commands pass to the mixer; those it is done with come back through ona__mixer_take_retired
 * (one left over when the retired list is full is closed by the caller before it applies). */
void ona__mixer_apply(ona__mixer *m, const ona__audio_cmd *cmds, uint32_t count);
/* Mixes `frames` stereo frames into out (overwritten), advancing every voice and the music. */
void ona__mixer_mix(ona__mixer *m, float *out, uint32_t frames);
/* A reloaded sound: voices playing `old` play `new` from the same position (clamped). */
void ona__mixer_replace(ona__mixer *m, const ona__pcm *old, const ona__pcm *new_pcm);
/* Replaces the music's stream, keeping its gain and fade (a silent music, whose file could not
 * be opened, starts); returns the old stream (NULL: none) for the caller to close. */
ona__stream *ona__mixer_music_swap(ona__mixer *m, ona__stream *stream);
/* Hands back the streams the mixer is done with (up to max); the caller closes them. */
uint32_t ona__mixer_take_retired(ona__mixer *m, ona__stream **out, uint32_t max);
/* Every stream the mixer still has (music playing and fading), taken out; for destroy. */
uint32_t ona__mixer_take_all(ona__mixer *m, ona__stream **out, uint32_t max);
/* How many voices are playing. */
uint32_t ona__mixer_voices(const ona__mixer *m);

/* --- The game's clock of voices (clock.c) ----------------------------------------------------
 * What the game is told about its voices: which play, as of the start of the frame. Main applies
 * each frame's list to it as to the mixer and advances it by the frame's game time (dt at 48 kHz),
 * stepping positions in 32.32 as the mixer does but reading no samples; systems read it during
 * the turns (main does not write it then). So `playing` and the voice limit depend on the game's
 * frames and dts only: the same on any thread count, with or without a device, under replay. */
typedef struct ona__clock_voice {
    uint64_t handle;         /* 0: free */
    uint64_t pos, step, end; /* 32.32; end: the length (frames) << 32 */
    uint32_t sound;          /* the sound's id (0: the music) */
    bool loop;
} ona__clock_voice;

typedef struct ona__clock {
    ona__clock_voice voices[ONA_AUDIO_MAX_VOICES];
    ona__clock_voice music;
    uint32_t live;   /* voices playing */
    uint64_t frames; /* game-time frames advanced so far */
    /* Of the last list applied: plays dropped (every voice busy) and who pushed the first. */
    uint32_t dropped_last;
    const char *dropped_who;
} ona__clock;

void ona__clock_init(ona__clock *c);
/* Applies a merged list (pcm and stream resolved), dropping plays as the mixer does. */
void ona__clock_apply(ona__clock *c, const ona__audio_cmd *cmds, uint32_t count);
/* Advances every voice by `frames`; those past their end finish. */
void ona__clock_advance(ona__clock *c, uint64_t frames);
/* Whether `handle` (a voice or the music) is playing. */
bool ona__clock_playing(const ona__clock *c, uint64_t handle);
/* A reloaded (count frames) or unloaded (0) sound: its voices follow, as ona__mixer_replace. */
void ona__clock_replace(ona__clock *c, uint32_t sound, uint32_t count);
/* The music restarted from a new file of `length` frames. */
void ona__clock_music_restart(ona__clock *c, uint64_t length);

#endif
