/*
 * ona/physics.h: 2D rigid-body physics on Box2D 2.4 (runtime/physics/, a C++ shim behind this
 * C interface). The Lua module ona.physics (bindings/l_physics.c) is built on these calls.
 *
 * Ownership and threads:
 *  - A world belongs to whoever created it (a system, for ona.physics) and is destroyed by it.
 *    Its calls may come from any thread, but never two at once: the owner's turn is the only
 *    place a system touches it, so a world is stepped by one thread at a time.
 *  - Bodies are numbered 1, 2, 3... in creation order (an ona_physics_body); a destroyed body's
 *    number is never reused, and every call on it returns ONA_ESTALE.
 *  - Arrays a call hands out (contacts, hits, query results, outlines) belong to the world and
 *    stay valid until the next call on it that returns such an array, or its destruction.
 *
 * Units: pixels and seconds in this API; the world divides by `meter` (pixels per meter) on the
 * way in and multiplies on the way out, so Box2D works in meters, as it is tuned for.
 *
 * Memory: every byte Box2D allocates for a world, the world itself included, goes through the
 * runtime's allocator hook and is reported to the desc's `charge` (positive on allocation,
 * negative on release). A `charge` that returns false refuses the allocation: the call in
 * progress stops, returns ONA_ENOMEM, and the world is broken: it frees all its memory at once
 * and every later call but ona_physics_world_destroy returns ONA_ENOMEM.
 *
 * Determinism: Box2D runs single-threaded here, so the same calls in the same order give the
 * same bodies and contacts, bit for bit, on every run and thread count. Contacts of a step are
 * listed by (lower body, higher body), in the order Box2D reported them for one pair.
 */
#ifndef ONA_PHYSICS_H
#define ONA_PHYSICS_H

#include "ona/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ona_physics_world ona_physics_world;
typedef uint32_t ona_physics_body; /* 1, 2, 3... in creation order; 0 is no body */

typedef struct ona_physics_world_desc {
    float gravity_x, gravity_y; /* pixels per second squared */
    float meter;                /* pixels per meter, > 0 (0: 64) */
    /* Called with +bytes before Box2D gets a block and -bytes when it gives one back; false
     * refuses. NULL: nothing is counted or refused. Called on the thread of the world's call. */
    bool (*charge)(void *user, ptrdiff_t bytes);
    void *charge_user;
} ona_physics_world_desc;

typedef enum ona_physics_type {
    ONA_PHYSICS_STATIC = 0,
    ONA_PHYSICS_DYNAMIC,
    ONA_PHYSICS_KINEMATIC,
} ona_physics_type;

typedef enum ona_physics_shape {
    ONA_PHYSICS_BOX = 0, /* width x height, centred on the body */
    ONA_PHYSICS_CIRCLE,  /* radius */
    ONA_PHYSICS_POLYGON, /* 3 to ONA_PHYSICS_MAX_POLYGON convex points, relative to the centre */
    ONA_PHYSICS_EDGE,    /* 2 points, relative to the centre */
    ONA_PHYSICS_CHAIN,   /* 2 to ONA_PHYSICS_MAX_CHAIN points, relative to the centre: tile maps */
} ona_physics_shape;

#define ONA_PHYSICS_MAX_POLYGON 8
#define ONA_PHYSICS_MAX_CHAIN 65536

typedef struct ona_physics_body_desc {
    ona_physics_type type;
    float x, y;  /* the body's centre, pixels */
    float angle; /* radians */
    ona_physics_shape shape;
    float width, height;  /* BOX */
    float radius;         /* CIRCLE */
    const float *points;  /* POLYGON, EDGE, CHAIN: x1, y1, x2, y2, ... */
    uint32_t point_count; /* points, not floats */
    bool loop;            /* CHAIN: the last point joins the first */
    float density, friction, restitution;
    bool sensor;
    bool fixed_rotation, bullet;
    uint16_t category, mask; /* collision filter bits */
    int16_t group;           /* same positive group: always collide; same negative: never */
} ona_physics_body_desc;

/* A contact that began or ended during a step; a < b; the normal points from a to b. (x, y) is
 * the contact point (the mean of Box2D's manifold points), or the midpoint of the two bodies
 * when Box2D gives none (sensors, contacts that end apart). */
typedef struct ona_physics_contact {
    bool begin; /* false: it ended */
    ona_physics_body a, b;
    float x, y, nx, ny;
} ona_physics_contact;

typedef struct ona_physics_hit {
    ona_physics_body body;
    float x, y, nx, ny; /* the point hit, pixels, and the surface normal there */
    float fraction;     /* along the ray, 0..1 */
} ona_physics_hit;

/* A body's shape in world pixels, for drawing it (ona_physics_outline). `shape` is the shape as
 * Box2D holds it: a BOX reads as a POLYGON of 4 points. */
typedef struct ona_physics_outline_view {
    ona_physics_type type;
    ona_physics_shape shape;
    bool awake;
    float x, y, angle;   /* the body's centre and angle */
    float radius;        /* CIRCLE */
    const float *points; /* the other shapes: count points in world pixels, world-owned */
    uint32_t count;
    bool closed; /* BOX, POLYGON, looped CHAIN */
} ona_physics_outline_view;

/* The desc's defaults: a static box at (0, 0), density 1, friction 0.2, restitution 0, category
 * 1, mask 0xFFFF, group 0. Any thread. */
ONA_API void ona_physics_body_defaults(ona_physics_body_desc *desc);

/* Why `desc` is refused in `world` (a static sentence naming the field: non-finite numbers,
 * sizes <= 0, a polygon that is not convex, points closer than Box2D's slop at the world's
 * scale), or NULL when ona_physics_body_create would take it. */
ONA_API const char *ona_physics_body_error(const ona_physics_world *world,
                                           const ona_physics_body_desc *desc);

/* A new world into *out. ONA_EINVAL (bad desc: non-finite gravity, meter < 0), ONA_ENOMEM. */
ONA_API int ona_physics_world_create(const ona_physics_world_desc *desc, ona_physics_world **out);
/* Frees the world, its bodies and its arrays (NULL: nothing). */
ONA_API void ona_physics_world_destroy(ona_physics_world *world);
/* The bytes Box2D holds for the world now. */
ONA_API size_t ona_physics_world_memory(const ona_physics_world *world);
/* The number of live bodies. */
ONA_API uint32_t ona_physics_world_bodies(const ona_physics_world *world);

/* A new body into *out. ONA_EINVAL (ona_physics_body_error says why), ONA_ENOMEM. */
ONA_API int ona_physics_body_create(ona_physics_world *world, const ona_physics_body_desc *desc,
                                    ona_physics_body *out);
/* Destroys the body (its contacts end at the next step). ONA_ESTALE for a destroyed body. */
ONA_API int ona_physics_body_destroy(ona_physics_world *world, ona_physics_body body);

/* The body's centre, velocity (pixels per second), angle and angular velocity (radians). */
ONA_API int ona_physics_body_position(const ona_physics_world *world, ona_physics_body body,
                                      float *x, float *y);
ONA_API int ona_physics_body_velocity(const ona_physics_world *world, ona_physics_body body,
                                      float *vx, float *vy);
ONA_API int ona_physics_body_angle(const ona_physics_world *world, ona_physics_body body,
                                   float *angle);
/* Sets the linear velocity (pixels per second) and wakes the body. */
ONA_API int ona_physics_body_set_velocity(ona_physics_world *world, ona_physics_body body, float vx,
                                          float vy);
/* Moves the body's centre (pixels) and angle, and wakes it. */
ONA_API int ona_physics_body_set_position(ona_physics_world *world, ona_physics_body body, float x,
                                          float y, float angle);
/* An impulse at the centre (mass x pixels per second, the mass in Box2D's kilograms) and wakes
 * the body. */
ONA_API int ona_physics_body_impulse(ona_physics_world *world, ona_physics_body body, float ix,
                                     float iy);
/* The body's mass (kilograms: density x area in square meters). */
ONA_API int ona_physics_body_mass(const ona_physics_world *world, ona_physics_body body,
                                  float *mass);
/* Whether the body is awake (a resting body falls asleep). */
ONA_API int ona_physics_body_awake(const ona_physics_world *world, ona_physics_body body,
                                   bool *awake);

/* Advances the world by dt seconds (0 < dt <= 1; 8 velocity, 3 position iterations) and hands
 * out the contacts that began or ended during it. ONA_EINVAL for a bad dt, ONA_ENOMEM. */
ONA_API int ona_physics_step(ona_physics_world *world, float dt,
                             const ona_physics_contact **contacts, size_t *count);

/* The bodies hit by the ray from (x1, y1) to (x2, y2), sorted by fraction (then body); `all`
 * false keeps the closest only. Sensors are ignored. */
ONA_API int ona_physics_raycast(ona_physics_world *world, float x1, float y1, float x2, float y2,
                                bool all, const ona_physics_hit **hits, size_t *count);
/* The bodies whose shape's bounding box overlaps the box (x1, y1)-(x2, y2), each once, sorted
 * by body number. */
ONA_API int ona_physics_query(ona_physics_world *world, float x1, float y1, float x2, float y2,
                              const ona_physics_body **bodies, size_t *count);
/* The body's shape in world pixels. */
ONA_API int ona_physics_outline(ona_physics_world *world, ona_physics_body body,
                                ona_physics_outline_view *out);
/* The live bodies, in creation order (world-owned, like the arrays above). */
ONA_API int ona_physics_list(ona_physics_world *world, const ona_physics_body **bodies,
                             size_t *count);

#ifdef __cplusplus
}
#endif

#endif
