/*
 * l_shapes.h: the issue 11 drawing additions to `ona.gfx`: shapes (l_shapes.c), sprite sheets
 * and animations (l_sheet.c), tile maps (l_tilemap.c).
 */
#ifndef ONA_L_SHAPES_H
#define ONA_L_SHAPES_H

#include "l_gfx.h"

/* A live texture handle at idx (raises under fn otherwise); its size in *w, *h. */
ona_texture ona__lua_check_texture_size(lua_State *L, int idx, const char *fn, int *w, int *h);
/* The size of a texture now (it changes when a hot reload brings a different image). */
void ona__lua_texture_size(lua_State *L, ona_texture tex, int *w, int *h);
/* A positive integer argument no larger than `max`. */
int ona__lua_check_size(lua_State *L, int idx, const char *fn, const char *what, int max);

#endif
