/*
 * shapes.h: shape tessellation and tile-map sprites (shapes.c). Internal view of the public
 * ona/shapes.h, for the bindings and the native host; pure C, no GL or Lua.
 */
#ifndef ONA_GFX_SHAPES_H
#define ONA_GFX_SHAPES_H

#include "ona/shapes.h"

/* Sprites written per chunk when a binding emits a long shape or a tile map through a stack
 * array (ona__system_draw copies them into the render queue). */
#define ONA__SHAPE_CHUNK 512

#endif
