/*
 * time.c: steady time, frame pacing and random numbers for both hosts and the embedding API
 * (services.h; ona/time.h: ona_runtime_frame_dt, ona_runtime_time, ona_random_*).
 *
 * Design note. Time: the clock is exact under a fixed step because it is base + frames * step,
 * not a running sum (0.1 added ten times is not 1.0); a change of step starts a new base. The
 * time rules (which dt a frame gets, the frame cap) live here so that ona_runtime_run, the
 * launcher and any embedder's loop share them through ona_runtime_frame_dt. Main advances the
 * clock before a frame's turns, which only read it; the pacing state is main's, and the save
 * folder is set at creation. main.lua's fixed_dt and max_fps are relaxed atomics that main
 * reads between frames; the frame's end orders them. Random numbers are xoshiro256** in a
 * caller-owned ona_random, so each state (a system, a script) keeps its own stream without locks.
 * Every default seed (ona.random(), ona_random_default, a Lua system's math.random) is a function
 * of the session seed, the system's name and spawn order and a stream number, never of time or
 * of a thread, so a run replays.
 *
 * Under an accumulator (fixed_step) the wall time each frame is given is added up and spent in
 * whole steps, at most max_steps a frame; the frame's alpha is what is left, in steps. Main
 * alone reads and writes the accumulator, between frames, so a replay (which takes the steps
 * and alpha from the recording instead) needs none of it.
 */
#include "services.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void ona__services_advance_clock(ona__services *s, double dt) {
    if (dt != s->time_step || s->time_frames == UINT64_MAX) {
        s->time_base = s->game_time;
        s->time_step = dt;
        s->time_frames = 0;
    }
    s->time_frames++;
    s->game_time = s->time_base + (double)s->time_frames * dt;
}

void ona__services_set_script_time(ona__services *s, double fixed_dt, uint32_t max_fps) {
    /* relaxed: settings main reads between frames; the frame's end orders them. */
    if (fixed_dt != 0)
        atomic_store_explicit(&s->script_fixed_dt, fixed_dt, memory_order_relaxed);
    if (max_fps)
        atomic_store_explicit(&s->script_max_fps, max_fps, memory_order_relaxed);
}

/* The fixed step that applies now, or 0 for measured time: the desc, then main.lua, then the
 * default (fixed without a window). */
static double fixed_step(const ona__services *s) {
    if (s->fixed_dt > 0)
        return s->fixed_dt;
    if (s->fixed_dt < 0)
        return 0;
    /* relaxed: see ona__services_set_script_time. */
    double script = atomic_load_explicit(&s->script_fixed_dt, memory_order_relaxed);
    if (script != 0)
        return script > 0 ? script : 0;
    return s->video.mode != ONA_VIDEO_WINDOW || s->fixed_step_default ? 1.0 / 60 : 0;
}

/* The frame cap in frames per second, 0 for none: the desc, else main.lua's with a window. */
static uint32_t frame_cap(const ona__services *s) {
    if (s->max_fps)
        return s->max_fps;
    if (s->video.mode != ONA_VIDEO_WINDOW)
        return 0;
    /* relaxed: see ona__services_set_script_time. */
    uint32_t fps = atomic_load_explicit(&s->script_max_fps, memory_order_relaxed);
    return fps == UINT32_MAX ? 0 : fps;
}

/* The wall clock: the desc's (tests) or the monotonic one. */
static uint64_t wall_ns(const ona__services *s) {
    return s->clock_ns ? s->clock_ns(s->clock_user) : ona__now_ns();
}

double ona__services_frame_dt(ona__services *s) {
    if (!ona__services_may_call(s))
        return 0;
    uint64_t now = wall_ns(s);
    uint32_t fps = frame_cap(s);
    double step = fixed_step(s);
    uint64_t due = fps && s->pace_last_ns ? s->pace_last_ns + 1000000000ull / fps : 0;
    /* Measured time feeding an accumulator: wait until a step is due, since a frame without
     * one runs no turns and so has nothing new to draw. */
    if (s->fixed_step > 0 && step == 0 && s->pace_last_ns && s->step_left < s->fixed_step) {
        uint64_t need = s->pace_last_ns + (uint64_t)ceil((s->fixed_step - s->step_left) * 1e9);
        due = ONA_MAX(due, need);
    }
    /* An injected clock is the caller's: nothing sleeps on it. */
    while (!s->clock_ns && now < due) {
        uint64_t wait = due - now;
        struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
        nanosleep(&ts, NULL);
        now = wall_ns(s);
    }
    double measured = s->pace_last_ns ? (double)(now - s->pace_last_ns) / 1e9 : 1.0 / 60;
    s->pace_last_ns = now;
    return step > 0 ? step : ONA_MIN(measured, 0.25);
}

uint32_t ona__services_plan_steps(ona__services *s, double dt, double *alpha) {
    double step = s->fixed_step;
    s->step_left += dt;
    uint32_t n = 0;
    /* A step due within a microsecond is due: the wall clock counts whole nanoseconds, so
     * 1/30 s measured is a hair short of two steps of 1/60. */
    const double slack = 1e-6;
    while (s->step_left >= step - slack && n < s->max_steps) {
        s->step_left -= step;
        n++;
    }
    if (s->step_left >= step - slack) {
        /* The spiral of death: steps that take longer than the time they stand for would ask
         * for more every frame. Past max_steps the whole steps are dropped (the game runs
         * slower than the wall clock) and only the fraction is kept. */
        if (s->steps_dropped++ == 0)
            ona_log(ONA_LOG_WARN, "time",
                    "a frame needed more than max_steps (%u) fixed steps of %g s: the rest is "
                    "dropped, so the game runs slower than the wall clock (said once)",
                    s->max_steps, step);
        s->step_left = fmod(s->step_left, step);
        if (s->step_left >= step - slack)
            s->step_left = 0;
    }
    if (s->step_left < 0)
        s->step_left = 0;
    double a = s->step_left / step;
    *alpha = a < 1 ? a : 0;
    return n;
}

double ona__services_time(const ona__services *s) {
    return s->game_time;
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
    if (b < a) /* what Lua's gen:int raises for */
        ona_log(ONA_LOG_ERROR, "random",
                "ona_random_int: the range is empty: %lld > %lld; returning %lld", (long long)a,
                (long long)b, (long long)a);
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
    if (!isfinite(a) || !isfinite(b)) { /* what Lua's gen:float raises for */
        ona_log(ONA_LOG_ERROR, "random",
                "ona_random_float: the bounds must be finite numbers, got %g and %g; returning %g",
                a, b,
                isfinite(a)   ? a
                : isfinite(b) ? b
                              : 0.0);
        return isfinite(a) ? a : isfinite(b) ? b : 0.0;
    }
    double t = ona_random_next(r);
    double span = b - a;
    /* Bounds far apart (-1e308, 1e308) overflow b - a: mix them instead, which stays finite. */
    double x = isfinite(span) ? a + span * t : a * (1 - t) + b * t;
    return x < b || b <= a ? x : a; /* rounding may reach b: [a, b) is kept */
}

/* FNV-1a of the name, mixed with the session seed (whitened by splitmix64, so that near seeds
 * give unrelated streams), the spawn order and the count through splitmix64. */
uint64_t ona__services_default_seed(const ona__system *sys, uint64_t nth) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (const char *p = sys->name; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
    uint64_t session = ona__services_of(sys)->seed;
    uint64_t x = h ^ splitmix64(&session) ^ ((uint64_t)sys->spawn_order << 32) ^ nth;
    return splitmix64(&x) & ((1ull << 53) - 1);
}
