/*
 * monitor.h: monitors (ona.monitor, ona_ctx_monitor): a system told of another system's
 * lifecycle by notices from the runtime (sender ONA_SENDER_RUNTIME). Internal.
 */
#ifndef ONA_MONITOR_H
#define ONA_MONITOR_H

#include <stdint.h>

typedef struct ona__system ona__system;
typedef struct ona__core ona__core;

/* `watcher` (in its turn, any thread) monitors the system `target`: from now on it is sent a
 * notice when that system pauses, resumes, restarts or ends (once, however often it asks). A
 * handle that has already ended gets "ended" at once (at the watcher's next turn). 0, or
 * ONA_ENOMEM (nothing changed). */
int ona__monitor_add(ona__core *core, ona__system *watcher, uint64_t target);
/* Main, between frames: sends ("<what>", sys's handle[, reason]) to every system monitoring
 * `sys`, in the order they asked; `reason` NULL leaves it out. */
void ona__monitor_notify(ona__core *core, ona__system *sys, const char *what, const char *reason);
/* Frees sys's list of monitors (at its end). */
void ona__monitor_free(ona__system *sys);

#endif
