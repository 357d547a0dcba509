/*
 * l_shapes.h: the issue 11 drawing additions to `ona.gfx`: shapes (l_shapes.c), sprite sheets
 * and animations (l_sheet.c), tile maps (l_tilemap.c).
 */
#ifndef ONA_L_SHAPES_H
#define ONA_L_SHAPES_H

#include "l_gfx.h"

/* Adds rect, line, circle, polygon, sheet and tilemap to the `gfx` table on top of the stack,
 * and registers the ona.Sheet, ona.Animation and ona.Tilemap metatables. */
void ona__lua_open_shapes(lua_State *L);
void ona__lua_open_sheet(lua_State *L);
void ona__lua_open_tilemap(lua_State *L);

/* A live texture handle at idx (raises under fn otherwise); its size in *w, *h. */
ona_texture ona__lua_check_texture_size(lua_State *L, int idx, const char *fn, int *w, int *h);
/* The size of a texture now (it changes when a hot reload brings a different image). */
void ona__lua_texture_size(lua_State *L, ona_texture tex, int *w, int *h);
/* A positive integer argument no larger than `max`. */
int ona__lua_check_size(lua_State *L, int idx, const char *fn, const char *what, int max);

#endif
