/*
 * l_modules.h: the ona.* Lua modules (bindings/l_modules.c lists them) and their openers. Each
 * opener adds its module's fields to the table on top of the stack and leaves the stack as it
 * found it; only l_modules.c calls them. Internal to the Lua host.
 */
#ifndef ONA_L_MODULES_H
#define ONA_L_MODULES_H

#include <lua.h>

/* Pushes the `ona` table with every module in it (the groups gfx, input and audio as tables
 * filled on their first use: lua_lazy.h), then the table of raw functions the prelude wraps. */
void ona__lua_open_modules(lua_State *L);

/* Into `ona`: messages, systems, logging, ona.string, ona.buffer (l_ona.c, ona.spawn from
 * l_spawn.c); time, dt, random (l_time.c); save, load (l_save.c). */
void ona__lua_open_ona(lua_State *L);
void ona__lua_open_time(lua_State *L);
void ona__lua_open_save(lua_State *L);

/* Into `ona.gfx`: textures, sprites, the camera, the window (l_gfx.c); layer, canvas,
 * canvas_clear, shader, uniform, to_world, to_screen (l_draw.c); font, print, measure
 * (l_text.c); rect, line, circle, polygon (l_shapes.c); sheet with the ona.Sheet and
 * ona.Animation metatables (l_sheet.c); tilemap with the ona.Tilemap metatable (l_tilemap.c). */
void ona__lua_open_gfx(lua_State *L);
void ona__lua_open_draw(lua_State *L);
void ona__lua_open_text(lua_State *L);
void ona__lua_open_shapes(lua_State *L);
void ona__lua_open_sheet(lua_State *L);
void ona__lua_open_tilemap(lua_State *L);
void ona__lua_open_transform(lua_State *L);

/* Into `ona.input` (l_input.c) and `ona.audio` (l_audio.c). */
void ona__lua_open_input(lua_State *L);
void ona__lua_open_audio(lua_State *L);
void ona__lua_open_fs(lua_State *L);
/* Into `ona.physics`: world, with the ona.physics.World and ona.physics.Body metatables
 * (l_physics.c, l_physics_query.c). */
void ona__lua_open_physics(lua_State *L);

#endif
