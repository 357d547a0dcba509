/*
 * draw_state.h: the draw state a system sets (issue 11): cameras per layer range, layer
 * defaults, clear colours of the screen and of canvases, game shaders' uniforms; canvases and
 * game shaders made from C or Lua. Internal; shared by bindings/l_gfx.c, bindings/l_draw.c and
 * native.c (ona_ctx_*).
 */
#ifndef ONA_DRAW_STATE_H
#define ONA_DRAW_STATE_H

#include "runtime_internal.h"

/* Queues a setting on the render queue of the thread running `sys`'s turn, ordered like its
 * draws. Errors: ONA_ETHREAD (not during a turn), ONA_ENOMEM. */
int ona__system_set(ona__system *sys, const ona__setting *setting);

/* Checks a draw key's handles: ONA_EINVAL for a blend outside ona_blend, a stale shader, a
 * target that is not a canvas, or a canvas drawn into itself (key->texture == key->target:
 * refused, since GL cannot sample the framebuffer it draws into). *why says which. */
int ona__draw_key_check(ona_runtime *rt, const ona__draw_key *key, const char **why);

/* A camera setting from the public desc (zoom 0 is 1). */
ona__setting ona__camera_setting(const ona_camera_desc *desc);

#endif
