/*
 * video_internal.h: what video.c (window, input, the frame's present) and video_state.c (the
 * draw state: cameras, layer defaults, game shaders, runs) share. Main thread only,
 * between the turns.
 */
#ifndef ONA_VIDEO_INTERNAL_H
#define ONA_VIDEO_INTERNAL_H

#include "video.h"

/* Applies the frame's settings in merge order (the last setter of each thing wins). */
void ona__video_apply_settings(ona__video *v);

/* Fills v->runs from the sorted entries, resolving each entry's state; writes the instances of
 * the entries drawn to `instances` and their count to `*written_out`. Returns the run count. */
uint32_t ona__video_build_runs(ona__video *v, ona__render_queue *const *queues,
                               ona__sprite *instances, uint32_t *written_out);

/* Draws the runs pass by pass: each canvas's (cleared first when a system asked), then the
 * screen's. */
void ona__video_draw_runs(ona__video *v, uint32_t runs);

#endif
