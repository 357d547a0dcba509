/*
 * watchdog.h: the turn budget's watchdog (watchdog.c). Internal to the library.
 *
 * A thread that runs a system's code (a turn, a chunk, an exit or reload hook) publishes the run
 * in its thread's slot with ona__watchdog_begin and takes it back with ona__watchdog_end. The
 * watchdog thread ("ona-watchdog") looks at the slots every few milliseconds; a run past its
 * budget is interrupted through its `interrupt` callback (the Lua host sets a hook that raises
 * the budget error), or, when it cannot be interrupted (native code, a JIT-compiled loop), named
 * in the log once a second until it ends. A turn past its slice is asked to step aside through
 * `preempt`, so the frame goes on without it.
 */
#ifndef ONA_WATCHDOG_H
#define ONA_WATCHDOG_H

#include "core.h"

typedef struct ona__watchdog ona__watchdog;

/* What a run is, as the publishing thread describes it. The strings and `target` must stay valid
 * until the run ends. */
typedef struct ona__watch {
    const char *system; /* the system's name */
    const char *what;   /* "turn", "chunk", "exit", "reload" */
    const char *script; /* named when the run cannot be interrupted; may be NULL */
    uint64_t budget_ns; /* > 0 */
    /* Called by the watchdog thread once the run is past its budget (NULL: it cannot be
     * interrupted), and by the publishing thread when an interrupted run ends. */
    void (*interrupt)(void *target);
    void (*disarm)(void *target);
    void *target;
    /* A turn may be asked to step aside once it has run `slice_ns` (0: never) in one go: the
     * watchdog thread calls `preempt` once (the Lua host sets a hook that suspends the turn
     * where it can, to be continued next frame); the run's thread calls `disarm` when it ends. */
    uint64_t slice_ns;
    /* CPU time the run's thread must use past the slice before it is asked (0: none), so a run
     * late only because the machine is busy is left whole. */
    uint64_t slice_cpu_ns;
    void (*preempt)(void *target);
    /* 0, or when the run's first part began (a turn continued after a slice): the budget counts
     * from then. */
    uint64_t since_ns;
} ona__watch;

/* One published run, on the publisher's stack. A run begun while another runs on the same thread
 * (a system's chunk run by ona.spawn inside a turn) takes the slot over; ending it gives the slot
 * back to the outer run, whose clock was paused meanwhile. */
typedef struct ona__watch_scope {
    ona__watchdog *wd;
    int slot; /* -1: nothing published */
    ona__watch watch;
    uint64_t started_ns;        /* the budget counts from here (since_ns when set) */
    uint64_t slice_deadline_ns; /* past it the run is asked to step aside (slice_ns) */
    /* Written by the watchdog while the slot is claimed; the run's thread reads it once the run
     * ended (the end's CAS or lock orders it): the run was asked to step aside. */
    bool preempted;
    struct ona__watch_scope *outer;
    /* Owned by the publishing thread: set by the interrupt's raiser so every later interrupt of
     * the same run says the same thing. */
    bool raised;
    char message[256];
} ona__watch_scope;

/* Starts the thread, with one slot per thread running turns. 0, ONA_ENOMEM, or ONA_EIO when the
 * thread could not start. */
int ona__watchdog_start(ona__core *core, ona__watchdog **out);
/* Stops and joins the thread and frees it. No run may be published any more. NULL is fine. */
void ona__watchdog_stop(ona__watchdog *wd);

/* Publishes a run on the calling thread (a thread running turns, or main). A NULL `wd`, a zero
 * budget or a thread that runs no turns publishes nothing (scope->slot stays -1). */
void ona__watchdog_begin(ona__watchdog *wd, const ona__watch *watch, ona__watch_scope *scope);
/* Ends the run begun with `scope`, disarming it if it was interrupted. */
void ona__watchdog_end(ona__watch_scope *scope);
/* The innermost run published by the calling thread, or NULL. */
ona__watch_scope *ona__watchdog_current(void);

#endif
