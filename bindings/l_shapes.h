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

#endif
