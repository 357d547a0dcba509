/*
 * physics_internal.h: the world behind ona/physics.h, shared by the shim's files
 * (physics.cpp: worlds, bodies, steps; physics_query.cpp: rays, boxes, outlines;
 * physics_memory.cpp: Box2D's allocations). C++17; nothing here is seen from C.
 */
#ifndef ONA_PHYSICS_INTERNAL_H
#define ONA_PHYSICS_INTERNAL_H

#include "ona/physics.h"

#include <box2d/box2d.h>

#include <cstring>

/* The header of every block Box2D or the shim allocates for a world. 32 bytes: the block
 * after it keeps malloc's 16-byte alignment. */
struct physics_block {
    ona_physics_world *world;
    size_t size;
    physics_block *prev, *next;
};

/* Thrown out of an allocation the world's owner refused (or malloc could not make). */
struct physics_refused {};

/* Sets the world Box2D's allocations are charged to for the life of the scope. */
struct physics_scope {
    explicit physics_scope(ona_physics_world *w);
    ~physics_scope();
    physics_scope(const physics_scope &) = delete;
    physics_scope &operator=(const physics_scope &) = delete;
    ona_physics_world *saved;
};

void *physics_alloc(ona_physics_world *w, size_t size); /* throws physics_refused */
void physics_free(void *mem);
void physics_free_all(ona_physics_world *w);

/* A growable array of plain values in the world's charged memory. */
template <typename T> struct physics_vec {
    T *data = nullptr;
    size_t count = 0, cap = 0;
    void push(ona_physics_world *w, const T &v) {
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            T *n = static_cast<T *>(physics_alloc(w, ncap * sizeof(T)));
            if (count)
                std::memcpy(static_cast<void *>(n), data, count * sizeof(T));
            physics_free(data);
            data = n;
            cap = ncap;
        }
        data[count++] = v;
    }
};

struct physics_listener : b2ContactListener {
    ona_physics_world *w = nullptr;
    void BeginContact(b2Contact *contact) override;
    void EndContact(b2Contact *contact) override;
};

struct ona_physics_world {
    b2World *b2 = nullptr; /* in a charged block: placement new */
    float meter = 64, inv_meter = 1.0f / 64;
    bool (*charge)(void *, ptrdiff_t) = nullptr;
    void *charge_user = nullptr;
    bool broken = false; /* a refused allocation: only destroy is left */
    physics_block *blocks = nullptr;
    size_t bytes = 0;
    uint32_t live = 0;
    physics_listener listener;
    physics_vec<b2Body *> bodies;              /* body n at n - 1; NULL once destroyed */
    physics_vec<ona_physics_contact> pending;  /* reported since the last step */
    physics_vec<ona_physics_contact> contacts; /* the last step's, handed out */
    physics_vec<ona_physics_hit> hits;         /* the last raycast's */
    physics_vec<ona_physics_body> found;       /* the last query's or list's */
    physics_vec<float> outline;                /* the last outline's points */
};

/* The body numbered `id`, or NULL when it is none of the world's live ones. */
b2Body *physics_body(const ona_physics_world *w, ona_physics_body id);

/* Runs fn under the world's scope; a refusal breaks the world and returns ONA_ENOMEM. */
template <typename F> int physics_call(ona_physics_world *w, F fn) {
    if (!w)
        return ONA_EINVAL;
    if (w->broken)
        return ONA_ENOMEM;
    physics_scope scope(w);
    try {
        return fn();
    } catch (const physics_refused &) {
        w->broken = true;
        w->b2 = nullptr;
        w->bodies = {};
        w->pending = {};
        w->contacts = {};
        w->hits = {};
        w->found = {};
        w->outline = {};
        w->live = 0;
        physics_free_all(w);
        return ONA_ENOMEM;
    }
}

#endif
