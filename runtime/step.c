/*
 * step.c: the frame (ona/runtime.h): ona_runtime_step, ona_runtime_run, quitting, and the
 * trace's begin and end.
 *
 * Design note. A frame is: the boundary (the core ends, restarts and merges systems; the loop's
 * file events and the inspector are served; reloads are applied), the window's events, the turns
 * on every thread until quiescence, then the picture, the audio commands and the recording. Main
 * thread only, outside a step (ona__runtime_may_call); `in_call` is set for the step's length, so
 * a system's callback calling back into the runtime is refused.
 */
#include "inspect.h"
#include "runtime_internal.h"

#include <math.h>

/* The F3 overlay's text: the runtime's statistics (stats.c). */
size_t ona__runtime_overlay_text(void *user, double fps, uint32_t sprites, char *buf, size_t size);

int ona_runtime_step(ona_runtime *rt, double dt) {
    if (!rt || !(dt >= 0) || isinf(dt))
        return ONA_EINVAL;
    ona__core *core = &rt->core;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    /* A replay plays the recorded frame in place of the devices and of the caller's dt. */
    const ona_event *replay = NULL;
    uint32_t replay_count = 0;
    if (rt->record.replaying) {
        if (rt->record.diverged_frame && !rt->record.resimulate)
            return ONA_EDIVERGED;
        const ona__rec_frame *f = ona__replay_next(&rt->record, &replay);
        if (!f) {
            ona_runtime_quit(rt);
            return 0;
        }
        dt = f->dt;
        replay_count = f->event_count;
        ona__replay_sends(&rt->record, core, f->frame);
    }
    rt->services.in_call = true;
    ona__signals_enter(rt);
    uint64_t t0 = ona__now_ns();
    ona__core_boundary(core);
    ona__loop_poll(&rt->loop); /* file events, timers: their callbacks run here, on main */
    if (rt->inspect && ona__inspect_hold(rt)) {
        /* Paused from the inspector: no frame, but the window stays alive (polled, its close
         * seen) and shows the last frame again. */
        bool closed = false;
        ona__overlay overlay = {ona__runtime_overlay_text, rt};
        ona__video_hold_frame(&rt->services.video, &closed, &overlay);
        if (closed)
            ona_runtime_quit(rt);
        ona__signals_leave(rt);
        rt->services.in_call = false;
        return 0;
    }
    ona__runtime_apply_reloads(rt);
    ona__core_hosts_between_frames(core);
    bool closed = false;
    ona__video_begin_frame(&rt->services.video, &closed, replay, replay_count);
    if (closed)
        ona_runtime_quit(rt);
    core->in_step = true;
    core->frame++;
    core->dt = dt;
    ona__services_advance_clock(&rt->services, dt);
    uint64_t frame_start = ona__now_ns();
    ona__signals_turns(rt, true);
    ona__scheduler_run_frame(core);
    ona__signals_turns(rt, false);
    uint64_t turns_end = ona__now_ns();
    if (rt->inspect)
        ona__inspect_turns_done(rt, frame_start, turns_end);
    ona__overlay overlay = {ona__runtime_overlay_text, rt};
    ona__assets_upload(&rt->services.assets); /* the frame's loads to the GPU, before its draw */
    ona__video_present(&rt->services.video, &overlay);
    uint64_t presented = ona__now_ns();
    ona__audio_frame(&rt->services.audio, dt); /* the frame's audio commands, and its time */
    int replayed = ona__record_frame(&rt->record, core, dt, rt->services.video.events,
                                     rt->services.video.event_count);
    if (replayed == ONA_EDIVERGED)
        ona_runtime_quit(rt);
    core->in_step = false;
    uint64_t end = ona__now_ns();
    if (core->tracing)
        ona__trace_write_frame(core, frame_start, end);
    uint64_t ns = end - t0;
    rt->last_frame_ns = ns;
    rt->total_frame_ns += ns;
    if (ns > rt->max_frame_ns)
        rt->max_frame_ns = ns;
    if (rt->inspect)
        ona__inspect_frame_done(rt, ns, presented - turns_end);
    ona__signals_leave(rt);
    rt->services.in_call = false;
    return replayed == ONA_EDIVERGED ? ONA_EDIVERGED : 0;
}

/* Whether any system can still take a turn (running, restarting, or spawned and pending). */
static bool has_live_systems(ona_runtime *rt) {
    if (ona__core_pending_count(&rt->core))
        return true;
    for (uint32_t i = 0; i < rt->core.system_count; i++)
        if (rt->core.systems[i]->status != ONA_SYSTEM_STOPPED)
            return true;
    return false;
}

int ona_runtime_run(ona_runtime *rt, uint64_t max_frames, double fixed_dt) {
    if (!rt || isnan(fixed_dt) || isinf(fixed_dt))
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    for (uint64_t n = 0; max_frames == 0 || n < max_frames; n++) {
        if (ona_runtime_quit_requested(rt))
            break;
        if (n > 0 && !has_live_systems(rt)) {
            ona_log(ONA_LOG_INFO, "runtime", "no system is left running; stopping");
            break;
        }
        /* Without a step of its own the run keeps the runtime's time rules. */
        double dt = fixed_dt > 0 ? fixed_dt : ona_runtime_frame_dt(rt);
        int rc = ona_runtime_step(rt, dt);
        if (rc)
            return rc;
    }
    return 0;
}

bool ona_runtime_quit_requested(const ona_runtime *rt) {
    /* relaxed: a flag polled once a frame. */
    return rt && atomic_load_explicit(&rt->core.quit, memory_order_relaxed);
}

void ona_runtime_quit(ona_runtime *rt) {
    if (rt)
        ona__core_quit(&rt->core);
}

int ona_runtime_trace_begin(ona_runtime *rt, const char *path) {
    if (!rt || !path || !*path)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    return ona__trace_begin(&rt->core, path);
}

int ona_runtime_trace_end(ona_runtime *rt) {
    if (!rt)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    return ona__trace_end(&rt->core);
}
