/*
 * physics_memory.cpp: every block Box2D allocates, charged to the world being called.
 *
 * Design note. Box2D 2.4 allocates through b2Alloc/b2Free, inline functions of b2_settings.h that
 * call b2Alloc_Default/b2Free_Default; libbox2d.so calls those through its PLT, so the
 * definitions below, with default visibility, take their place for the whole process (the
 * `physics` test checks a world's bytes are counted, so a build where they did not would fail).
 * Box2D's calls carry no context: the world being called is a thread-local set by every entry
 * of the shim (physics_scope). Each block has a header linking it into its world's list, so a
 * world whose owner refused a block frees every block at once, without running Box2D's
 * destructors on a world left half-updated. A refusal throws physics_refused out of Box2D (built
 * with unwind tables, as g++ builds C++); the entry that set the scope catches it. A block made
 * outside any world (another user of libbox2d in the process) is a plain one, never refused.
 */
#include "physics_internal.h"

#include <new>

extern "C" void *ona__malloc(size_t size);
extern "C" void ona__free(void *ptr);

namespace {
thread_local ona_physics_world *current_world = nullptr;
}

physics_scope::physics_scope(ona_physics_world *w) : saved(current_world) {
    current_world = w;
}

physics_scope::~physics_scope() {
    current_world = saved;
}

void *physics_alloc(ona_physics_world *w, size_t size) {
    if (w && w->charge && !w->charge(w->charge_user, (ptrdiff_t)(size + sizeof(physics_block))))
        throw physics_refused();
    physics_block *b = static_cast<physics_block *>(ona__malloc(sizeof(physics_block) + size));
    if (!b) {
        if (w && w->charge)
            w->charge(w->charge_user, -(ptrdiff_t)(size + sizeof(physics_block)));
        throw physics_refused();
    }
    b->world = w;
    b->size = size;
    b->prev = nullptr;
    b->next = nullptr;
    if (w) {
        b->next = w->blocks;
        if (w->blocks)
            w->blocks->prev = b;
        w->blocks = b;
        w->bytes += size + sizeof(physics_block);
    }
    return b + 1;
}

void physics_free(void *mem) {
    if (!mem)
        return;
    physics_block *b = static_cast<physics_block *>(mem) - 1;
    ona_physics_world *w = b->world;
    if (w) {
        if (b->prev)
            b->prev->next = b->next;
        else
            w->blocks = b->next;
        if (b->next)
            b->next->prev = b->prev;
        w->bytes -= b->size + sizeof(physics_block);
        if (w->charge)
            w->charge(w->charge_user, -(ptrdiff_t)(b->size + sizeof(physics_block)));
    }
    ona__free(b);
}

void physics_free_all(ona_physics_world *w) {
    while (w->blocks)
        physics_free(w->blocks + 1);
}

/* Box2D's allocation functions, replaced (b2_settings.h). */
__attribute__((visibility("default"))) void *b2Alloc_Default(int32 size) {
    return physics_alloc(current_world, size > 0 ? (size_t)size : 1);
}

__attribute__((visibility("default"))) void b2Free_Default(void *mem) {
    physics_free(mem);
}
