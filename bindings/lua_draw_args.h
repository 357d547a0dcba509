/*
 * lua_draw_args.h: the argument helpers every drawing binding shares (lua_draw_args.c). Each
 * raises at the author's line under the public function name `fn`.
 */
#ifndef ONA_LUA_DRAW_ARGS_H
#define ONA_LUA_DRAW_ARGS_H

#include "services.h"

#include <lua.h>

/* Reads opts.blend ("alpha", "premultiplied", "add", "multiply"), opts.shader (an
 * ona.gfx.shader handle) and opts.target (an ona.gfx.canvas handle) from the table at t into the
 * outputs, leaving those the table lacks; raises on a bad value (l_draw.c). */
void ona__lua_draw_state(lua_State *L, int t, const char *fn, uint32_t *blend, uint32_t *shader,
                         uint32_t *target);
/* Reads the draw options every drawing function shares from the opts table at index t (nothing
 * when t is none or nil) into key: `layer` (an integer), blend, shader, target. Fields the table
 * lacks keep the key's value. */
void ona__lua_draw_key(lua_State *L, int t, const char *fn, ona__draw_key *key);
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

/* x clamped to [0, 1]. */
static inline float ona__lua_clamp01(lua_Number x) {
    return x < 0 ? 0.0f : (x > 1 ? 1.0f : (float)x);
}

/* A live texture handle at idx (raises under fn otherwise); its size in *w, *h. */
ona_texture ona__lua_check_texture_size(lua_State *L, int idx, const char *fn, int *w, int *h);
/* The size of a texture now (it changes when a hot reload brings a different image). */
void ona__lua_texture_size(lua_State *L, ona_texture tex, int *w, int *h);
/* A positive integer argument no larger than `max`. */
int ona__lua_check_size(lua_State *L, int idx, const char *fn, const char *what, int max);

#endif
