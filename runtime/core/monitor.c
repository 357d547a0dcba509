/*
 * monitor.c: monitors. A system monitoring another is sent a notice each time the other pauses,
 * resumes, restarts or ends: an ordinary message whose sender is ONA_SENDER_RUNTIME, holding
 * ("paused", handle, reason), ("resumed", handle), ("restarted", handle, reason) or ("ended",
 * handle, reason).
 *
 * Design note.
 *  - Lists. Each system keeps the handles of the systems monitoring it, in the order they asked,
 *    each once, under the core's monitor_lock (ona.monitor runs in turns, on any thread). Main
 *    reads them between frames.
 *  - Notices are made by main between frames, where each change is applied (lifecycle.c, and
 *    the resume after a reload), so they are made in the boundary's order: systems in spawn
 *    order, the same on every run. Under ordered delivery each goes through
 *    ona__delivery_notice: stamped like a message from C of the frame that has just ended, it
 *    arrives at the receiver's next turn in the canonical order, and backpressure never refuses
 *    it (the overflow takes it when the cells are full). Under immediate delivery it is pushed
 *    into the mailbox; one that finds the mailbox full is dropped with a warning naming both.
 *  - A monitor whose handle no longer resolves (it ended) leaves the list when the next notice
 *    finds it. Monitoring a handle that has already ended sends "ended" at once.
 */
#include "core.h"

#include <stdio.h>
#include <string.h>

/* Sends one notice about `about` to `to`. */
static void notice(ona__core *core, ona__system *to, const char *what, uint64_t about,
                   const char *about_name, const char *reason) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, what, strlen(what));
    ona_message_write_number(&w, (double)about);
    if (reason)
        ona_message_write_string(&w, reason, strlen(reason));
    int rc = ona_message_writer_end(&w);
    if (rc == 0) {
        m.sender = ONA_SENDER_RUNTIME;
        rc = core->desc.immediate ? ona__mailbox_push(to->mailbox, &m)
                                  : ona__delivery_notice(core, to, &m);
    }
    if (rc) {
        ona_message_release(&m);
        ona_log(ONA_LOG_WARN, "runtime", "the \"%s\" notice about '%s' to '%s' was dropped: %s",
                what, about_name, to->name,
                rc == ONA_EFULL ? "its mailbox is full" : ona_strerror(rc));
    }
}

int ona__monitor_add(ona__core *core, ona__system *watcher, uint64_t target_id) {
    ona__system *target = ona__actor_resolve(core, target_id);
    if (!target) {
        char name[64] = "?", reason[128] = "the handle is stale or was never valid";
        if (ona__registry_dead_name(&core->registry, target_id, name, sizeof name))
            snprintf(reason, sizeof reason, "'%s' had ended before it was monitored", name);
        notice(core, watcher, "ended", target_id, name, reason);
        return 0;
    }
    int rc = 0;
    uv_mutex_lock(&core->monitor_lock);
    bool known = false;
    for (uint32_t i = 0; i < target->monitor_count && !known; i++)
        known = target->monitors[i] == watcher->id;
    if (!known && target->monitor_count == target->monitor_cap) {
        uint32_t cap = target->monitor_cap ? 2 * target->monitor_cap : 4;
        uint64_t *p = ona__realloc(target->monitors, (size_t)cap * sizeof *p);
        if (p) {
            target->monitors = p;
            target->monitor_cap = cap;
        } else {
            rc = ONA_ENOMEM;
        }
    }
    if (!known && rc == 0)
        target->monitors[target->monitor_count++] = watcher->id;
    uv_mutex_unlock(&core->monitor_lock);
    return rc;
}

void ona__monitor_notify(ona__core *core, ona__system *sys, const char *what, const char *reason) {
    uv_mutex_lock(&core->monitor_lock);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < sys->monitor_count; i++) {
        ona__system *to = ona__actor_resolve(core, sys->monitors[i]);
        if (!to || !ona__actor_alive(to))
            continue; /* the monitor has ended, or ends at this boundary */
        sys->monitors[kept++] = sys->monitors[i];
        notice(core, to, what, sys->id, sys->name, reason);
    }
    sys->monitor_count = kept;
    uv_mutex_unlock(&core->monitor_lock);
}

void ona__monitor_free(ona__system *sys) {
    ona__free(sys->monitors);
    sys->monitors = NULL;
    sys->monitor_count = sys->monitor_cap = 0;
}
