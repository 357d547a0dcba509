/*
 * time_saves.c: steady time, frame pacing, random numbers and saves for the embedding API
 * (issue 10; ona/runtime.h: ona_runtime_frame_dt, ona_runtime_time, ona_random_*,
 * ona_runtime_save, ona_runtime_load, ona_runtime_save_dir).
 *
 * Design note. Time: the clock is exact under a fixed step because it is base + frames * step,
 * not a running sum (0.1 added ten times is not 1.0); a change of step starts a new base. The
 * time rules (which dt a frame gets, the frame cap) live here so that ona_runtime_run, the
 * launcher and any embedder's loop share them through ona_runtime_frame_dt. Main advances the
 * clock before a frame's turns, which only read it; the pacing state is main's, and the save
 * folder is set at creation. main.lua's fixed_dt and max_fps are relaxed atomics that main
 * reads between frames; the frame's end orders them. Random numbers are xoshiro256** in a
 * caller-owned ona_random, so each state (a system, a script) keeps its own stream without locks.
 * Saves are save.c's format and files; this file adds the runtime's folder and the logging.
 */
#include "runtime_internal.h"
#include "save.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int ona__runtime_init_saves(ona_runtime *rt, const char *save_dir, const char *game_id) {
    char dir[4096];
    if (save_dir && *save_dir) {
        snprintf(dir, sizeof dir, "%s", save_dir);
    } else if (ona__save_default_dir(game_id ? game_id : "default", dir, sizeof dir) != 0) {
        ona_log(ONA_LOG_WARN, "save",
                "no save folder: neither XDG_DATA_HOME nor HOME is an absolute path (saves will "
                "fail; set ona_runtime_desc.save_dir or the launcher's --save-dir)");
        return 0;
    }
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    rt->save_dir = ona__malloc(n + 1);
    if (!rt->save_dir)
        return ONA_ENOMEM;
    memcpy(rt->save_dir, dir, n + 1);
    return 0;
}

void ona__runtime_advance_clock(ona_runtime *rt, double dt) {
    if (dt != rt->time_step || rt->time_frames == UINT64_MAX) {
        rt->time_base = rt->game_time;
        rt->time_step = dt;
        rt->time_frames = 0;
    }
    rt->time_frames++;
    rt->game_time = rt->time_base + (double)rt->time_frames * dt;
}

void ona__runtime_set_script_time(ona_runtime *rt, double fixed_dt, uint32_t max_fps) {
    /* relaxed: settings main reads between frames; the frame's end orders them. */
    if (fixed_dt != 0)
        atomic_store_explicit(&rt->script_fixed_dt, fixed_dt, memory_order_relaxed);
    if (max_fps)
        atomic_store_explicit(&rt->script_max_fps, max_fps, memory_order_relaxed);
}

/* The fixed step that applies now, or 0 for measured time: the desc, then main.lua, then the
 * default (fixed without a window). */
static double fixed_step(ona_runtime *rt) {
    if (rt->desc.fixed_dt > 0)
        return rt->desc.fixed_dt;
    if (rt->desc.fixed_dt < 0)
        return 0;
    /* relaxed: see ona__runtime_set_script_time. */
    double script = atomic_load_explicit(&rt->script_fixed_dt, memory_order_relaxed);
    if (script != 0)
        return script > 0 ? script : 0;
    return rt->video.mode != ONA_VIDEO_WINDOW || rt->desc.fixed_step_default ? 1.0 / 60 : 0;
}

/* The frame cap in frames per second, 0 for none: the desc, else main.lua's with a window. */
static uint32_t frame_cap(ona_runtime *rt) {
    if (rt->desc.max_fps)
        return rt->desc.max_fps;
    if (rt->video.mode != ONA_VIDEO_WINDOW)
        return 0;
    /* relaxed: see ona__runtime_set_script_time. */
    uint32_t fps = atomic_load_explicit(&rt->script_max_fps, memory_order_relaxed);
    return fps == UINT32_MAX ? 0 : fps;
}

double ona_runtime_frame_dt(ona_runtime *rt) {
    if (!rt || !ona__runtime_may_call(rt))
        return 0;
    uint64_t now = ona__now_ns();
    uint32_t fps = frame_cap(rt);
    if (fps && rt->pace_last_ns) {
        uint64_t due = rt->pace_last_ns + 1000000000ull / fps;
        while (now < due) {
            uint64_t wait = due - now;
            struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
            nanosleep(&ts, NULL);
            now = ona__now_ns();
        }
    }
    double measured = rt->pace_last_ns ? (double)(now - rt->pace_last_ns) / 1e9 : 1.0 / 60;
    rt->pace_last_ns = now;
    double step = fixed_step(rt);
    return step > 0 ? step : ONA_MIN(measured, 0.25);
}

double ona_runtime_time(const ona_runtime *rt) {
    return rt ? rt->game_time : 0;
}

/* xoshiro256** (Blackman and Vigna, 2018), seeded with splitmix64 as its authors advise. */
static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

void ona_random_seed(ona_random *r, uint64_t seed) {
    if (!r)
        return;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    r->seed = seed;
}

uint64_t ona_random_u64(ona_random *r) {
    if (!r)
        return 0;
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ona_random_next(ona_random *r) {
    return (double)(ona_random_u64(r) >> 11) * 0x1.0p-53;
}

int64_t ona_random_int(ona_random *r, int64_t a, int64_t b) {
    if (b <= a)
        return a;
    uint64_t span = (uint64_t)b - (uint64_t)a + 1; /* 0: the whole 64-bit range */
    uint64_t x = ona_random_u64(r);
    if (span) {
        /* Rejection of the last partial block of 2^64 values keeps every result equally
         * likely. */
        uint64_t limit = UINT64_MAX - (UINT64_MAX % span + 1) % span;
        while (x > limit)
            x = ona_random_u64(r);
        x %= span;
    }
    return (int64_t)((uint64_t)a + x);
}

double ona_random_float(ona_random *r, double a, double b) {
    return a + (b - a) * ona_random_next(r);
}

/* FNV-1a of the name, mixed with the spawn order and the count through splitmix64. */
uint64_t ona__runtime_default_seed(const ona__system *sys, uint64_t nth) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (const char *p = sys->name; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
    uint64_t x = h ^ ((uint64_t)sys->spawn_order << 32) ^ nth;
    return splitmix64(&x) & ((1ull << 53) - 1);
}

int ona_runtime_save(ona_runtime *rt, const char *name, ona_message *value) {
    if (!rt || !name || !value)
        return ONA_EINVAL;
    char err[512];
    int rc = ona__save_write_message(rt->save_dir, name, value, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, "save", "%s", err);
    return rc;
}

int ona_runtime_load(ona_runtime *rt, const char *name, ona_message *out) {
    if (!rt || !name || !out)
        return ONA_EINVAL;
    char err[512];
    int rc = ona__save_read_message(rt->save_dir, name, out, err, sizeof err);
    if (rc)
        ona_log(rc == ONA_ENOENT ? ONA_LOG_DEBUG : ONA_LOG_ERROR, "save", "%s", err);
    return rc;
}

const char *ona_runtime_save_dir(const ona_runtime *rt) {
    return rt && rt->save_dir ? rt->save_dir : "";
}
