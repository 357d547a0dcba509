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
 */
#include "audio.h"

#include "common.h"

#include <SDL.h>
#include <dlfcn.h>
#include <stdio.h>

int ona__audio_init(ona__audio *a, bool disabled, uint32_t threads, uint32_t slots) {
    memset(a, 0, sizeof *a);
    a->disabled = disabled;
    ona__mixer_init(&a->mixer);
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
    a->counters = ona__calloc((size_t)slots + 1, sizeof *a->counters);
    if (!a->queues || !a->queue_ptrs || !a->counters) {
        ona__free(a->queues);
        ona__free(a->queue_ptrs);
        ona__free(a->counters);
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

void ona__audio_free(ona__audio *a) {
    if (a->open)
        SDL_CloseAudioDevice(a->device); /* the callback has stopped when this returns */
    a->open = false;
    ona__stream *left[ONA__MIX_RETIRED + 2];
    close_streams(left, ona__mixer_take_all(&a->mixer, left, ONA__MIX_RETIRED + 2));
    if (a->sdl_init)
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
    for (uint32_t i = 0; i < a->queue_count; i++)
        ona__audio_queue_free(&a->queues[i]);
    ona__free(a->queues);
    ona__free(a->queue_ptrs);
    ona__free(a->counters);
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

int ona__audio_push(ona__audio *a, ona__system *sys, ona__audio_cmd *cmd, const char *path,
                    uint64_t *voice) {
    int thread = ona__runq_thread_index();
    if (thread < 0 || (uint32_t)thread >= a->queue_count)
        return ONA_ETHREAD;
    cmd->order = sys->spawn_order;
    cmd->who = sys->name;
    cmd->seq = sys->draw_seq;
    if (cmd->op == ONA__AUDIO_PLAY) {
        uint32_t slot = (uint32_t)(sys->id & ((UINT64_C(1) << ONA__REGISTRY_SLOT_BITS) - 1));
        if (slot == 0 || slot > a->slots)
            return ONA_ETHREAD; /* not a registered system: cannot happen inside a turn */
        uint32_t n = ++a->counters[slot];
        if (n == 0) /* wrapped after 2^32 plays: skip 0, which would make handle 0 possible */
            n = a->counters[slot] = 1;
        cmd->voice = ((uint64_t)slot << 32) | n;
    }
    int rc = ona__audio_queue_push(&a->queues[thread], cmd, path);
    if (rc)
        return rc;
    sys->draw_seq++;
    if (voice)
        *voice = cmd->voice;
    return 0;
}

static void callback(void *user, Uint8 *stream, int len) {
    ona__audio *a = user;
    ona__mixer_mix(&a->mixer, (float *)(void *)stream,
                   (uint32_t)len / (ONA__MIX_CHANNELS * sizeof(float)));
}

/* ALSA's own error printer writes to stderr ("ALSA lib confmisc.c:767:(parse_card) cannot find
 * card '0'", a dozen lines on a machine without a sound card) before SDL gives up or picks
 * another driver; the runtime says what became of the audio in one line of its own. */
static void alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt,
                       ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}

/* Silences ALSA's printer in the libasound SDL will use, when there is one: loaded by name,
 * as SDL loads it, so that Ona has no link dependency on it. The library stays loaded (SDL's
 * own dlopen of it takes the same copy, and the handler with it). */
static void silence_alsa(void) {
    static bool done;
    if (done)
        return;
    done = true;
    void *lib = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    typedef void (*handler_fn)(const char *, int, const char *, int, const char *, ...);
    union {
        void *address;
        int (*set)(handler_fn);
    } set = {.address = dlsym(lib, "snd_lib_error_set_handler")};
    if (set.address)
        set.set(alsa_quiet);
}

static void open_device(ona__audio *a) {
    a->tried = true;
    silence_alsa();
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0) {
        ona_log(ONA_LOG_INFO, "audio", "no audio driver (%s): running silent", SDL_GetError());
        return;
    }
    a->sdl_init = true;
    SDL_AudioSpec want = {.freq = ONA__MIX_RATE,
                          .format = AUDIO_F32SYS,
                          .channels = ONA__MIX_CHANNELS,
                          .samples = 1024,
                          .callback = callback,
                          .userdata = a};
    SDL_AudioSpec have;
    /* No allowed changes: SDL converts to whatever the device plays, the mixer's format stays. */
    SDL_AudioDeviceID dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    if (dev == 0) {
        ona_log(ONA_LOG_INFO, "audio", "no audio device (%s, driver %s): running silent",
                SDL_GetError(), SDL_GetCurrentAudioDriver() ? SDL_GetCurrentAudioDriver() : "none");
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        a->sdl_init = false;
        return;
    }
    a->device = dev;
    a->open = true;
    ona_log(ONA_LOG_DEBUG, "audio", "audio device open (driver %s, 48 kHz stereo float)",
            SDL_GetCurrentAudioDriver());
    SDL_PauseAudioDevice(dev, 0);
}

void ona__audio_frame(ona__audio *a) {
    if (ona__audio_merge(a->queue_ptrs, a->queue_count, &a->list) != 0) {
        ona_log(ONA_LOG_ERROR, "audio", "out of memory merging this frame's audio: dropped");
        a->list.count = 0;
    }
    for (uint32_t i = 0; i < a->queue_count; i++)
        ona__audio_queue_clear(&a->queues[i]); /* path_ptr stays valid: memory is kept */
    if (a->list.count && !a->tried && !a->disabled)
        open_device(a);
    if (!a->open)
        return;
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
        if (c->op == ONA__AUDIO_MUSIC) {
            c->stream = ona__music_open(c->path_ptr, c->loop);
            snprintf(a->music_path, sizeof a->music_path, "%s", c->path_ptr);
            a->music_loop = c->loop;
        }
        if (c->op == ONA__AUDIO_MUSIC_STOP)
            a->music_path[0] = '\0';
    }
    ona__stream *retired[ONA__MIX_RETIRED];
    SDL_LockAudioDevice(a->device);
    uint32_t n = ona__mixer_take_retired(&a->mixer, retired, ONA__MIX_RETIRED);
    if (l->count) {
        a->handoff_frame = a->mixer.frames_mixed;
        a->handoffs++;
        ona__mixer_apply(&a->mixer, l->cmds, l->count);
    }
    SDL_UnlockAudioDevice(a->device);
    close_streams(retired, n);
    /* Once a frame, outside the lock: the drops are the game's to know of (the handles it got
     * for them play nothing). */
    if (l->count && a->mixer.dropped_last)
        ona_log(ONA_LOG_WARN, "audio",
                "%u plays dropped this frame, the first from %s: all %d voices were busy (stop "
                "voices, or play fewer at once)",
                a->mixer.dropped_last, a->mixer.dropped_who ? a->mixer.dropped_who : "C",
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
    if (a->open)
        SDL_LockAudioDevice(a->device);
    ona__pcm *old = ona__sounds_swap(&a->sounds, id, pcm);
    ona__mixer_replace(&a->mixer, old, pcm);
    if (a->open)
        SDL_UnlockAudioDevice(a->device);
    ona__pcm_free(old);
    return 0;
}

int ona__audio_music_reload(ona__audio *a, const char *path) {
    if (!a->open || strcmp(a->music_path, path) != 0)
        return 0; /* not the music playing now: the next play opens the new file */
    ona__stream *fresh = ona__music_open(path, a->music_loop);
    if (!fresh)
        return ONA_EFORMAT; /* logged; the old stream plays on */
    SDL_LockAudioDevice(a->device);
    ona__stream *old = ona__mixer_music_swap(&a->mixer, fresh);
    SDL_UnlockAudioDevice(a->device);
    if (old)
        old->close(old);
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
    if (a->open)
        SDL_LockAudioDevice(a->device);
    ona__mixer_replace(&a->mixer, old, silent);
    if (a->open)
        SDL_UnlockAudioDevice(a->device);
    ona__pcm_free(old);
    return 0;
}

bool ona__audio_music_streaming(ona__audio *a) {
    if (!a->open)
        return false;
    SDL_LockAudioDevice(a->device);
    bool streaming = a->mixer.music.stream != NULL;
    SDL_UnlockAudioDevice(a->device);
    return streaming;
}

uint64_t ona__audio_frames_mixed(ona__audio *a) {
    if (!a->open)
        return 0;
    SDL_LockAudioDevice(a->device);
    uint64_t n = a->mixer.frames_mixed;
    SDL_UnlockAudioDevice(a->device);
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
