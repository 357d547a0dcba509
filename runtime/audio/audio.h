/*
 * audio.h: a runtime's audio: the SDL device, the per-thread command queues, the sounds, the
 * mixer, group names and voice counters. Internal.
 *
 * Threads: systems push commands from their turns (ona__audio_push, any thread running a turn);
 * sounds load and group names resolve on any thread; everything else is main's, between or at
 * the end of frames. The mixer belongs to whoever holds the device's lock.
 */
#ifndef ONA_AUDIO_INTERNAL_H
#define ONA_AUDIO_INTERNAL_H

#include "core.h"
#include "mixer.h"
#include "sound.h"

#include <uv.h>

typedef struct ona__audio {
    bool disabled;    /* ona_runtime_desc.no_audio */
    bool tried, open; /* main: the device was tried, and opened */
    uint32_t device;  /* SDL_AudioDeviceID */
    bool sdl_init;    /* SDL's audio subsystem is ours to quit */
    ona__sounds sounds;
    ona__mixer mixer;
    /* One queue per thread running turns (ona__runq_thread_index), as render queues. */
    ona__audio_queue *queues;
    ona__audio_queue **queue_ptrs;
    uint32_t queue_count;
    ona__audio_list list; /* main: this frame's merge */
    /* Per registry slot of a system (index 1..slots): its plays so far, for voice handles. Only
     * the thread running that system's turn touches its entry (main between frames). */
    uint32_t *counters;
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

/* `threads`: queues; `slots`: the registry's capacity (max_systems). Errors: ONA_ENOMEM. */
int ona__audio_init(ona__audio *a, bool disabled, uint32_t threads, uint32_t slots);
/* Main: closes the device, frees everything. */
void ona__audio_free(ona__audio *a);

/* Any thread: a group's index for `name` ("master" 0, "music" 1), adding it when new. Errors:
 * ONA_EINVAL (empty or longer than ONA_AUDIO_MAX_GROUP_NAME), ONA_ELIMIT. */
int ona__audio_group(ona__audio *a, const char *name, uint8_t *out);

/* The thread running `sys`'s turn: appends `cmd` (path: MUSIC's file, resolved) with the
 * system's spawn order and next submission number; for PLAY, gives the voice its handle (also
 * written to *voice). Errors: ONA_ETHREAD (not inside a turn), ONA_ENOMEM. */
int ona__audio_push(ona__audio *a, ona__system *sys, ona__audio_cmd *cmd, const char *path,
                    uint64_t *voice);

/* Main, after the frame's turns (beside the video's present): merges the queues, opens the
 * device at the first command, resolves sounds and opens music, hands the list to the mixer
 * under the device's lock, closes the streams the mixer is done with, clears the queues. */
void ona__audio_frame(ona__audio *a);

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

#endif
