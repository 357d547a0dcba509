/*
 * stats.c: the runtime's statistics (ona_runtime_stats_get, ona_runtime_system_stats,
 * ona_runtime_systems) and the F3 overlay's text, which shows the same figures as --stats.
 * Main thread, between frames (the overlay's text is asked for by present, after the turns, so it
 * uses the unchecked halves: the public functions refuse to run inside a step). The overlay lists
 * paused systems first (they wait for a fix) with the systems waiting to send to them; every
 * turn has ended when it is drawn, so the waiter lists are quiet.
 */
#include "runtime_internal.h"

#include <stdio.h>

/* The figures themselves, for the public functions (after their checks) and for the overlay,
 * which asks from inside ona_runtime_step (main, after the turns). */
static void runtime_stats(ona_runtime *rt, ona_runtime_stats *out) {
    memset(out, 0, sizeof *out);
    out->frames = rt->core.frame;
    out->last_frame_ns = rt->last_frame_ns;
    out->max_frame_ns = rt->max_frame_ns;
    out->total_frame_ns = rt->total_frame_ns;
    out->threads = rt->core.thread_count;
    out->pictures = rt->pictures;
    out->last_draw_ns = rt->draw_ns;
    out->last_present_ns = rt->swap_ns;
    out->total_draw_ns = rt->total_draw_ns;
    out->total_present_ns = rt->total_swap_ns;
    out->last_steps = rt->last_steps;
    for (uint32_t i = 0; i < rt->core.system_count; i++) {
        ona__system *sys = rt->core.systems[i];
        if (sys->status != ONA_SYSTEM_STOPPED)
            out->systems++;
        out->turns += sys->turns;
        out->messages += sys->messages_out;
    }
    /* Spawned during the last frame and not merged yet: alive, and about to run. */
    out->systems += ona__core_pending_count(&rt->core);
    out->messages += rt->core.messages;
    for (uint32_t i = 0; i < rt->core.thread_count; i++)
        out->steals += rt->core.workers[i].steals;
    out->deadlocks = rt->core.deadlocks;
    if (rt->services.assets_ready)
        out->assets = ona__assets_count(&rt->services.assets);
    if (rt->services.video_ready) {
        out->textures = ona__textures_live(&rt->services.video.textures);
        /* main, between frames: no turn makes one now */
        out->canvases = rt->services.video.textures.canvases;
        out->atlas_bytes = ona__fonts_atlas_bytes(rt->services.video.fonts);
    }
    if (rt->services.audio_ready)
        out->sounds = ona__sounds_live(&rt->services.audio.sounds);
}

int ona_runtime_stats_get(ona_runtime *rt, ona_runtime_stats *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    runtime_stats(rt, out);
    return 0;
}

int ona__runtime_system_stats(ona_runtime *rt, ona_system system, ona_system_stats *out) {
    ona__system *sys = ona__actor_resolve(&rt->core, system.id);
    if (!sys)
        return ONA_ESTALE;
    memset(out, 0, sizeof *out);
    out->handle = system;
    snprintf(out->name, sizeof out->name, "%s", sys->name);
    out->status = sys->status;
    out->native = sys->host == rt->core.hosts[ONA__HOST_NATIVE];
    out->spawn_order = sys->spawn_order;
    out->turns = sys->turns;
    out->turn_ns_total = sys->turn_ns_total;
    out->last_turn_ns = sys->last_turn_ns;
    out->max_turn_ns = sys->max_turn_ns;
    out->parks = sys->parks;
    out->messages_in = sys->messages_in;
    out->messages_out = sys->messages_out;
    ona__mailbox_stats ms;
    ona__mailbox_stats_get(sys->mailbox, &ms);
    out->mailbox_size =
        sys->core->desc.immediate ? ona__mailbox_size(sys->mailbox) : ona__delivery_backlog(sys);
    out->order_place = sys->order_place;
    out->order_wait_ns = sys->order_wait_ns;
    out->mailbox_capacity = ms.capacity;
    out->mailbox_high_water = ms.high_water;
    /* relaxed: a statistic. */
    out->mailbox_full = ms.full + atomic_load_explicit(&sys->stage.refused, memory_order_relaxed);
    sys->host->memory(sys, &out->memory, &out->memory_peak, &out->memory_cap);
    out->restarts = sys->restarts;
    out->errors = sys->errors;
    return 0;
}

int ona_runtime_system_stats(ona_runtime *rt, ona_system system, ona_system_stats *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    return ona__runtime_system_stats(rt, system, out);
}

uint32_t ona_runtime_systems(ona_runtime *rt, ona_system *out, uint32_t max) {
    if (!rt || (!out && max) || !ona__runtime_may_call(rt))
        return 0;
    for (uint32_t i = 0; i < rt->core.system_count && i < max; i++)
        out[i].id = rt->core.systems[i]->id;
    return rt->core.system_count;
}

size_t ona__runtime_overlay_text(void *user, double fps, uint32_t sprites, char *text, size_t size);

size_t ona__runtime_overlay_text(void *user, double fps, uint32_t sprites, char *text,
                                 size_t size) {
    ona_runtime *rt = user;
    ona_runtime_stats st;
    runtime_stats(rt, &st);
    int len = snprintf(text, size,
                       "%.0f fps  frame %.2f ms\n%u systems  %u threads\n%llu messages  %u sprites",
                       fps, (double)rt->last_frame_ns / 1e6, st.systems, st.threads,
                       (unsigned long long)st.messages, sprites);
    /* Paused systems, and who waits to send to them (the first two names). */
    for (uint32_t i = 0; i < rt->core.system_count && len > 0 && (size_t)len + 200 < size; i++) {
        ona__system *sys = rt->core.systems[i];
        if (sys->status != ONA_SYSTEM_PAUSED)
            continue;
        len += snprintf(text + len, size - (size_t)len, "\nPAUSED %s (save a fix): %u queued",
                        sys->name,
                        rt->core.desc.immediate ? ona__mailbox_size(sys->mailbox)
                                                : ona__delivery_backlog(sys));
        uv_mutex_lock(&sys->waiters_lock);
        uint32_t waiting = 0;
        for (ona__system *w = sys->waiters_head; w; w = w->next_waiter, waiting++)
            if (waiting < 2 && len > 0 && (size_t)len + 100 < size)
                len += snprintf(text + len, size - (size_t)len, "%s%s",
                                waiting ? ", " : ", waiting: ", w->name);
        if (waiting > 2 && len > 0 && (size_t)len + 40 < size)
            len += snprintf(text + len, size - (size_t)len, " (+%u)", waiting - 2);
        uv_mutex_unlock(&sys->waiters_lock);
    }
    if (len > 0 && (size_t)len + 64 < size)
        len += snprintf(text + len, size - (size_t)len,
                        "\nsystem            turn us    in   out  mailbox   KB");
    /* The same per-system figures as --stats, for the first systems in spawn order. */
    for (uint32_t i = 0, shown = 0;
         i < rt->core.system_count && shown < 12 && len > 0 && (size_t)len + 96 < size; i++) {
        ona_system_stats s;
        if (ona__runtime_system_stats(rt, (ona_system){rt->core.systems[i]->id}, &s) != 0 ||
            s.status == ONA_SYSTEM_STOPPED)
            continue;
        len +=
            snprintf(text + len, size - (size_t)len, "\n%-16.16s %8.1f %5llu %5llu %4u/%-4u %4.0f",
                     s.name, (double)s.last_turn_ns / 1e3, (unsigned long long)s.messages_in,
                     (unsigned long long)s.messages_out, s.mailbox_high_water, s.mailbox_capacity,
                     (double)s.memory / 1024.0);
        shown++;
    }
    return len > 0 ? ONA_MIN((size_t)len, size - 1) : 0;
}
