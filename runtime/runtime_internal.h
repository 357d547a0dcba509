/*
 * runtime_internal.h: what an ona_runtime is made of. Internal to the assembly (the .c files
 * of runtime/ itself: runtime.c, runtime_services.c, reload.c, signals.c, stats.c, about.c),
 * the one code that knows every layer.
 *
 * Layering: runtime/core (actors, scheduler; libuv only) <- runtime/gfx, runtime/audio <-
 * runtime/services (services.h: what both hosts reach) <- the hosts (bindings/: Lua;
 * runtime/native/: C systems and ona_ctx_*) <- the assembly. Neither the core, the services nor
 * the hosts see this struct: the core gets its own ona__core, the first member (so a core pointer
 * converts back with ona__runtime_of), the services their ona__services, whose address the core
 * keeps for the hosts.
 */
#ifndef ONA_RUNTIME_INTERNAL_H
#define ONA_RUNTIME_INTERNAL_H

#include "loop.h"
#include "native.h"
#include "record.h"
#include "services.h"

#include <signal.h>
#include <stdio.h>

/* signals.c: SIGINT/SIGTERM for a runtime created with handle_signals. The handler only writes
 * the signal's number to a pipe; the thread "ona-signals" reads it, asks the runtime to quit and
 * enforces the 2 s deadline. */
typedef struct ona__signals {
    bool claimed;      /* this runtime holds the signals; main's mask blocks them */
    sigset_t old_mask; /* main's mask before */
    bool installed;    /* the handlers and the thread run */
    int pipe[2];
    uv_thread_t thread;
    atomic_int signal;     /* the first signal seen, 0 before */
    uv_mutex_t lock;       /* guards the three below (main writes, the watchdog reads) */
    bool busy;             /* main is in a step or a spawn (running scripts) */
    const char *busy_what; /* what main is doing then, for the log */
    bool in_turns;         /* main is inside the scheduler's frame: `systems` cannot change */
} ona__signals;

struct ona_runtime {
    ona__core core;         /* first: see ona__runtime_of */
    ona_runtime_desc desc;  /* defaults applied; script_roots copied into services.roots */
    ona__services services; /* core.services points here */
    bool core_ready, hot_ready, loop_ready;
    /* The event loop (loop.h): made first, closed last, polled by main once a frame. The file
     * watcher's watches are handles on it. */
    uv_loop_t loop;
    ona__hot_reload hot;                                  /* services.hot points here */
    uint64_t last_frame_ns, max_frame_ns, total_frame_ns; /* main */
    /* Main: the last frame's steps (fixed_step), its turns' time, and the main thread's draw
     * (merge, GL calls) and swap of its picture; totals over the run. */
    uint32_t last_steps;
    uint64_t turns_ns, draw_ns, swap_ns, total_draw_ns, total_swap_ns, pictures;
    ona__signals signals;
    ona__record record; /* the session being recorded or replayed (record.c); main */
    struct ona__inspect *inspect; /* the inspector (inspect.h), NULL when off; main */
};

static inline ona_runtime *ona__runtime_of(ona__core *core) {
    return (ona_runtime *)core;
}

/* reload.c: at the frame boundary, applies the file changes seen (scripts, modules, shaders,
 * textures). Main thread. */
void ona__runtime_apply_reloads(ona_runtime *rt);

/* signals.c. Main thread. claim: first in create, before any thread starts: takes the signals
 * for this runtime (ONA_EBUSY when another runtime has them) and blocks them on main, so that
 * every thread started from now on inherits the block; start: last in create: the handlers and
 * the watchdog thread, the one thread that takes the signals (ONA_EIO, ONA_ENOMEM,
 * ONA_ETHREAD); stop: undoes whichever of the two ran. */
int ona__signals_claim(ona_runtime *rt);
int ona__signals_start(ona_runtime *rt);
void ona__signals_stop(ona_runtime *rt);
/* Main marks where scripts run (a step, a spawn): the deadline only ends the process when a
 * signal arrived and main is still (or again) in one of them after 2 s. */
void ona__signals_enter(ona_runtime *rt);
void ona__signals_leave(ona_runtime *rt);
/* Main brackets the scheduler's frame, so that the watchdog may read `systems` inside it. */
void ona__signals_turns(ona_runtime *rt, bool in_turns);

/* stats.c: a system's statistics without the public function's thread check, for main inside a
 * step between frames (the overlay, the inspector). ONA_ESTALE. */
int ona__runtime_system_stats(ona_runtime *rt, ona_system system, ona_system_stats *out);

/* runtime.c: the checks shared by the public functions. */
/* True on the main thread outside step and destroy: where the main-thread-only API may run. */
bool ona__runtime_may_call(ona_runtime *rt);

#endif
