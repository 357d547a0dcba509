/*
 * lua_alloc.c: a Lua system's counting allocator and its small-block pool (lua_host.h:
 * ona__lua_newstate, ona__lua_closestate). Split from lua_host.c, which builds the state.
 *
 * Design note.
 *  - Every block of a system's state goes through lua_alloc, whose user pointer is the system's
 *    ona__lua: mem_used/mem_peak are the bytes LuaJIT asked for (stats, ona.memory()), and the
 *    system's cap turns into an out-of-memory error of that system only.
 *  - Blocks go through the runtime's allocator hook (an embedder's allocator, the tests' fault
 *    injection), except small ones while the hook is libc's, which come from the state's pool
 *    (below).
 */
#include "lua_host.h"

#include <lauxlib.h>
#include <string.h>

/* --- The counting allocator ------------------------------------------------------------------ */

/* A state's small blocks (up to POOL_MAX bytes) come from its pool: a free list per 16-byte size
 * class, refilled from 16 KiB chunks taken through the allocator hook and given back when the
 * state is closed. LuaJIT passes every block's size when it frees or resizes it, so the class of
 * a block is known from its size and a block needs no header. Building a state makes and frees
 * ~3,000 blocks, nearly all small; through glibc's malloc/free they were 45% of a spawn's
 * instructions. Freed small blocks stay in their class for the state's next ones;
 * the memory of a state is therefore at most its peak of small blocks plus a chunk per class in
 * use, while mem_used, the cap and ona.memory() count the bytes LuaJIT asked for, as before. */
#define POOL_CLASS 16
#define POOL_MAX 512
#define POOL_CHUNK 16384

typedef struct pool_chunk {
    struct pool_chunk *next;
    void *align; /* keeps the blocks after the header 16-byte aligned */
} pool_chunk;

struct ona__lua_pool {
    void *free[POOL_MAX / POOL_CLASS]; /* a free block's first word links the next one */
    char *bump, *bump_end;             /* the unused end of the newest chunk */
    pool_chunk *chunks;
    bool mixed;   /* some small blocks came from the allocator hook (pool_owns) */
    bool closing; /* lua_close is freeing everything: the chunks go whole after it */
};

static inline size_t pool_class(size_t size) {
    return (size - 1) / POOL_CLASS;
}

/* Kept out of lua_alloc (below), whose fast paths then need no saved registers. */
#if defined(__GNUC__)
#define NOT_INLINED __attribute__((noinline))
#else
#define NOT_INLINED
#endif

/* A block of class c when its free list is empty and the newest chunk has no room: a new chunk. */
static NOT_INLINED void *pool_refill(struct ona__lua_pool *pool, size_t c) {
    /* The rest of the chunk goes to the free lists of the sizes it still holds. */
    while ((size_t)(pool->bump_end - pool->bump) >= POOL_CLASS) {
        size_t rest = ONA_MIN((size_t)(pool->bump_end - pool->bump), (size_t)POOL_MAX);
        size_t rc = rest / POOL_CLASS - 1;
        memcpy(pool->bump, &pool->free[rc], sizeof(void *));
        pool->free[rc] = pool->bump;
        pool->bump += (rc + 1) * POOL_CLASS;
    }
    pool_chunk *chunk = ona__malloc(POOL_CHUNK);
    if (!chunk)
        return NULL;
    chunk->next = pool->chunks;
    pool->chunks = chunk;
    pool->bump = (char *)(chunk + 1) + (c + 1) * POOL_CLASS;
    pool->bump_end = (char *)chunk + POOL_CHUNK;
    return chunk + 1;
}

static inline void *pool_alloc(struct ona__lua_pool *pool, size_t size) {
    size_t c = pool_class(size);
    void *p = pool->free[c];
    if (p) {
        memcpy(&pool->free[c], p, sizeof(void *));
        return p;
    }
    size_t bytes = (c + 1) * POOL_CLASS;
    if ((size_t)(pool->bump_end - pool->bump) < bytes)
        return pool_refill(pool, c);
    p = pool->bump;
    pool->bump += bytes;
    return p;
}

static inline void pool_free(struct ona__lua_pool *pool, void *p, size_t size) {
    if (pool->closing)
        return; /* nothing is made again from it: pool_destroy frees the chunks */
    size_t c = pool_class(size);
    memcpy(p, &pool->free[c], sizeof(void *));
    pool->free[c] = p;
}

/* After lua_close: every block is back (or was dropped, closing); the chunks go. */
static void pool_destroy(ona__lua *lua) {
    if (!lua->pool)
        return;
    for (pool_chunk *c = lua->pool->chunks, *next; c; c = next) {
        next = c->next;
        ona__free(c);
    }
    ona__free(lua->pool);
    lua->pool = NULL;
}

/* Whether the block at p (osize bytes) is the pool's. Only a mixed pool (blocks of both kinds)
 * needs to look: the allocator hook was replaced while the state lived (the fault-injecting
 * tests do), and small blocks made meanwhile came from the new hook. */
static bool pool_owns(const struct ona__lua_pool *pool, const void *p, size_t osize) {
    if (osize > POOL_MAX)
        return false;
    if (!pool->mixed)
        return true;
    for (const pool_chunk *c = pool->chunks; c; c = c->next)
        if ((const char *)p >= (const char *)c && (const char *)p < (const char *)c + POOL_CHUNK)
            return true;
    return false;
}

/* A block of nsize bytes in place of ptr (osize bytes, or NULL): small ones from the pool while
 * the hook is libc's, the others through the hook; ptr is left as it was when this fails. */
static void *pool_realloc(struct ona__lua_pool *pool, void *ptr, size_t osize, size_t nsize) {
    bool use_pool = ona__allocator_is_default();
    bool was_pooled = ptr && pool_owns(pool, ptr, osize);
    bool pooled = use_pool && nsize <= POOL_MAX;
    if (!use_pool && nsize <= POOL_MAX)
        pool->mixed = true;
    if (!was_pooled && !pooled)
        return ona__realloc(ptr, nsize);
    if (was_pooled && pooled && pool_class(osize) == pool_class(nsize))
        return ptr;
    void *p = pooled ? pool_alloc(pool, nsize) : ona__malloc(nsize);
    if (!p || !ptr)
        return p;
    memcpy(p, ptr, ONA_MIN(osize, nsize));
    if (was_pooled)
        pool_free(pool, ptr, osize);
    else
        ona__free(ptr);
    return p;
}

/* Every byte goes through the runtime's allocator hook (ona__realloc/ona__free): an embedder's
 * allocator, and the fault-injecting tests' (which can fail any Lua allocation), see each block
 * of Lua's memory: the pool is used only while the hook is libc's (a state made under another
 * hook has none; one whose hook is replaced while it lives takes its new blocks from the hook).
 * A failed allocation is LuaJIT's out-of-memory error, raised in the state: an error of that
 * system. The cap test is written so that an uncapped system (mem_cap 0) and a lifted cap never
 * refuse, and so that it cannot overflow. */
/* Kept out of lua_alloc, whose fast paths then need no saved registers. */
static NOT_INLINED void *lua_alloc_slow(ona__lua *lua, void *ptr, size_t osize, size_t nsize) {
    if (!ptr)
        osize = 0;
    if (nsize == 0) {
        if (ptr && lua->pool && pool_owns(lua->pool, ptr, osize))
            pool_free(lua->pool, ptr, osize);
        else
            ona__free(ptr);
        lua->mem_used -= osize;
        return NULL;
    }
    if (nsize > osize && lua->mem_cap && !lua->cap_lifted &&
        (lua->mem_used > lua->mem_cap || nsize - osize > lua->mem_cap - lua->mem_used)) {
        lua->mem_exceeded = true;
        return NULL;
    }
    void *p = lua->pool ? pool_realloc(lua->pool, ptr, osize, nsize) : ona__realloc(ptr, nsize);
    if (!p && ptr && nsize <= osize) {
        /* A shrink never fails (LuaJIT shrinks stacks inside the collector, where an error is
         * not expected): the block stays as it was, large enough. A hook's block may now be
         * small: frees look whose it is. */
        p = ptr;
        if (lua->pool)
            lua->pool->mixed = true;
    }
    if (!p)
        return NULL;
    lua->mem_used = lua->mem_used - osize + nsize;
    if (lua->mem_used > lua->mem_peak)
        lua->mem_peak = lua->mem_used;
    return p;
}

/* The two calls of nearly every block, freeing a small block and making a new one, while the
 * pool is not mixed, without the general path's tests (the allocator was a fifth of a
 * spawn's instructions); the same outcome as lua_alloc_slow, which does everything else. */
static void *lua_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    ona__lua *lua = ud;
    struct ona__lua_pool *pool = lua->pool;
    if (pool && !pool->mixed) {
        if (nsize == 0) {
            if (ptr && osize <= POOL_MAX) {
                pool_free(pool, ptr, osize);
                lua->mem_used -= osize;
                return NULL;
            }
        } else if (!ptr && nsize <= POOL_MAX &&
                   (!lua->mem_cap || lua->cap_lifted ||
                    (lua->mem_used <= lua->mem_cap && nsize <= lua->mem_cap - lua->mem_used)) &&
                   ona__allocator_is_default()) {
            void *p = pool_alloc(pool, nsize);
            if (p) {
                lua->mem_used += nsize;
                if (lua->mem_used > lua->mem_peak)
                    lua->mem_peak = lua->mem_used;
                return p;
            }
        }
    }
    return lua_alloc_slow(lua, ptr, osize, nsize);
}

lua_State *ona__lua_newstate(ona__lua *lua) {
    lua->pool = NULL;
    if (ona__allocator_is_default())
        lua->pool = ona__calloc(1, sizeof *lua->pool); /* none: blocks one by one, as before */
    lua_State *L = lua_newstate(lua_alloc, lua);
    if (!L)
        pool_destroy(lua);
    return L;
}

/* lua_close, with the pool's frees skipped (they would only fill free lists about to go: ~10%
 * of a spawn + close), then the pool. */
void ona__lua_closestate(ona__lua *lua) {
    if (lua->pool)
        lua->pool->closing = true;
    lua->closing = true;
    lua_close(lua->L);
    lua->L = NULL;
    lua->closing = false;
    pool_destroy(lua);
}
