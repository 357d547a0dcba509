/*
 * audio.c: a runtime's audio (audio.h): the SDL device, the command queues' hand-off, voice
 * handles, group names, reloads.
 *
 * Design note. A system's audio call never touches the device or the mixer: it appends a
 * command to the queue of the thread running its turn (no lock, no atomic), tagged with the
 * system's spawn order and its submission counter (the one its draws use). After the turns, main
 * merges the queues in (order, seq) order, resolves sound handles to samples and opens music
 * files, then takes SDL's device lock once and applies the whole list to the mixer; SDL's audio
 * thread mixes under that same lock. So the systems' path has no lock, and the mix depends only
 * on the merged list. The lock is held for the list's application only (a few microseconds for a
 * thousand plays); files are opened and streams closed outside it.
 *
 * Voice handles are made where the call is, deterministically: the system's registry slot in
 * the high bits and that slot's play counter in the low 32, so the same game gives the same
 * numbers on 1 or N threads, and a slot's later system never reuses an earlier one's numbers.
 *
 * The device opens lazily, at the first frame with a command, so games and tests without sound
 * never start SDL's audio. Where it cannot open (no driver, no device) the runtime logs it once
 * and drops the commands from then on: silent running.
 *
 * Two ways to mix. Live (a window and a sound card): SDL's audio thread mixes at the card's pace.
 * On game time (offline: no window, or SDL's disk or dummy driver): main mixes each frame's dt
 * at 48 kHz after applying its list, so 600 frames of 1/60 s are 480,000 frames of audio however
 * fast they ran; the disk driver records them all through a ring its thread drains (main waits
 * when a second ahead), and without it they are mixed and dropped. Either way the game is told
 * only what the clock (clock.c) says, which follows game time too: `playing` and the voice limit
 * are the same live, offline and silent.
 */
#include "audio.h"

#include "common.h"

#include <SDL.h>
#include <stdio.h>

int ona__audio_init(ona__audio *a, bool disabled, bool headless, uint32_t threads, uint32_t slots) {
    memset(a, 0, sizeof *a);
    a->disabled = disabled;
    a->headless = headless;
    ona__mixer_init(&a->mixer);
    ona__clock_init(&a->clock);
    if (uv_mutex_init(&a->group_lock))
        return ONA_ENOMEM;
    strcpy(a->group_names[ONA__GROUP_MASTER], "master");
    strcpy(a->group_names[ONA__GROUP_MUSIC], "music");
    a->group_count = 2;
    int rc = ona__sounds_init(&a->sounds);
    if (rc) {
        uv_mutex_destroy(&a->group_lock);
        return rc;
    }
    a->queue_count = threads ? threads : 1;
    a->slots = slots;
    a->queues = ona__calloc(a->queue_count, sizeof *a->queues);
    a->queue_ptrs = ona__calloc(a->queue_count, sizeof *a->queue_ptrs);
    a->slot_state = ona__calloc((size_t)slots + 1, sizeof *a->slot_state);
    if (!a->queues || !a->queue_ptrs || !a->slot_state) {
        ona__free(a->queues);
        ona__free(a->queue_ptrs);
        ona__free(a->slot_state);
        ona__sounds_free(&a->sounds);
        uv_mutex_destroy(&a->group_lock);
        return ONA_ENOMEM;
    }
    for (uint32_t i = 0; i < a->queue_count; i++)
        a->queue_ptrs[i] = &a->queues[i];
    return 0;
}

static void close_streams(ona__stream **streams, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        streams[i]->close(streams[i]);
}

/* The device's lock, where the device's thread mixes (live); on game time the mixer is main's. */
static void lock_mixer(ona__audio *a) {
    if (a->device && !a->offline)
        SDL_LockAudioDevice(a->device);
}

static void unlock_mixer(ona__audio *a) {
    if (a->device && !a->offline)
        SDL_UnlockAudioDevice(a->device);
}

void ona__audio_free(ona__audio *a) {
    ona__audio_close_device(a);
    ona__stream *left[ONA__MIX_RETIRED + 2];
    close_streams(left, ona__mixer_take_all(&a->mixer, left, ONA__MIX_RETIRED + 2));
    if (a->sdl_init)
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
    for (uint32_t i = 0; i < a->queue_count; i++)
        ona__audio_queue_free(&a->queues[i]);
    ona__free(a->queues);
    ona__free(a->queue_ptrs);
    for (uint32_t i = 0; a->slot_state && i <= a->slots; i++)
        ona__free(a->slot_state[i].stopped);
    ona__free(a->slot_state);
    ona__audio_list_free(&a->list);
    ona__sounds_free(&a->sounds);
    uv_mutex_destroy(&a->group_lock);
}

int ona__audio_group(ona__audio *a, const char *name, uint8_t *out) {
    size_t len = strlen(name);
    if (len == 0 || len > ONA_AUDIO_MAX_GROUP_NAME)
        return ONA_EINVAL;
    int rc = ONA_ELIMIT;
    uv_mutex_lock(&a->group_lock);
    for (uint32_t g = 0; g < a->group_count; g++) {
        if (strcmp(a->group_names[g], name) == 0) {
            *out = (uint8_t)g;
            rc = 0;
            break;
        }
    }
    if (rc && a->group_count < ONA__GROUP_COUNT) {
        memcpy(a->group_names[a->group_count], name, len + 1);
        *out = (uint8_t)a->group_count++;
        rc = 0;
    }
    uv_mutex_unlock(&a->group_lock);
    return rc;
}

/* The calling system's slot entry, reset when it is left from an earlier frame; NULL when `sys`
 * has no slot (cannot happen inside a turn). */
static ona__audio_slot *slot_of(ona__audio *a, ona__system *sys, uint32_t *index) {
    uint32_t slot = (uint32_t)(sys->id & ((UINT64_C(1) << ONA__REGISTRY_SLOT_BITS) - 1));
    if (slot == 0 || slot > a->slots)
        return NULL;
    ona__audio_slot *s = &a->slot_state[slot];
    if (s->frame != a->frame) {
        s->frame = a->frame;
        s->first = s->counter;
        s->plays = s->freed = 0;
        s->stopped_count = 0;
        s->music = 0;
    }
    if (index)
        *index = slot;
    return s;
}

static bool was_stopped(const ona__audio_slot *s, uint64_t voice) {
    for (uint32_t i = 0; i < s->stopped_count; i++)
        if (s->stopped[i] == voice)
            return true;
    return false;
}

/* Whether `voice` is one this system played this frame (a voice or its music). */
static bool own_this_frame(const ona__audio_slot *s, uint32_t slot, uint64_t voice) {
    uint32_t n = (uint32_t)voice;
    return voice >> 32 == slot && n > s->first && n <= s->counter;
}

/* Notes a stop of `voice` (0: none) for this frame's answers. Errors: ONA_ENOMEM. */
static int note_stop(ona__audio *a, ona__audio_slot *s, uint32_t slot, uint64_t voice) {
    if (!voice || was_stopped(s, voice))
        return 0;
    if (ona__grow((void **)&s->stopped, &s->stopped_capacity, s->stopped_count + 1,
                  sizeof *s->stopped))
        return ONA_ENOMEM;
    s->stopped[s->stopped_count++] = voice;
    bool music = voice == a->clock.music.handle || voice == s->music;
    if (!music && (ona__clock_playing(&a->clock, voice) || own_this_frame(s, slot, voice)))
        s->freed++;
    return 0;
}

int ona__audio_push(ona__audio *a, ona__system *sys, ona__audio_cmd *cmd, const char *path,
                    uint64_t *voice) {
    int thread = ona__runq_thread_index();
    if (thread < 0 || (uint32_t)thread >= a->queue_count)
        return ONA_ETHREAD;
    uint32_t slot = 0;
    ona__audio_slot *s = slot_of(a, sys, &slot);
    if (!s)
        return ONA_ETHREAD; /* not a registered system: cannot happen inside a turn */
    cmd->order = sys->spawn_order;
    cmd->who = sys->name;
    cmd->seq = sys->draw_seq;
    if (cmd->op == ONA__AUDIO_PLAY && a->clock.live + s->plays - s->freed >= ONA_AUDIO_MAX_VOICES)
        return ONA_EBUSY;
    /* Stops (and music that replaces music) are noted first: a failure leaves nothing half done
     * but a note of a stop that did not happen, which only errs towards "not playing". */
    int rc = 0;
    if (cmd->op == ONA__AUDIO_STOP)
        rc = note_stop(a, s, slot, cmd->voice);
    if (cmd->op == ONA__AUDIO_MUSIC || cmd->op == ONA__AUDIO_MUSIC_STOP) {
        rc = note_stop(a, s, slot, a->clock.music.handle);
        if (rc == 0)
            rc = note_stop(a, s, slot, s->music);
    }
    if (rc)
        return rc;
    if (cmd->op == ONA__AUDIO_PLAY || cmd->op == ONA__AUDIO_MUSIC) {
        uint32_t n = ++s->counter;
        if (n == 0) /* wrapped after 2^32 plays: skip 0, which would make handle 0 possible */
            n = s->counter = 1;
        cmd->voice = ((uint64_t)slot << 32) | n;
    }
    rc = ona__audio_queue_push(&a->queues[thread], cmd, path);
    if (rc)
        return rc;
    sys->draw_seq++;
    if (cmd->op == ONA__AUDIO_PLAY)
        s->plays++;
    if (cmd->op == ONA__AUDIO_MUSIC)
        s->music = cmd->voice;
    if (cmd->op == ONA__AUDIO_MUSIC_STOP)
        s->music = 0;
    if (voice)
        *voice = cmd->voice;
    return 0;
}

bool ona__audio_playing(ona__audio *a, ona__system *sys, uint64_t voice, int *rc) {
    *rc = 0;
    int thread = ona__runq_thread_index();
    uint32_t slot = 0;
    bool in_turn = thread >= 0 && (uint32_t)thread < a->queue_count;
    ona__audio_slot *s = in_turn ? slot_of(a, sys, &slot) : NULL;
    if (!s) {
        *rc = ONA_ETHREAD;
        return false;
    }
    if (!voice || was_stopped(s, voice))
        return false;
    return own_this_frame(s, slot, voice) || ona__clock_playing(&a->clock, voice);
}

bool ona__audio_warn_once(ona__audio *a, ona__system *sys) {
    ona__audio_slot *s = slot_of(a, sys, NULL);
    if (!s || s->warned == sys->id)
        return false;
    s->warned = sys->id;
    return true;
}

void ona__audio_frame(ona__audio *a, double dt) {
    if (ona__audio_merge(a->queue_ptrs, a->queue_count, &a->list) != 0) {
        ona_log(ONA_LOG_ERROR, "audio", "out of memory merging this frame's audio: dropped");
        a->list.count = 0;
    }
    for (uint32_t i = 0; i < a->queue_count; i++)
        ona__audio_queue_clear(&a->queues[i]); /* path_ptr stays valid: memory is kept */
    if (a->list.count && !a->tried && !a->disabled)
        ona__audio_open_device(a);
    ona__audio_list *l = &a->list;
    uint32_t last_sound = 0; /* plays of one sound in a row resolve it once */
    const ona__pcm *last_pcm = NULL;
    for (uint32_t i = 0; i < l->count; i++) {
        ona__audio_cmd *c = &l->cmds[i];
        if (c->op == ONA__AUDIO_PLAY) {
            if (c->sound != last_sound) {
                last_sound = c->sound;
                last_pcm = ona__sounds_pcm(&a->sounds, c->sound);
            }
            c->pcm = last_pcm;
        }
        /* Opened silent too: the clock needs the music's length. */
        if (c->op == ONA__AUDIO_MUSIC) {
            c->stream = ona__music_open(c->path_ptr, c->loop);
            snprintf(a->music_path, sizeof a->music_path, "%s", c->path_ptr);
            a->music_loop = c->loop;
        }
        if (c->op == ONA__AUDIO_MUSIC_STOP)
            a->music_path[0] = '\0';
    }
    /* Game time at 48 kHz, from the sum of the dts, so no rounding adds up over frames. */
    a->seconds += dt;
    double target = a->seconds * ONA__MIX_RATE + 0.5;
    uint64_t frames = target > (double)a->clock.frames ? (uint64_t)target - a->clock.frames : 0;
    ona__clock_apply(&a->clock, l->cmds, l->count);
    ona__clock_advance(&a->clock, frames);
    a->frame++;
    if (a->open) {
        ona__stream *retired[ONA__MIX_RETIRED];
        lock_mixer(a);
        uint32_t n = ona__mixer_take_retired(&a->mixer, retired, ONA__MIX_RETIRED);
        if (l->count) {
            a->handoff_frame = a->mixer.frames_mixed;
            a->handoffs++;
            ona__mixer_apply(&a->mixer, l->cmds, l->count);
        }
        unlock_mixer(a);
        close_streams(retired, n);
        if (a->offline) {
            ona__audio_mix_offline(a, frames);
            close_streams(retired, ona__mixer_take_retired(&a->mixer, retired, ONA__MIX_RETIRED));
        }
    } else {
        for (uint32_t i = 0; i < l->count; i++) /* silent: nothing takes the streams */
            if (l->cmds[i].op == ONA__AUDIO_MUSIC && l->cmds[i].stream)
                l->cmds[i].stream->close(l->cmds[i].stream);
    }
    /* Once a frame: the drops are the game's to know of (the handles it got for them play
     * nothing). Only plays of several systems in one frame get here: a system's own play past
     * the limit is refused at the call. */
    if (a->clock.dropped_last)
        ona_log(ONA_LOG_WARN, "audio",
                "%u plays dropped this frame, the first from %s: all %d voices were busy "
                "(several systems played at once; stop voices, or play fewer at once)",
                a->clock.dropped_last, a->clock.dropped_who ? a->clock.dropped_who : "C",
                ONA_AUDIO_MAX_VOICES);
}

int ona__audio_reload(ona__audio *a, ona_sound sound, const char *path) {
    uint32_t id = sound.id;
    if (!ona__sounds_valid(&a->sounds, sound) || id == a->sounds.placeholder.id)
        return ONA_ESTALE;
    ona__pcm *pcm = NULL;
    int rc = ona__sound_decode(path, "hot reload", &pcm);
    if (rc)
        return rc;
    lock_mixer(a);
    ona__pcm *old = ona__sounds_swap(&a->sounds, id, pcm);
    ona__mixer_replace(&a->mixer, old, pcm);
    unlock_mixer(a);
    ona__clock_replace(&a->clock, id, pcm->count);
    ona__pcm_free(old);
    return 0;
}

int ona__audio_music_reload(ona__audio *a, const char *path) {
    if (!a->open || strcmp(a->music_path, path) != 0)
        return 0; /* not the music playing now: the next play opens the new file */
    ona__stream *fresh = ona__music_open(path, a->music_loop);
    if (!fresh)
        return ONA_EFORMAT; /* logged; the old stream plays on */
    lock_mixer(a);
    ona__stream *old = ona__mixer_music_swap(&a->mixer, fresh);
    unlock_mixer(a);
    if (old)
        old->close(old);
    ona__clock_music_restart(&a->clock, fresh->length);
    a->music_restarts++;
    ona_log(ONA_LOG_INFO, "audio", "music %s: restarted from the new file", path);
    return 0;
}

int ona__audio_unload(ona__audio *a, ona_sound sound) {
    ona__pcm *old = ona__sounds_unload(&a->sounds, sound.id);
    if (!old)
        return ONA_ESTALE;
    /* The voices still playing it stop: the placeholder has no frames (ona__mixer_replace). */
    const ona__pcm *silent = ona__sounds_pcm(&a->sounds, a->sounds.placeholder.id);
    lock_mixer(a);
    ona__mixer_replace(&a->mixer, old, silent);
    unlock_mixer(a);
    ona__clock_replace(&a->clock, sound.id, 0);
    ona__pcm_free(old);
    return 0;
}

bool ona__audio_music_streaming(ona__audio *a) {
    if (!a->open)
        return false;
    lock_mixer(a);
    bool streaming = a->mixer.music.stream != NULL;
    unlock_mixer(a);
    return streaming;
}

uint64_t ona__audio_frames_mixed(ona__audio *a) {
    if (!a->open)
        return 0;
    lock_mixer(a);
    uint64_t n = a->mixer.frames_mixed;
    unlock_mixer(a);
    return n;
}

/* --- Commands from validated arguments (shared by Lua and C) --------------------------------- */

static bool in_range(double x, double lo, double hi) {
    return x >= lo && x <= hi; /* false for NaN */
}

int ona__audio_play_cmd(ona__audio *a, ona_sound sound, double volume, double pan, double pitch,
                        bool loop, const char *group, ona__audio_cmd *cmd, const char **why) {
    *cmd = (ona__audio_cmd){.op = ONA__AUDIO_PLAY, .group = ONA__GROUP_NONE, .loop = loop};
    if (!ona__sounds_valid(&a->sounds, sound)) {
        *why = "not a sound handle (stale or never valid)";
        return ONA_ESTALE;
    }
    if (!in_range(volume, 0, 16)) {
        *why = "volume must be 0..16";
        return ONA_EINVAL;
    }
    if (!in_range(pan, -1, 1)) {
        *why = "pan must be -1..1";
        return ONA_EINVAL;
    }
    if (!in_range(pitch, 1.0 / 16, 16)) {
        *why = "pitch must be 1/16..16";
        return ONA_EINVAL;
    }
    if (group) {
        int rc = ona__audio_group(a, group, &cmd->group);
        if (rc) {
            *why = rc == ONA_EINVAL ? "group must be a name of 1..31 bytes"
                                    : "too many groups (at most 15 names besides master and music)";
            return rc;
        }
    }
    cmd->sound = sound.id;
    cmd->volume = (float)volume;
    cmd->pan = (float)pan;
    cmd->pitch = (float)pitch;
    return 0;
}

int ona__audio_music_cmd(bool start, double volume, double fade, bool loop, ona__audio_cmd *cmd,
                         const char **why) {
    *cmd = (ona__audio_cmd){.op = start ? ONA__AUDIO_MUSIC : ONA__AUDIO_MUSIC_STOP, .loop = loop};
    if (!in_range(volume, 0, 16)) {
        *why = "volume must be 0..16";
        return ONA_EINVAL;
    }
    if (!in_range(fade, 0, 3600)) {
        *why = "fade must be 0..3600 seconds";
        return ONA_EINVAL;
    }
    cmd->volume = (float)volume;
    cmd->fade = (float)fade;
    return 0;
}

int ona__audio_volume_cmd(ona__audio *a, const char *group, double volume, ona__audio_cmd *cmd,
                          const char **why) {
    *cmd = (ona__audio_cmd){.op = ONA__AUDIO_VOLUME};
    if (!in_range(volume, 0, 16)) {
        *why = "volume must be 0..16";
        return ONA_EINVAL;
    }
    int rc = ona__audio_group(a, group, &cmd->group);
    if (rc) {
        *why = rc == ONA_EINVAL ? "group must be a name of 1..31 bytes"
                                : "too many groups (at most 15 names besides master and music)";
        return rc;
    }
    cmd->volume = (float)volume;
    return 0;
}

int ona__audio_set_cmd(uint64_t voice, unsigned set, double volume, double pan, double pitch,
                       ona__audio_cmd *cmd, const char **why) {
    *cmd = (ona__audio_cmd){.op = ONA__AUDIO_SET, .voice = voice, .set = (uint8_t)set};
    if ((set & ONA__SET_VOLUME) && !in_range(volume, 0, 16)) {
        *why = "volume must be 0..16";
        return ONA_EINVAL;
    }
    if ((set & ONA__SET_PAN) && !in_range(pan, -1, 1)) {
        *why = "pan must be -1..1";
        return ONA_EINVAL;
    }
    if ((set & ONA__SET_PITCH) && !in_range(pitch, 1.0 / 16, 16)) {
        *why = "pitch must be 1/16..16";
        return ONA_EINVAL;
    }
    cmd->volume = (float)volume;
    cmd->pan = (float)pan;
    cmd->pitch = (float)pitch;
    return 0;
}
