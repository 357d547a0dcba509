/*
 * draw_state.h: the draw state a system sets: cameras per layer range, layer
 * defaults, clear colours of the screen and of canvases, game shaders' uniforms; canvases and
 * game shaders made from C or Lua. Internal to the services; both hosts use it (bindings/l_gfx.c,
 * bindings/l_draw.c, runtime/native/ctx_gfx.c).
 */
#ifndef ONA_DRAW_STATE_H
#define ONA_DRAW_STATE_H

#include "services.h"

/* Queues a setting on the render queue of the thread running `sys`'s turn, ordered like its
 * draws. Errors: ONA_ETHREAD (not during a turn), ONA_ENOMEM. */
int ona__system_set(ona__system *sys, const ona__setting *setting);

/* Checks a draw key's handles: ONA_EINVAL for a blend outside ona_blend, a stale shader, a
 * target that is not a canvas, or a canvas drawn into itself (key->texture == key->target:
 * refused, since GL cannot sample the framebuffer it draws into). *why says which. */
int ona__draw_key_check(ona__services *s, const ona__draw_key *key, const char **why);

/* Whether `id` is a live game shader / a canvas. Any thread. */
bool ona__services_shader_valid(const ona__services *s, uint32_t id);
bool ona__services_is_canvas(ona__services *s, uint32_t id);

/* A camera setting from the public desc (zoom 0 is 1). */
ona__setting ona__camera_setting(const ona_camera_desc *desc);

/* A canvas of width x height (0: the screen's size) owned by the system `owner` (0: the
 * runtime); any thread (its GL objects are made by main before the next frame is drawn).
 * Errors: ONA_EINVAL (a size out of range), ONA_ELIMIT, ONA_ENOMEM. */
int ona__services_canvas(ona__services *s, int width, int height, uint64_t owner, ona_texture *out);
/* Frees the canvases of the system `owner` as it ends; main, between frames. How many. */
uint32_t ona__services_free_canvases(ona__services *s, uint64_t owner);
/* A game shader from the game file `name`, watched for reloads; `holder` takes a reference (see
 * services.h: shaders are kept until the runtime goes). ONA_EINVAL for an empty name, ONA_ENOENT
 * (logged) when the file is missing; the compile errors of ona__video_shader_load. */
int ona__services_shader_load(ona__services *s, const char *name, uint64_t holder, ona_shader *out);

#endif
