/*
 * alloc.c: the process-wide allocator hook of the C core.
 *
 * Design note: the hook is a plain struct read on every allocation. It is set only while no Ona
 * object exists (ona_set_allocator's contract), so it needs no synchronisation beyond the
 * happens-before the embedder already has between setting it and starting threads. LuaJIT
 * states use it too: each system's counting allocator (bindings/lua_host.c) counts and caps,
 * then allocates through this hook. ona__grow is the one doubling rule behind the C side's
 * growable arrays (the render and audio queues), so each does not carry its own copy.
 */
#include "common.h"

#include <stdio.h>

static void *default_realloc(void *user, void *ptr, size_t size) {
    (void)user;
    return realloc(ptr, size);
}

static void default_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

static ona_allocator current = {default_realloc, default_free, NULL};

void ona_set_allocator(const ona_allocator *allocator) {
    if (allocator && allocator->realloc && allocator->free)
        current = *allocator;
    else
        current = (ona_allocator){default_realloc, default_free, NULL};
}

bool ona__allocator_is_default(void) {
    return current.realloc == default_realloc && current.free == default_free;
}

void *ona__malloc(size_t size) {
    return current.realloc(current.user, NULL, size ? size : 1);
}

void *ona__calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = ona__malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

void *ona__realloc(void *ptr, size_t size) {
    return current.realloc(current.user, ptr, size ? size : 1);
}

void ona__free(void *ptr) {
    if (ptr)
        current.free(current.user, ptr);
}

int ona__grow(void **array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity)
        return 0;
    uint32_t cap = *capacity ? *capacity : 64;
    while (cap < need) {
        if (cap > UINT32_MAX / 2)
            return ONA_ENOMEM;
        cap *= 2;
    }
    void *grown = ona__realloc(*array, (size_t)cap * elem);
    if (!grown)
        return ONA_ENOMEM;
    *array = grown;
    *capacity = cap;
    return 0;
}

void ona__assert_fail(const char *cond, const char *file, int line) {
    fprintf(stderr, "ona: internal assertion failed: %s (%s:%d)\n", cond, file, line);
    fflush(stderr);
    abort();
}
