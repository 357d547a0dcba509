/*
 * l_gfx.h: the `ona.gfx` (bindings/l_gfx.c) and `ona.input` (bindings/l_input.c) Lua modules.
 */
#ifndef ONA_L_GFX_H
#define ONA_L_GFX_H

#include "lua_draw_args.h"
#include "services.h"

#include <lua.h>

struct ona__video;

/* Issue 11 (l_draw.c): reads opts.blend ("alpha", "premultiplied", "add", "multiply"),
 * opts.shader (an ona.gfx.shader handle) and opts.target (an ona.gfx.canvas handle) from the
 * table at t into the outputs, leaving those the table lacks; raises on a bad value. */
void ona__lua_draw_state(lua_State *L, int t, const char *fn, uint32_t *blend, uint32_t *shader,
                         uint32_t *target);
/* Adds layer, canvas, canvas_clear, shader, uniform, to_world, to_screen to the `gfx` table on
 * top of the stack. */
void ona__lua_open_draw(lua_State *L);
/* l_text.c (issue 10): adds font, print and measure to the `gfx` table on top of the stack. */
void ona__lua_open_text(lua_State *L);

/* Fills the `ona.gfx` table on top of the stack (l_ona.c calls it on the group's first use). */
void ona__lua_open_gfx(lua_State *L);

/* --- l_input.c ------------------------------------------------------------------------------- */

/* Fills the `ona.input` table on top of the stack (l_ona.c, on the group's first use). */
void ona__lua_open_input(lua_State *L);
/* Pushes a new array of the frame's events (tables with `type` and the event's fields). */
void ona__lua_push_events(lua_State *L, const struct ona__video *v);

#endif
