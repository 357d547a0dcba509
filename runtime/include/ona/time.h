/*
 * ona/time.h: steady time, frame pacing and random numbers.
 *
 * Game time is the sum of the frames' dt (exact under a fixed step: n frames of dt read n * dt),
 * the same for every system in a frame; main advances it before a frame's turns. Random
 * generators are xoshiro256** seeded through splitmix64: a sequence depends only on its seed,
 * never on threads. An ona_random is plain state owned by whoever holds it: no locks, one per
 * thread or system.
 */
#ifndef ONA_TIME_H
#define ONA_TIME_H

#include "ona/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Paces an embedder's frame loop: sleeps out the frame cap (ona_runtime_desc.max_fps, or
 * main.lua's with a window) since the previous call, then returns the dt the next
 * ona_runtime_step should get: the fixed step when one applies (ona_runtime_desc.fixed_dt),
 * else the wall time since the previous call (1/60 the first time; at most 0.25 s, so a stop
 * in a debugger is not one huge step). With fixed_step and measured time it also waits until a
 * step is due, since a frame without one draws nothing new. The wall clock is desc.clock_ns when
 * given (then nothing sleeps). Main thread, between frames; elsewhere, or with a NULL runtime,
 * returns 0 and sleeps not. */
ONA_API double ona_runtime_frame_dt(ona_runtime *rt);

/* Game time: the sum of the dt of every frame stepped so far (0 before the first). Inside a
 * frame it includes that frame's dt, so in frame n of a fixed step dt it is n * dt exactly.
 * Main thread between frames, or any system during a frame; 0 for NULL. */
ONA_API double ona_runtime_time(const ona_runtime *rt);
/* The same, and the frame's dt, from inside a native callback, on its thread (0 for a NULL
 * ctx). */
ONA_API double ona_ctx_time(ona_ctx *ctx);
ONA_API double ona_ctx_dt(ona_ctx *ctx);
/* Under fixed steps (ona_runtime_desc.fixed_step): the frame's leftover fraction of a step, in
 * [0, 1), the same in every step of the frame and for every system, to draw between the last
 * two states with. 0 without fixed steps (and for a NULL ctx). Inside a callback. */
ONA_API double ona_ctx_alpha(ona_ctx *ctx);

/* A random number generator (xoshiro256**). Treat the fields as private; copy it freely: it is
 * plain state, owned by whoever holds it. The ona_random_* functions are safe on any thread
 * for generators no other thread uses at the same time. */
typedef struct ona_random {
    uint64_t s[4];
    uint64_t seed;
} ona_random;

/* Seeds `r` (NULL ignored): the same seed always gives the same sequence. */
ONA_API void ona_random_seed(ona_random *r, uint64_t seed);
/* The next 64 random bits. */
ONA_API uint64_t ona_random_u64(ona_random *r);
/* A number in [0, 1) with 53 random bits. */
ONA_API double ona_random_next(ona_random *r);
/* An integer in [a, b], both included, without bias; a when b < a (an empty range, logged
 * naming the function, as Lua's gen:int raises for it). */
ONA_API int64_t ona_random_int(ona_random *r, int64_t a, int64_t b);
/* A number in [a, b), finite for any finite bounds; a bound that is infinite or NaN is logged
 * naming the function (Lua's gen:float raises) and the finite one, else 0, is returned. */
ONA_API double ona_random_float(ona_random *r, double a, double b);
/* Seeds `out` with this system's next default seed: derived from its name, its spawn order and
 * how many default seeds it took before (since its last restart), below 2^53; the same as the
 * Lua ona.random() of a system with that name and spawn order. Returns the seed (0 for NULLs). Only
 * inside a callback, on its thread. */
ONA_API uint64_t ona_ctx_random(ona_ctx *ctx, ona_random *out);

#ifdef __cplusplus
}
#endif

#endif /* ONA_TIME_H */
