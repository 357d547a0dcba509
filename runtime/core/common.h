/*
 * common.h: what every file of the C core shares: the allocator wrappers, ONA_ASSERT for our
 * own invariants, and small helpers. Internal; never included by an embedder.
 */
#ifndef ONA_COMMON_H
#define ONA_COMMON_H

#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ONA_ASSERT checks an invariant of our own code (never data from a script, a file or a
 * message: those are validated and reported). On in debug and sanitizer builds. */
#if defined(ONA_DEBUG) || defined(ONA_SANITIZER_BUILD)
#define ONA_ASSERT(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ona__assert_fail(#cond, __FILE__, __LINE__);                                           \
    } while (0)
#else
#define ONA_ASSERT(cond) ((void)0)
#endif

_Noreturn void ona__assert_fail(const char *cond, const char *file, int line);

/* The process-wide allocator (ona_set_allocator). Return NULL on failure; never abort. */
void *ona__malloc(size_t size);
void *ona__calloc(size_t count, size_t size);
void *ona__realloc(void *ptr, size_t size);
void ona__free(void *ptr);
/* Whether the allocator hook is the default (libc's): the Lua states' pools use it (lua_host.c). */
bool ona__allocator_is_default(void);

/* Makes `*array` (of `*capacity` elements of `elem` bytes) hold at least `need` elements: the
 * capacity doubles from 64 until it does, and the array is reallocated once. Nothing changes
 * when it already holds them, or on failure. 0 or ONA_ENOMEM (also when the capacity would pass
 * UINT32_MAX). */
int ona__grow(void **array, uint32_t *capacity, uint32_t need, size_t elem);

/* Monotonic nanoseconds. */
static inline uint64_t ona__now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define ONA_ARRAY_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define ONA_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ONA_MAX(a, b) ((a) > (b) ? (a) : (b))
#define ONA_CACHE_LINE 64

#endif /* ONA_COMMON_H */
