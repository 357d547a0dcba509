/*
 * lifecycle.c: a system's life in the core: spawn, failure (restart after a backoff, or stop),
 * kill, and its end at a frame boundary.
 *
 * Design note.
 *  - Spawning may happen on any thread (a system calling ona.spawn). The new system is registered
 *    at once (registry.c: it has a handle and can be messaged immediately) and put on the pending
 *    list; main merges pending systems into the spawn-ordered `systems` array at the next
 *    boundary, so they get their first turn in the next frame. A host registers a system before
 *    running anything of it, so a script's chunk that spawns up to the limit cannot take its own
 *    place.
 *  - The frame boundary (main, no turn running) is the only place a system ends. A system ends
 *    when it was killed, when it stopped (past its failure policy, or a one-shot whose chunk
 *    ran), or when its host could not start it. Ending one means, in this order and for every
 *    ending system before any is freed: taking it off the waiter list of the system it was
 *    parked sending to; failing every sender parked on its full mailbox (their ona.send raises,
 *    naming it); retiring its handle (stale for good; the registry keeps its name for error
 *    texts until the slot is reused); then releasing its queued messages (logged with a count)
 *    and freeing it. So a slot is free again one boundary after its system ends, and nothing
 *    can still point at a freed system.
 *  - Restart backoff doubles: restart_backoff_frames << restarts.
 *  - Monitors (monitor.c) are told here, where each change is applied: "paused" and "ended"
 *    (with why) when a failure or an end is applied, "restarted" when the fresh state is made,
 *    "resumed" by ona__core_resume.
 *  - Edit and continue. While files are watched (desc.pause_on_failure) a failed Lua system is
 *    paused instead, whatever its policy: its state and mailbox are kept, it gets no turns
 *    (queue_frame runs RUNNING systems only), senders still queue into its mailbox. Under ordered
 *    delivery a paused or restarting system is held (delivery.c): its senders never wait on it.
 *    Under immediate delivery they park when it is full (a paused system is not parked, so a
 *    sender waiting on it is never part of a deadlock cycle and simply stays parked).
 *    A successful reload of any of its files resumes it (ona__core_resume) with a new turn. The
 *    host logs "<name> paused: <first line of the error>; save a fix to resume" when the turn
 *    fails (it has the error text). Native systems cannot load new code and keep their policy.
 */
#include "core.h"

#include <stdio.h>
#include <unistd.h>

bool ona__core_on_main(const ona__core *core) {
    uv_thread_t self = uv_thread_self();
    return uv_thread_equal(&self, &core->main_thread);
}

int ona__core_init(ona__core *core, const ona__core_desc *desc) {
    memset(core, 0, sizeof *core);
    core->desc = *desc;
    core->main_thread = uv_thread_self();
    atomic_init(&core->spawn_seq, 0);
    atomic_init(&core->outside_spawns, 0);
    atomic_init(&core->quit, false);
    uint32_t max = desc->max_systems;
    int rc = ona__registry_init(&core->registry, max);
    if (rc)
        return rc;
    core->pending = ona__calloc(max, sizeof *core->pending);
    core->systems = ona__calloc(max, sizeof *core->systems);
    core->ending = ona__calloc(max, sizeof *core->ending);
    core->pending_capacity = core->system_capacity = max;
    if (!core->pending || !core->systems || !core->ending || uv_mutex_init(&core->pending_lock)) {
        ona__free(core->pending);
        ona__free(core->systems);
        ona__free(core->ending);
        ona__registry_free(&core->registry);
        return ONA_ENOMEM;
    }
    if (uv_mutex_init(&core->monitor_lock)) {
        rc = ONA_ENOMEM;
    } else {
        rc = ona__scheduler_start(core);
        if (rc) {
            ona__scheduler_stop(core);
            uv_mutex_destroy(&core->monitor_lock);
        }
    }
    if (rc) {
        uv_mutex_destroy(&core->pending_lock);
        ona__free(core->pending);
        ona__free(core->systems);
        ona__free(core->ending);
        ona__registry_free(&core->registry);
    }
    return rc;
}

static void system_free(ona__system *sys) {
    ona_message_release(&sys->outgoing);
    ona_message_release(&sys->inbox);
    ona__retake_free(sys);
    ona__stage_free(&sys->stage);
    ona__tally_free(&sys->tally);
    ona__free(sys->after);
    ona__free(sys->order_direct);
    ona__free(sys->order_succ);
    ona__monitor_free(sys);
    ona__free(sys->detail_text);
    ona__free(sys->draw_saved);
    ona__mailbox_destroy(sys->mailbox);
    uv_mutex_destroy(&sys->waiters_lock);
    ona__free(sys);
}

/* exit runs only for a system whose init ran and which did not stop by failing. */
static void destroy(ona__system *sys) {
    bool run_exit = !sys->needs_init && sys->status != ONA_SYSTEM_STOPPED;
    sys->host->destroy(sys, run_exit);
    system_free(sys);
}

void ona__core_free(ona__core *core) {
    ona__scheduler_stop(core);
    /* Every handle is retired before any exit runs, so an exit that sends to another system gets
     * a stale handle rather than a freed system; systems an exit spawns are freed in turn. */
    for (ona__core_merge_pending(core); core->system_count; ona__core_merge_pending(core)) {
        for (uint32_t i = 0; i < core->system_count; i++)
            ona__registry_remove(&core->registry, core->systems[i]->id);
        for (uint32_t i = 0; i < core->system_count; i++)
            destroy(core->systems[i]);
        core->system_count = 0;
    }
    uv_mutex_destroy(&core->pending_lock);
    uv_mutex_destroy(&core->monitor_lock);
    ona__free(core->pending);
    ona__free(core->systems);
    ona__free(core->ending);
    ona__registry_free(&core->registry);
    ona__order_free(&core->order);
}

/* --- Spawning -------------------------------------------------------------------------------- */

static _Thread_local ona__system *tls_running;

ona__system *ona__core_running(void) {
    return tls_running;
}

ona__system *ona__core_enter(ona__system *sys) {
    ona__system *previous = tls_running;
    tls_running = sys;
    return previous;
}

void ona__core_leave(ona__system *previous) {
    tls_running = previous;
}

int ona__core_spawn(ona__core *core, const ona__spawn *spawn, ona__system **out, char *err,
                    size_t errsize) {
    ona__system *sys = ona__calloc(1, sizeof *sys);
    if (!sys) {
        snprintf(err, errsize, "%s", ona_strerror(ONA_ENOMEM));
        return ONA_ENOMEM;
    }
    sys->core = core;
    ona__draw_frame_reset(&sys->draw);
    snprintf(sys->name, sizeof sys->name, "%s", spawn->name ? spawn->name : "");
    sys->order_index = ONA__ORDER_NONE;
    if (spawn->after_count) {
        int orc = ona__order_check(core, sys->name, spawn->after, spawn->after_count, err,
                                   errsize);
        if (orc == 0) {
            sys->after = ona__malloc((size_t)spawn->after_count * sizeof *sys->after);
            if (sys->after) {
                memcpy(sys->after, spawn->after, (size_t)spawn->after_count * sizeof *sys->after);
                sys->after_count = spawn->after_count;
            } else {
                orc = ONA_ENOMEM;
                snprintf(err, errsize, "%s", ona_strerror(orc));
            }
        }
        if (orc) {
            ona__free(sys);
            return orc;
        }
    }
    sys->host = spawn->host;
    sys->host_data = spawn->host_data;
    sys->needs_init = true;
    sys->policy = spawn->policy ? spawn->policy : core->desc.default_policy;
    sys->restart_limit = spawn->restart_limit ? spawn->restart_limit : core->desc.restart_limit;
    atomic_init(&sys->run, ONA__RUN_IDLE);
    atomic_init(&sys->waiter_count, 0);
    atomic_init(&sys->kill_requested, false);
    ona_message_init(&sys->outgoing);
    ona_message_init(&sys->inbox);
    if (ona__stage_init(&sys->stage, 0)) {
        ona__free(sys->after);
        ona__free(sys);
        snprintf(err, errsize, "%s", ona_strerror(ONA_ENOMEM));
        return ONA_ENOMEM;
    }
    int rc = ona__mailbox_create(spawn->mailbox_capacity ? spawn->mailbox_capacity
                                                         : core->desc.mailbox_capacity,
                                 &sys->mailbox);
    if (rc == 0 && uv_mutex_init(&sys->waiters_lock) != 0) {
        ona__mailbox_destroy(sys->mailbox);
        rc = ONA_ENOMEM;
    }
    if (rc) {
        ona__stage_free(&sys->stage);
        ona__free(sys->after);
        ona__free(sys);
        snprintf(err, errsize, "%s", ona_strerror(rc));
        return rc;
    }
    sys->pops_per_check = ona__mailbox_capacity(sys->mailbox) / 2;
    sys->stage.capacity = ona__mailbox_capacity(sys->mailbox);
    sys->spawn_parent = tls_running && tls_running->core == core ? tls_running : NULL;
    /* relaxed: a count; spawns from outside are as ordered as their caller makes them. */
    sys->spawn_nth = sys->spawn_parent ? sys->spawn_parent->children++
                                       : atomic_fetch_add_explicit(&core->outside_spawns, 1,
                                                                   memory_order_relaxed);
    /* The pending lock is taken first so that spawn order and pending order agree. */
    uv_mutex_lock(&core->pending_lock);
    rc = ona__registry_insert(&core->registry, sys, sys->name, &sys->id);
    if (rc == 0) {
        /* relaxed: a sequence number only needs to be unique and increasing. */
        sys->spawn_order = atomic_fetch_add_explicit(&core->spawn_seq, 1, memory_order_relaxed);
        core->pending[core->pending_count++] = sys;
    }
    uv_mutex_unlock(&core->pending_lock);
    if (rc) {
        system_free(sys);
        if (rc == ONA_ELIMIT)
            snprintf(err, errsize,
                     "cannot spawn '%s': max_systems (%u) systems exist; raise max_systems in "
                     "ona_runtime_desc (the launcher's --max-systems)",
                     spawn->name ? spawn->name : "", core->desc.max_systems);
        else
            snprintf(err, errsize, "%s", ona_strerror(rc));
        return rc;
    }
    *out = sys;
    return 0;
}

int ona__core_add_host(ona__core *core, int slot, const ona__host *host) {
    core->hosts[slot] = host;
    return host->prepare ? host->prepare(core, &core->host_state[slot]) : 0;
}

void ona__core_hosts_between_frames(ona__core *core) {
    for (int i = 0; i < ONA__HOST_SLOTS; i++)
        if (core->hosts[i] && core->hosts[i]->between_frames)
            core->hosts[i]->between_frames(core, core->host_state[i]);
}

void ona__core_release_hosts(ona__core *core) {
    for (int i = 0; i < ONA__HOST_SLOTS; i++) {
        if (core->hosts[i] && core->hosts[i]->release)
            core->hosts[i]->release(core, core->host_state[i]);
        core->hosts[i] = NULL;
        core->host_state[i] = NULL;
    }
}

void ona__core_abandon(ona__core *core, ona__system *sys) {
    (void)core;
    sys->status = ONA_SYSTEM_STOPPED;
    /* relaxed: read by main at the frame boundary, after the frame's synchronisation. */
    atomic_store_explicit(&sys->kill_requested, true, memory_order_relaxed);
}

uint32_t ona__core_pending_count(ona__core *core) {
    uv_mutex_lock(&core->pending_lock);
    uint32_t n = core->pending_count;
    uv_mutex_unlock(&core->pending_lock);
    return n;
}

/* Pending systems whose spawner is merged (or none) sort by (spawner's spawn order, outside
 * spawns first; their number among its children). */
static int cmp_spawn_key(const void *a, const void *b) {
    const ona__system *x = *(ona__system *const *)a, *y = *(ona__system *const *)b;
    uint64_t px = x->spawn_parent ? (uint64_t)x->spawn_parent->spawn_order + 1 : 0;
    uint64_t py = y->spawn_parent ? (uint64_t)y->spawn_parent->spawn_order + 1 : 0;
    if (px != py)
        return px < py ? -1 : 1;
    return x->spawn_nth < y->spawn_nth ? -1 : (x->spawn_nth > y->spawn_nth ? 1 : 0);
}

/* Spawn orders are given here, not at the spawn: systems spawning on several threads in one
 * frame would otherwise number their children in the order the threads got there. Rounds: the
 * children of merged spawners (or of none) first, then theirs, and so on; the values come from
 * the same counter as before, which every spawn moves once, so they too are the same every run. */
void ona__core_merge_pending(ona__core *core) {
    uv_mutex_lock(&core->pending_lock);
    uint32_t left = core->pending_count;
    while (left) {
        uint32_t ready = 0;
        for (uint32_t i = 0; i < left; i++) {
            ona__system *s = core->pending[i];
            if (!s->spawn_parent || s->spawn_parent->merged) {
                core->pending[i] = core->pending[ready];
                core->pending[ready++] = s;
            }
        }
        if (ready == 0) { /* cannot happen (a spawner is registered before its children) */
            for (uint32_t i = 0; i < left; i++)
                core->pending[i]->spawn_parent = NULL;
            continue;
        }
        qsort(core->pending, ready, sizeof *core->pending, cmp_spawn_key);
        for (uint32_t i = 0; i < ready; i++) {
            ona__system *s = core->pending[i];
            /* relaxed: main between frames (or under the pending lock). */
            s->spawn_order = atomic_fetch_add_explicit(&core->spawn_seq, 1, memory_order_relaxed);
            s->merged = true;
            core->systems[core->system_count++] = s;
        }
        memmove(core->pending, core->pending + ready, (size_t)(left - ready) * sizeof *core->pending);
        left -= ready;
    }
    for (uint32_t i = core->system_count - core->pending_count; i < core->system_count; i++)
        core->systems[i]->spawn_parent = NULL; /* only read here */
    if (core->pending_count)
        core->order.dirty = true;
    core->pending_count = 0;
    uv_mutex_unlock(&core->pending_lock);
}

/* --- The frame boundary ---------------------------------------------------------------------- */

bool ona__core_pauses(const ona__core *core, const ona__system *sys) {
    return core->desc.pause_on_failure && !sys->one_shot && sys->host->reload != NULL;
}

bool ona__core_resume(ona__core *core, ona__system *sys) {
    if (sys->status != ONA_SYSTEM_PAUSED)
        return false;
    /* apply_failure left it idle with no turn in progress: queue_frame starts a new one. Its
     * senders stay held until that turn has gathered what they queued (delivery.c). */
    sys->status = ONA_SYSTEM_RUNNING;
    ona_log(ONA_LOG_INFO, "hot reload", "%s resumed with its state kept", sys->name);
    ona__monitor_notify(core, sys, "resumed", NULL);
    return true;
}

/* The length of the "file:line" an error text starts with ("ball.lua:42: ..."), or 0. */
static size_t location_length(const char *text) {
    for (const char *p = strchr(text, ':'); p; p = strchr(p + 1, ':')) {
        const char *d = p + 1;
        while (*d >= '0' && *d <= '9')
            d++;
        if (d > p + 1 && *d == ':')
            return (size_t)(d - text);
    }
    return 0;
}

void ona__core_stall_reason(const ona__system *sys, uint64_t since, char *out, size_t size) {
    const ona__core *core = sys->core;
    /* relaxed: main between frames, or a sender while `sys` cannot run (held). */
    int run = atomic_load_explicit(&sys->run, memory_order_relaxed);
    if (sys->status == ONA_SYSTEM_PAUSED) {
        size_t at = location_length(sys->fail_reason);
        if (at)
            snprintf(out, size, "is paused by an error at %.*s (save a fix to resume it)", (int)at,
                     sys->fail_reason);
        else
            snprintf(out, size, "is paused by an error (%s; save a fix to resume it)",
                     sys->fail_reason);
    } else if (sys->status == ONA_SYSTEM_RESTARTING) {
        uint64_t left = sys->restart_frame > core->frame ? sys->restart_frame - core->frame : 0;
        snprintf(out, size, "is restarting after an error (in %llu frame%s)",
                 (unsigned long long)left, left == 1 ? "" : "s");
    } else if (run == ONA__RUN_PARKED_SEND) {
        ona__system *next = ona__actor_resolve((ona__core *)core, sys->send_target);
        snprintf(out, size, "is itself waiting to send to '%s'",
                 next ? next->name : "a system that has ended");
    } else if (sys->receive_frame == 0) {
        snprintf(out, size, "never receives (none of its turns has asked for a message)");
    } else if (since && sys->receive_frame < since) {
        snprintf(out, size, "has not asked for a message since frame %llu",
                 (unsigned long long)sys->receive_frame);
    } else {
        snprintf(out, size, "takes fewer messages a frame than it is sent (%llu taken in all)",
                 (unsigned long long)sys->messages_in);
    }
}

/* Under ordered delivery, sends to a paused or restarting system are held (delivery.c),
 * bounded by its memory cap. */
static void hold(ona__core *core, ona__system *sys) {
    if (core->desc.immediate)
        return;
    size_t used = 0, peak = 0, cap = 0;
    sys->host->memory(sys, &used, &peak, &cap);
    ona__delivery_hold(sys, cap == 0 || cap == SIZE_MAX ? ONA__HOLD_BOUND_DEFAULT : cap);
}

static void apply_failure(ona__core *core, ona__system *sys) {
    sys->failed = false;
    sys->turn_active = false;
    /* relaxed: main between frames owns every system. */
    atomic_store_explicit(&sys->run, ONA__RUN_IDLE, memory_order_relaxed);
    if (ona__core_pauses(core, sys)) {
        /* Its outgoing message (a failed send's) is dropped; its mailbox and waiters are kept. */
        ona_message_release(&sys->outgoing);
        sys->status = ONA_SYSTEM_PAUSED;
        hold(core, sys);
        ona__monitor_notify(core, sys, "paused", sys->fail_reason);
        return;
    }
    if (sys->policy == ONA_POLICY_STOP || sys->restarts >= sys->restart_limit) {
        sys->status = ONA_SYSTEM_STOPPED;
        const char *why = sys->policy == ONA_POLICY_STOP ? "its policy is stop"
                                                         : "it failed past its restart limit";
        ona_log(ONA_LOG_ERROR, sys->name, "stopped (%s)", why);
        snprintf(sys->end_reason, sizeof sys->end_reason, "stopped (%s): %.*s", why,
                 (int)(sizeof sys->end_reason - 48), sys->fail_reason);
        return;
    }
    uint64_t backoff = (uint64_t)core->desc.restart_backoff_frames << ONA_MIN(sys->restarts, 16u);
    hold(core, sys);
    sys->status = ONA_SYSTEM_RESTARTING;
    sys->restart_frame = core->frame + backoff;
    ona_log(ONA_LOG_WARN, sys->name, "restarting in %llu frame%s (restart %u of %u)",
            (unsigned long long)backoff, backoff == 1 ? "" : "s", sys->restarts + 1,
            sys->restart_limit);
}

static void restart(ona__core *core, ona__system *sys) {
    sys->restarts++;
    ona_message_release(&sys->outgoing);
    sys->turn_active = false;
    sys->needs_init = true;
    sys->failed = false;
    if (sys->host->restart(sys) != 0) {
        sys->status = ONA_SYSTEM_STOPPED;
        snprintf(sys->end_reason, sizeof sys->end_reason, "its restart failed");
        return;
    }
    sys->status = ONA_SYSTEM_RUNNING;
    ona__monitor_notify(core, sys, "restarted", sys->fail_reason);
}

/* First half of an end: its monitors told, off every list, its waiters failed, its handle
 * retired. */
static void unlink_ending(ona__core *core, ona__system *sys, bool killed) {
    const char *reason = killed ? "killed"
                         : sys->end_reason[0] ? sys->end_reason
                         : sys->one_shot      ? "its script ran to its end (a one-shot)"
                                              : "stopped";
    ona__monitor_notify(core, sys, "ended", reason);
    /* relaxed: main between frames owns every system. */
    if (atomic_load_explicit(&sys->run, memory_order_relaxed) == ONA__RUN_PARKED_SEND) {
        ona__system *target = ona__actor_resolve(core, sys->send_target);
        if (target)
            ona__actor_waiters_remove(target, sys);
    }
    ona__system *w;
    while ((w = sys->waiters_head) != NULL) {
        ona__actor_waiters_remove(sys, w);
        snprintf(w->wait_error, sizeof w->wait_error,
                 "system '%s' %s while this one waited for room in its mailbox; the message was "
                 "not sent",
                 sys->name, killed ? "was killed" : "stopped");
        ona__runq_wake(core, w, ONA__RUN_PARKED_SEND, ONA__RESUME_SEND_FAILED);
    }
    ona__registry_remove(&core->registry, sys->id);
}

/* Second half: its queued messages released (counted in the log), then freed. */
static void free_ended(ona__core *core, ona__system *sys) {
    ona__free(sys->fail_log);
    sys->fail_log = NULL;
    ona_message m;
    ona_message_init(&m);
    uint32_t dropped = 0;
    while (ona__mailbox_pop(sys->mailbox, &m) == 0) {
        ona_message_release(&m);
        dropped++;
    }
    dropped += ona__stage_free(&sys->stage);
    if (dropped)
        ona_log(ONA_LOG_WARN, sys->name, "%u queued message%s released: the system ended",
                dropped, dropped == 1 ? "" : "s");
    core->messages += sys->messages_out;
    destroy(sys);
}

void ona__core_boundary(ona__core *core) {
    ona__core_merge_pending(core);
    uint32_t kept = 0, ending = 0;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        /* relaxed: set during the frame; the frame's end synchronised with every turn. */
        bool killed = atomic_load_explicit(&sys->kill_requested, memory_order_relaxed);
        if (!killed) {
            if (sys->failed)
                apply_failure(core, sys);
            if (sys->status == ONA_SYSTEM_RESTARTING && core->frame >= sys->restart_frame)
                restart(core, sys);
        }
        if (killed || sys->status == ONA_SYSTEM_STOPPED) {
            unlink_ending(core, sys, killed);
            core->ending[ending++] = sys;
            continue;
        }
        core->systems[kept++] = sys;
    }
    core->system_count = kept;
    if (ending)
        core->order.dirty = true;
    /* Every unlink happened before any free, so no list holds a freed system. */
    for (uint32_t i = 0; i < ending; i++)
        free_ended(core, core->ending[i]);
    if (!core->desc.immediate)
        ona__delivery_boundary(core);
}

const char *ona__core_check_spawn(const char *name, uint32_t mailbox_capacity,
                                  ona_failure_policy policy) {
    if (name && strlen(name) > ONA_MAX_NAME_BYTES)
        return "the name is longer than ONA_MAX_NAME_BYTES (63) bytes";
    if (mailbox_capacity > ONA_MAX_MAILBOX_CAPACITY)
        return "mailbox_capacity is over ONA_MAX_MAILBOX_CAPACITY (16777216)";
    if ((unsigned)policy > ONA_POLICY_STOP)
        return "policy is not DEFAULT, RESTART or STOP";
    return NULL;
}

static bool can_take_messages(void *obj, void *ud) {
    (void)ud;
    return ona__actor_alive(obj);
}

uint64_t ona__core_lookup(ona__core *core, const char *name) {
    return ona__registry_lookup(&core->registry, name, can_take_messages, NULL);
}

void ona__core_quit(ona__core *core) {
    /* relaxed: a flag polled once a frame. */
    atomic_store_explicit(&core->quit, true, memory_order_relaxed);
}
