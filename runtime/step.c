/*
 * step.c: the frame (ona/runtime.h): ona_runtime_step, ona_runtime_run, quitting, and the
 * trace's begin and end.
 *
 * Design note. A frame is: the boundary (the core ends, restarts and merges systems; the loop's
 * file events and the inspector are served; reloads are applied), the window's events, the turns
 * on every thread until quiescence, then the picture, the audio commands and the recording. Main
 * thread only, outside a step (ona__runtime_may_call); `in_call` is set for the step's length, so
 * a system's callback calling back into the runtime is refused.
 *
 * Fixed steps (desc.fixed_step): one ona_runtime_step runs the turns as many times as the
 * accumulator (services/time.c) says, each run a frame of the core with its own boundary,
 * frame number, clock advance, audio commands and recorded frame, then draws once. Every
 * step's picture but the last is dropped; only the first step gets the window's events. A
 * recording notes each frame's step count and alpha ('A'), and a replay groups its recorded
 * frames by them, so the systems see the same steps and alpha as when recorded.
 */
#include "inspect.h"
#include "runtime_internal.h"

#include <math.h>

/* The F3 overlay's text: the runtime's statistics (stats.c). */
size_t ona__runtime_overlay_text(void *user, double fps, uint32_t sprites, char *buf, size_t size);

/* One step: a frame of the core (boundary, reloads, events, clock, turns, audio commands, the
 * recording). The first step of an ona_runtime_step has polled the loop and the window already;
 * a later one (fixed steps) gets no new events, or a replay's recorded ones. The draws of every
 * step but the last are dropped (their settings kept), so the picture is the last step's. Returns
 * ONA_EDIVERGED when a replay's digests differ. */
static int run_step(ona_runtime *rt, double dt, bool first, bool last, const ona_event *replay,
                    uint32_t replay_count) {
    ona__core *core = &rt->core;
    ona__services *svc = &rt->services;
    if (!first) {
        ona__core_boundary(core);
        ona__runtime_apply_reloads(rt);
        ona__core_hosts_between_frames(core);
        bool closed = false;
        ona__video_step_events(&svc->video, &closed, replay, replay_count);
        if (closed)
            ona_runtime_quit(rt);
    }
    core->in_step = true;
    core->frame++;
    core->dt = dt;
    ona__services_advance_clock(svc, dt);
    uint64_t frame_start = ona__now_ns();
    ona__signals_turns(rt, true);
    ona__scheduler_run_frame(core);
    ona__signals_turns(rt, false);
    uint64_t turns_end = ona__now_ns();
    rt->turns_ns += turns_end - frame_start;
    if (rt->inspect)
        ona__inspect_turns_done(rt, frame_start, turns_end);
    ona__assets_upload(&svc->assets); /* the step's loads to the GPU, before any draw */
    if (!last)
        ona__video_drop_draws(&svc->video);
    ona__audio_frame(&svc->audio, dt); /* this step's audio commands, and its time */
    int replayed =
        ona__record_frame(&rt->record, core, dt, svc->video.events, svc->video.event_count);
    core->in_step = false;
    if (core->tracing)
        ona__trace_write_frame(core, frame_start, turns_end);
    return replayed == ONA_EDIVERGED ? ONA_EDIVERGED : 0;
}

/* Before the steps of a replayed frame: the next recorded frame's events and dt, and the
 * messages C sent before it. NULL past the recording's end. */
static const ona__rec_frame *replay_frame(ona_runtime *rt, const ona_event **events) {
    const ona__rec_frame *f = ona__replay_next(&rt->record, events);
    if (f)
        ona__replay_sends(&rt->record, &rt->core, f->frame);
    return f;
}

int ona_runtime_step(ona_runtime *rt, double dt) {
    if (!rt || !(dt >= 0) || isinf(dt))
        return ONA_EINVAL;
    ona__core *core = &rt->core;
    ona__services *svc = &rt->services;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    /* How many steps this frame runs, and their alpha: one without a fixed step; the
     * accumulator's count with one; a replay's recorded ones (and their recorded dt and events
     * in place of the devices' and the caller's). */
    uint32_t steps = 1;
    double alpha = 0;
    const ona_event *replay = NULL;
    const ona__rec_frame *f = NULL;
    if (rt->record.replaying) {
        if (rt->record.diverged_frame && !rt->record.resimulate)
            return ONA_EDIVERGED;
        if (!ona__replay_steps(&rt->record, &steps, &alpha)) {
            ona_runtime_quit(rt);
            return 0;
        }
        f = replay_frame(rt, &replay);
        dt = f->dt;
    } else if (svc->fixed_step > 0) {
        steps = ona__services_plan_steps(svc, dt, &alpha);
        if (steps == 0)
            return 0; /* no step due: no frame, the last picture stays */
        dt = svc->fixed_step;
    }
    svc->alpha = alpha;
    rt->last_steps = steps;
    rt->services.in_call = true;
    ona__signals_enter(rt);
    uint64_t t0 = ona__now_ns();
    rt->turns_ns = 0;
    ona__core_boundary(core);
    ona__loop_poll(&rt->loop); /* file events, timers: their callbacks run here, on main */
    if (rt->inspect && ona__inspect_hold(rt)) { /* paused from the inspector: no frame */
        ona__signals_leave(rt);
        rt->services.in_call = false;
        return 0;
    }
    ona__runtime_apply_reloads(rt);
    ona__core_hosts_between_frames(core);
    bool closed = false;
    ona__video_begin_frame(&svc->video, &closed, replay, f ? f->event_count : 0);
    if (closed)
        ona_runtime_quit(rt);
    if (svc->fixed_step > 0 || steps > 1)
        ona__record_steps(&rt->record, core->frame + 1, steps, alpha);
    int rc = 0;
    for (uint32_t i = 0; i < steps && rc == 0; i++) {
        if (i > 0 && rt->record.replaying) {
            f = replay_frame(rt, &replay);
            if (!f)
                break;
            dt = f->dt;
        }
        rc = run_step(rt, dt, i == 0, i + 1 == steps, replay, f ? f->event_count : 0);
    }
    if (rc == ONA_EDIVERGED)
        ona_runtime_quit(rt);
    {
        ona__overlay overlay = {ona__runtime_overlay_text, rt};
        ona__video_present(&svc->video, &overlay);
        rt->draw_ns = svc->video.swap_start_ns - svc->video.draw_start_ns;
        rt->swap_ns = svc->video.present_end_ns - svc->video.swap_start_ns;
        rt->total_draw_ns += rt->draw_ns;
        rt->total_swap_ns += rt->swap_ns;
        rt->pictures++;
        if (core->tracing)
            ona__trace_write_main(core, svc->video.draw_start_ns, svc->video.swap_start_ns,
                                  svc->video.present_end_ns);
    }
    uint64_t end = ona__now_ns();
    uint64_t ns = end - t0;
    rt->last_frame_ns = ns;
    rt->total_frame_ns += ns;
    if (ns > rt->max_frame_ns)
        rt->max_frame_ns = ns;
    if (rt->inspect)
        ona__inspect_frame_done(rt, ns, rt->draw_ns + rt->swap_ns);
    ona__signals_leave(rt);
    rt->services.in_call = false;
    return rc;
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
