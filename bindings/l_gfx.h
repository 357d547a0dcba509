/*
 * l_gfx.h: the `ona.gfx` (bindings/l_gfx.c) and `ona.input` (bindings/l_input.c) Lua modules.
 */
#ifndef ONA_L_GFX_H
#define ONA_L_GFX_H

#include "render_queue.h"

#include <lua.h>

struct ona__video;

/* --- Helpers for every drawing binding (l_gfx.c); each raises at the author's line under the
 * public function name `fn`. ---------------------------------------------------------------- */

/* Reads the draw options every drawing function shares from the opts table at index t (nothing
 * when t is none or nil) into key: `layer` (an integer), blend, shader, target (issue 11).
 * Fields the table lacks keep the key's value. */
void ona__lua_draw_key(lua_State *L, int t, const char *fn, ona__draw_key *key);
/* Issue 11 (l_draw.c): reads opts.blend ("alpha", "premultiplied", "add", "multiply"),
 * opts.shader (an ona.gfx.shader handle) and opts.target (an ona.gfx.canvas handle) from the
 * table at t into the outputs, leaving those the table lacks; raises on a bad value. */
void ona__lua_draw_state(lua_State *L, int t, const char *fn, uint32_t *blend, uint32_t *shader,
                         uint32_t *target);
/* Appends sprites to this turn's render queue (ona__system_draw); raises outside a turn or when
 * out of memory. */
void ona__lua_draw(lua_State *L, const char *fn, const ona__draw_key *key,
                   const ona_sprite *sprites, uint32_t count);
/* A colour from 0xRRGGBBAA or {r, g, b[, a]} (0..1) at idx, as the instance's 0xAABBGGRR; errors
 * name argument `arg`. */
uint32_t ona__lua_check_tint(lua_State *L, int idx, int arg, const char *fn);
/* opts[name] as a number, dflt when nil; raises naming opts.<name> otherwise. */
lua_Number ona__lua_opt_field(lua_State *L, int t, const char *name, lua_Number dflt,
                              const char *fn);

/* --- l_input.c ------------------------------------------------------------------------------- */

/* Pushes a new array of the frame's events (tables with `type` and the event's fields). */
void ona__lua_push_events(lua_State *L, const struct ona__video *v);

#endif
