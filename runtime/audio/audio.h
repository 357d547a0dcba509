/*
 * audio.h: a runtime's audio: the SDL device, the per-thread command queues, the sounds, the
 * mixer, group names and voice counters. Internal.
 *
 * Threads: systems push commands from their turns (ona__audio_push, any thread running a turn)
 * and read the clock (ona__audio_playing); sounds load and group names resolve on any thread;
 * everything else is main's, between or at the end of frames. Live, the mixer belongs to whoever
 * holds the device's lock; on game time (offline) it is main's.
 */
#ifndef ONA_AUDIO_INTERNAL_H
#define ONA_AUDIO_INTERNAL_H

#include "core.h"
#include "mixer.h"
#include "sound.h"

#include <uv.h>

/* Per registry slot of a system: its plays so far (its voices' numbers) and what it did this
 * frame, which ona__audio_playing and the voice limit add to the clock. Only the thread running
 * that system's turn touches its entry (main between frames); an entry left from an earlier frame
 * is reset when first used in this one. */
typedef struct ona__audio_slot {
    uint32_t counter;  /* plays so far: the low 32 bits of its voices */
    uint32_t first;    /* the counter at this frame's start: voices above it are this frame's */
    uint64_t frame;    /* the frame the fields below are of */
    uint32_t plays;    /* this frame's plays */
    uint32_t freed;    /* voices this frame's stops freed */
    uint64_t *stopped; /* this frame's stopped voices (music replaced included); memory kept */
    uint32_t stopped_count, stopped_capacity;
    uint64_t music;  /* the music this system started this frame (0: none) */
    uint64_t warned; /* the system last told that every voice was busy */
} ona__audio_slot;

/* The disk driver's feed when mixing on game time: main writes every mixed frame, SDL's audio
 * thread takes them a device buffer at a time, waiting for main; main waits when a second
 * ahead. */
typedef struct ona__audio_ring {
    uv_mutex_t lock;
    uv_cond_t cond;
    float *frames; /* capacity stereo frames */
    uint32_t capacity, head, count;
    bool closing; /* the device closes: the audio thread waits no more */
} ona__audio_ring;

typedef struct ona__audio {
    bool disabled;    /* ona_runtime_desc.no_audio */
    bool headless;    /* no window: mixes on game time */
    bool tried, open; /* main: the device was tried, and the mixer runs */
    bool offline;     /* main mixes on game time (headless, or the disk or dummy driver) */
    uint32_t device;  /* SDL_AudioDeviceID; 0: none (offline without the disk driver) */
    bool sdl_init;    /* SDL's audio subsystem is ours to quit */
    bool ring_ready;
    ona__audio_ring ring;
    float out[ONA__MIX_CHUNK * ONA__MIX_CHANNELS]; /* main: the offline mix's buffer */
    /* What the game is told (mixer.h): written by main between frames, read in the turns. */
    ona__clock clock;
    uint64_t frame; /* ona__audio_frame calls so far */
    double seconds; /* game time so far: the clock is advanced to it at 48 kHz */
    ona__sounds sounds;
    ona__mixer mixer;
    /* One queue per thread running turns (ona__runq_thread_index), as render queues. */
    ona__audio_queue *queues;
    ona__audio_queue **queue_ptrs;
    uint32_t queue_count;
    ona__audio_list list; /* main: this frame's merge */
    /* Per registry slot of a system (index 1..slots). */
    ona__audio_slot *slot_state;
    uint32_t slots;
    /* Group names: 0 "master", 1 "music", then named ones; appended under the lock, an index is
     * never reused, so a name read under the lock stays valid. */
    uv_mutex_t group_lock;
    char group_names[ONA__GROUP_COUNT][ONA_AUDIO_MAX_GROUP_NAME + 1];
    uint32_t group_count;
    /* Main, for tests and statistics: the mixer's frame count when the last list was applied
     * (the list's commands take effect from that frame of the output on) and lists applied. */
    uint64_t handoff_frame;
    uint64_t handoffs;
    /* Main: the file of the music started last (its MUSIC command; "" after a stop), its loop
     * flag, and how many times a change of that file restarted it. */
    char music_path[4096];
    bool music_loop;
    uint64_t music_restarts;
} ona__audio;

/* `threads`: queues; `slots`: the registry's capacity (max_systems); `headless`: no window (the
 * mix follows game time). Errors: ONA_ENOMEM. */
int ona__audio_init(ona__audio *a, bool disabled, bool headless, uint32_t threads, uint32_t slots);
/* Main: closes the device, frees everything. */
void ona__audio_free(ona__audio *a);

/* Any thread: a group's index for `name` ("master" 0, "music" 1), adding it when new. Errors:
 * ONA_EINVAL (empty or longer than ONA_AUDIO_MAX_GROUP_NAME), ONA_ELIMIT. */
int ona__audio_group(ona__audio *a, const char *name, uint8_t *out);

/* The thread running `sys`'s turn: appends `cmd` (path: MUSIC's file, resolved) with the
 * system's spawn order and next submission number; for PLAY and MUSIC, gives the voice its
 * handle (also written to *voice). Errors: ONA_ETHREAD (not inside a turn), ONA_EBUSY (PLAY:
 * every voice is busy, counting the clock's and this system's plays and stops this frame),
 * ONA_ENOMEM. */
int ona__audio_push(ona__audio *a, ona__system *sys, ona__audio_cmd *cmd, const char *path,
                    uint64_t *voice);

/* The thread running `sys`'s turn: whether `voice` plays, as the clock says at the frame's
 * start, with this system's own plays and stops of this frame applied. Errors (as *rc):
 * ONA_ETHREAD. */
bool ona__audio_playing(ona__audio *a, ona__system *sys, uint64_t voice, int *rc);

/* The thread running `sys`'s turn: true the first time `sys` is told every voice is busy. */
bool ona__audio_warn_once(ona__audio *a, ona__system *sys);

/* Main, after the frame's turns (beside the video's present): merges the queues, opens the
 * device at the first command, resolves sounds and opens music, hands the list to the mixer
 * (under the device's lock when live) and to the clock, advances the clock by `dt` (and, on game
 * time, mixes dt's frames), closes the streams the mixer is done with, clears the queues. */
void ona__audio_frame(ona__audio *a, double dt);

/* device.c, main: opens the device at the first command (or, headless without the disk driver,
 * only starts mixing on game time); logs why where none opens. */
void ona__audio_open_device(ona__audio *a);
/* device.c, main, on game time: mixes `frames` and hands them to the disk driver if open. */
void ona__audio_mix_offline(ona__audio *a, uint64_t frames);
/* device.c, main: closes the device (and the ring); the mixer is main's after. */
void ona__audio_close_device(ona__audio *a);

/* Main, at the frame boundary: decodes `path` again into `sound` (loaded from it), re-pointing
 * the voices that play it. Returns ONA_ESTALE for a stale handle or the shared placeholder, or
 * the decode error (logged; the old sound stays). */
int ona__audio_reload(ona__audio *a, ona_sound sound, const char *path);

/* Main, at the frame boundary: the music file `path` changed (or appeared). When it is the music
 * playing now, it restarts from the new file's beginning at its volume (a fade in progress goes
 * on); otherwise nothing changes (its next play opens the new file). 0, or ONA_EFORMAT when the
 * new file cannot be opened (logged; the old stream plays on). */
int ona__audio_music_reload(ona__audio *a, const char *path);

/* Main, at the frame boundary: frees `sound` (its handle is stale from then on); voices still
 * playing it stop. ONA_ESTALE for a stale handle or the shared placeholder. */
int ona__audio_unload(ona__audio *a, ona_sound sound);

/* Main: whether the music playing has a stream (false: none, or silent music whose file could
 * not be opened), under the device's lock. */
bool ona__audio_music_streaming(ona__audio *a);

/* Main: the mixer's output frame count now (under the device's lock; 0 without a device). */
uint64_t ona__audio_frames_mixed(ona__audio *a);

/* Commands built from checked arguments, for the Lua bindings and the C API alike. Each returns
 * 0, or an error code with *why saying what is wrong (a static string):
 *  play: ONA_ESTALE (not a sound), ONA_EINVAL (volume 0..16, pan -1..1, pitch 1/16..16, group
 *        name 1..31 bytes), ONA_ELIMIT (too many group names); group NULL: none;
 *  music (start, or stop when !start): ONA_EINVAL (volume 0..16, fade 0..3600 s);
 *  volume: ONA_EINVAL (volume 0..16, group name), ONA_ELIMIT. */
int ona__audio_play_cmd(ona__audio *a, ona_sound sound, double volume, double pan, double pitch,
                        bool loop, const char *group, ona__audio_cmd *cmd, const char **why);
int ona__audio_music_cmd(bool start, double volume, double fade, bool loop, ona__audio_cmd *cmd,
                         const char **why);
int ona__audio_volume_cmd(ona__audio *a, const char *group, double volume, ona__audio_cmd *cmd,
                          const char **why);
/*  set: `set` says which of volume (0..16), pan (-1..1), pitch (1/16..16) are given;
 *       ONA_EINVAL for one out of range. */
int ona__audio_set_cmd(uint64_t voice, unsigned set, double volume, double pan, double pitch,
                       ona__audio_cmd *cmd, const char **why);

#endif
