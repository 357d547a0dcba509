/*
 * device.c: the audio device (audio.h): SDL's device opened live or on game time, and the ring
 * that feeds the disk driver on game time.
 *
 * Design note. Live, SDL's audio thread calls `callback`, which mixes under the device's lock.
 * On game time (no window, or SDL's disk or dummy driver) main mixes each frame's dt
 * (ona__audio_mix_offline); with the disk driver the frames go through a ring of one second: the
 * device's thread (ring_callback, holding the device's lock) waits for a whole buffer of them,
 * and main waits while the ring is full, so the file gets every frame, in order, and no silence
 * in between however fast or slow the game ran. The ring has its own lock and condition; main
 * never takes the device's lock on game time (the mixer is main's). At close main waits for the
 * device's thread to take what is left (a second at most, at the driver's pace); its last buffer
 * is padded with silence.
 */
#include "audio.h"

#include "common.h"

#include <SDL.h>
#include <dlfcn.h>

static void callback(void *user, Uint8 *stream, int len) {
    ona__audio *a = user;
    ona__mixer_mix(&a->mixer, (float *)(void *)stream,
                   (uint32_t)len / (ONA__MIX_CHANNELS * sizeof(float)));
}

/* On game time with the disk driver, SDL's audio thread: a device buffer of main's frames,
 * waiting for them; silence once the device closes. */
static void ring_callback(void *user, Uint8 *stream, int len) {
    ona__audio_ring *r = &((ona__audio *)user)->ring;
    float *out = (float *)(void *)stream;
    uint32_t want = (uint32_t)len / (ONA__MIX_CHANNELS * sizeof(float));
    uv_mutex_lock(&r->lock);
    while (r->count < want && !r->closing)
        uv_cond_wait(&r->cond, &r->lock);
    uint32_t n = r->count < want ? r->count : want;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = (r->head + i) % r->capacity;
        out[i * 2] = r->frames[at * 2];
        out[i * 2 + 1] = r->frames[at * 2 + 1];
    }
    r->head = (r->head + n) % r->capacity;
    r->count -= n;
    uv_cond_broadcast(&r->cond);
    uv_mutex_unlock(&r->lock);
    memset(out + (size_t)n * 2, 0, (size_t)(want - n) * 2 * sizeof *out);
}

/* Main: hands `frames` mixed frames to the disk driver's thread, waiting while the ring is
 * full. */
static void ring_write(ona__audio_ring *r, const float *in, uint32_t frames) {
    uv_mutex_lock(&r->lock);
    for (uint32_t done = 0; done < frames;) {
        while (r->count == r->capacity && !r->closing)
            uv_cond_wait(&r->cond, &r->lock);
        for (; done < frames && r->count < r->capacity; done++, r->count++) {
            uint32_t at = (r->head + r->count) % r->capacity;
            r->frames[at * 2] = in[done * 2];
            r->frames[at * 2 + 1] = in[done * 2 + 1];
        }
        uv_cond_broadcast(&r->cond);
    }
    uv_mutex_unlock(&r->lock);
}

static bool ring_init(ona__audio_ring *r) {
    memset(r, 0, sizeof *r);
    r->capacity = ONA__MIX_RATE; /* a second */
    r->frames = ona__calloc((size_t)r->capacity * ONA__MIX_CHANNELS, sizeof *r->frames);
    if (!r->frames)
        return false;
    if (uv_mutex_init(&r->lock)) {
        ona__free(r->frames);
        return false;
    }
    if (uv_cond_init(&r->cond)) {
        uv_mutex_destroy(&r->lock);
        ona__free(r->frames);
        return false;
    }
    return true;
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

static bool driver_is(const char *driver, const char *name) {
    return driver && SDL_strcasecmp(driver, name) == 0;
}

void ona__audio_open_device(ona__audio *a) {
    a->tried = true;
    /* Headless, no device is opened (nor ALSA woken) and the mix runs on game time, unless
     * SDL_AUDIODRIVER names a driver: the disk and dummy drivers then mix on game time too, any
     * other is opened as asked. */
    const char *asked = SDL_getenv("SDL_AUDIODRIVER");
    if (a->headless && (!asked || !asked[0])) {
        a->offline = a->open = true;
        ona_log(ONA_LOG_DEBUG, "audio", "no window: mixing on game time, played nowhere");
        return;
    }
    silence_alsa();
    if (SDL_InitSubSystem(SDL_INIT_AUDIO) != 0) {
        ona_log(ONA_LOG_INFO, "audio", "no audio driver (%s): running silent", SDL_GetError());
        return;
    }
    a->sdl_init = true;
    const char *driver = SDL_GetCurrentAudioDriver();
    if (driver_is(driver, "dummy")) {
        a->offline = a->open = true;
        ona_log(ONA_LOG_DEBUG, "audio", "driver dummy: mixing on game time, played nowhere");
        return;
    }
    a->offline = a->headless || driver_is(driver, "disk");
    if (a->offline) {
        a->ring_ready = ring_init(&a->ring);
        if (!a->ring_ready) {
            ona_log(ONA_LOG_ERROR, "audio", "out of memory for the disk driver: running silent");
            a->offline = false;
            return;
        }
    }
    SDL_AudioSpec want = {.freq = ONA__MIX_RATE,
                          .format = AUDIO_F32SYS,
                          .channels = ONA__MIX_CHANNELS,
                          .samples = 1024,
                          .callback = a->offline ? ring_callback : callback,
                          .userdata = a};
    SDL_AudioSpec have;
    /* No allowed changes: SDL converts to whatever the device plays, the mixer's format stays. */
    SDL_AudioDeviceID dev = SDL_OpenAudioDevice(NULL, 0, &want, &have, 0);
    if (dev == 0) {
        ona_log(ONA_LOG_INFO, "audio", "no audio device (%s, driver %s): running silent",
                SDL_GetError(), driver ? driver : "none");
        SDL_QuitSubSystem(SDL_INIT_AUDIO);
        a->sdl_init = false;
        a->offline = false;
        return;
    }
    a->device = dev;
    a->open = true;
    ona_log(ONA_LOG_DEBUG, "audio", "audio device open (driver %s, 48 kHz stereo float, %s)",
            driver, a->offline ? "on game time" : "live");
    SDL_PauseAudioDevice(dev, 0);
}

/* Main, on game time: mixes `frames` and hands them to the disk driver, if it is there. */
void ona__audio_mix_offline(ona__audio *a, uint64_t frames) {
    while (frames) {
        uint32_t n = frames < ONA__MIX_CHUNK ? (uint32_t)frames : ONA__MIX_CHUNK;
        ona__mixer_mix(&a->mixer, a->out, n);
        if (a->ring_ready)
            ring_write(&a->ring, a->out, n);
        frames -= n;
    }
}

void ona__audio_close_device(ona__audio *a) {
    if (a->ring_ready) {
        /* Every frame mixed reaches the file: the audio thread takes what is left (a last partial
         * buffer padded with silence), then waits no more. */
        uv_mutex_lock(&a->ring.lock);
        a->ring.closing = true;
        uv_cond_broadcast(&a->ring.cond);
        while (a->ring.count > 0 && a->device)
            uv_cond_wait(&a->ring.cond, &a->ring.lock);
        uv_mutex_unlock(&a->ring.lock);
    }
    if (a->device)
        SDL_CloseAudioDevice(a->device); /* the callback has stopped when this returns */
    a->device = 0;
    a->open = false;
    if (a->ring_ready) {
        uv_cond_destroy(&a->ring.cond);
        uv_mutex_destroy(&a->ring.lock);
        ona__free(a->ring.frames);
        a->ring_ready = false;
    }
}
