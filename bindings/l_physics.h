/*
 * l_physics.h: ona.physics, shared by l_physics.c (worlds, bodies) and l_physics_query.c
 * (steps, rays, boxes, debug draw). Internal to the Lua host.
 *
 * A world is an ona.physics.World userdata owned by the system whose state made it; its
 * environment table holds the bodies' userdata by number ([1]), their `user` values ([2]) and
 * the users of bodies destroyed since the last step ([3]), whose ending contacts that step
 * still reports, and the world's userdata itself ([4]); that table is each body's environment.
 */
#ifndef ONA_L_PHYSICS_H
#define ONA_L_PHYSICS_H

#include "ona/physics.h"

#include "lua_host.h"

#include <lua.h>

#define ONA_PHYSICS_WORLD_MT "ona.physics.World"
#define ONA_PHYSICS_BODY_MT "ona.physics.Body"

enum { L_PHYSICS_BODIES = 1, L_PHYSICS_USERS = 2, L_PHYSICS_GONE = 3, L_PHYSICS_SELF = 4 };

typedef struct l_world {
    ona_physics_world *w; /* NULL once destroyed (world:destroy() or its collection) */
    ona__lua *owner;
    bool refused; /* the cap refused a block: the world is gone */
} l_world;

typedef struct l_body {
    ona_physics_body id;
} l_body; /* its environment is its world's environment */

/* The world at idx, used by its owner and alive, or raises under fn. */
l_world *ona__lua_check_world(lua_State *L, int idx, const char *fn);
/* Raises the error for a failed world call (rc from ona_physics_*). */
int ona__lua_physics_fail(lua_State *L, l_world *lw, const char *fn, int rc);
/* Pushes the user value of body `id` (its number when it has none) from the world at `world`. */
void ona__lua_physics_push_user(lua_State *L, int world, ona_physics_body id);
/* Pushes the body userdata numbered id of the world at `world` (nil when destroyed). */
void ona__lua_physics_push_body(lua_State *L, int world, ona_physics_body id);

/* The world's methods of l_physics_query.c, into the metatable's method table on top. */
void ona__lua_physics_query_methods(lua_State *L);

/* Why a world or body at idx cannot go in a message, or NULL when it is neither (l_message.c
 * names it instead of "is a userdata"). */
const char *ona__lua_physics_refusal(lua_State *L, int idx);

#endif
