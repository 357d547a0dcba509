/*
 * lua_chunks.c: Lua source compiled once for every state (lua_chunks.h).
 *
 * Design note. Every system that runs a script or requires a module used to parse it itself: a
 * thousand systems reloading one module parsed it a thousand times, half of the reload's time.
 * Here a source is compiled in a scratch state of its own, dumped to bytecode (with its debug
 * information: chunk name and lines, so errors read path:line as before) and kept, keyed by its
 * chunk name, size and a 64-bit digest of its bytes; every load of the same bytes, in any state
 * of any runtime, loads that bytecode. The caller has read the file already, so the key is the
 * content itself: an edit is a new key however the file's times moved, and nothing is stale.
 *
 * Every state loads the bytecode, the first one included, never the source: LuaJIT rebuilds a
 * table constructor's template from bytecode in another layout than the parser's, and so
 * `pairs` over it visits the keys in another order. Loading the same bytecode everywhere keeps
 * that order one for all systems and runs, whichever thread compiled first.
 *
 * The kept chunks are process-wide under one mutex, at most CHUNKS_MAX of them and
 * CHUNKS_BYTES of bytecode, the least recently used dropped first. A chunk's bytes are
 * refcounted, so a load reads them outside the lock and a drop never frees bytes being read.
 * The bytecode is the runtime's own, made from source: a sandboxed system, which refuses
 * bytecode files, loads it too.
 */
#include "lua_chunks.h"

#include "common.h"
#include "digest.h"

#include <lauxlib.h>
#include <stdatomic.h>
#include <string.h>
#include <uv.h>

enum {
    CHUNKS_MAX = 1024,
    CHUNKS_BYTES = 32 << 20,
};

typedef struct blob {
    atomic_int refs;
    size_t size;
    unsigned char bytes[];
} blob;

typedef struct chunk {
    uint64_t digest; /* of the source's bytes and its chunk name */
    size_t source_size;
    char *name;
    blob *code;
    uint64_t used; /* the clock of its last load */
} chunk;

static struct {
    uv_once_t once;
    uv_mutex_t lock;
    chunk *items;
    uint32_t count, capacity;
    size_t bytes;
    uint64_t clock;
} cache = {.once = UV_ONCE_INIT};

static void init_cache(void) {
    if (uv_mutex_init(&cache.lock) != 0)
        ona__assert_fail("uv_mutex_init", __FILE__, __LINE__);
}

static void blob_release(blob *b) {
    /* acq_rel: the last holder sees every other holder's reads done before it frees. */
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        ona__free(b);
}

/* Under the lock: the kept bytecode of (digest, size, name) with a reference taken, or NULL. */
static blob *find(uint64_t digest, size_t size, const char *name) {
    for (uint32_t i = 0; i < cache.count; i++) {
        chunk *c = &cache.items[i];
        if (c->digest == digest && c->source_size == size && strcmp(c->name, name) == 0) {
            c->used = ++cache.clock;
            /* relaxed: the lock orders the take before any release. */
            atomic_fetch_add_explicit(&c->code->refs, 1, memory_order_relaxed);
            return c->code;
        }
    }
    return NULL;
}

/* Under the lock: drops the least recently used chunk. */
static void drop_oldest(void) {
    uint32_t oldest = 0;
    for (uint32_t i = 1; i < cache.count; i++)
        if (cache.items[i].used < cache.items[oldest].used)
            oldest = i;
    chunk *c = &cache.items[oldest];
    cache.bytes -= c->code->size;
    blob_release(c->code);
    ona__free(c->name);
    cache.items[oldest] = cache.items[--cache.count];
}

/* Under the lock: keeps `code` (taking a reference of its own) unless its key is kept already.
 * A chunk that cannot be kept (no memory) is simply not kept. */
static void keep(uint64_t digest, size_t size, const char *name, blob *code) {
    if (code->size > CHUNKS_BYTES / 4)
        return;
    blob *there = find(digest, size, name);
    if (there) { /* another thread compiled the same bytes meanwhile: the same bytecode */
        blob_release(there);
        return;
    }
    while (cache.count && (cache.count >= CHUNKS_MAX || cache.bytes + code->size > CHUNKS_BYTES))
        drop_oldest();
    if (ona__grow((void **)&cache.items, &cache.capacity, cache.count + 1, sizeof(chunk)) != 0)
        return;
    size_t n = strlen(name) + 1;
    char *copy = ona__malloc(n);
    if (!copy)
        return;
    memcpy(copy, name, n);
    /* relaxed: published by the lock. */
    atomic_fetch_add_explicit(&code->refs, 1, memory_order_relaxed);
    cache.items[cache.count++] = (chunk){
        .digest = digest, .source_size = size, .name = copy, .code = code, .used = ++cache.clock};
    cache.bytes += code->size;
}

typedef struct dump_buf {
    blob *b;
    size_t capacity;
    bool failed;
} dump_buf;

static int dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    dump_buf *d = ud;
    if (d->failed)
        return 1;
    size_t used = d->b ? d->b->size : 0;
    if (used + size > d->capacity) {
        size_t cap = d->capacity ? d->capacity : 4096;
        while (cap < used + size)
            cap *= 2;
        blob *grown = ona__realloc(d->b, sizeof(blob) + cap);
        if (!grown) {
            d->failed = true;
            return 1;
        }
        if (!d->b)
            grown->size = 0;
        d->b = grown;
        d->capacity = cap;
    }
    memcpy(d->b->bytes + d->b->size, p, size);
    d->b->size += size;
    return 0;
}

/* Compiles the source in a scratch state and dumps it: the bytecode (one reference, the
 * caller's), or NULL with the compiler's message pushed on L and *status its code. */
static blob *compile(lua_State *L, const char *source, size_t size, const char *name,
                     const char *mode, int *status) {
    lua_State *S = luaL_newstate();
    if (!S) {
        lua_pushfstring(L, "%s: out of memory to compile it", name + (name[0] == '@'));
        *status = LUA_ERRMEM;
        return NULL;
    }
    *status = luaL_loadbufferx(S, source, size, name, mode);
    if (*status) {
        size_t len;
        const char *msg = lua_tolstring(S, -1, &len);
        lua_pushlstring(L, msg ? msg : "(no message)", msg ? len : 12);
        lua_close(S);
        return NULL;
    }
    dump_buf d = {0};
    int dumped = lua_dump(S, dump_writer, &d);
    lua_close(S);
    if (dumped != 0 || d.failed || !d.b) {
        ona__free(d.b);
        lua_pushfstring(L, "%s: out of memory to compile it", name + (name[0] == '@'));
        *status = LUA_ERRMEM;
        return NULL;
    }
    atomic_init(&d.b->refs, 1);
    return d.b;
}

int ona__lua_chunk_load(lua_State *L, const char *source, size_t size, const char *name,
                        const char *mode) {
    uv_once(&cache.once, init_cache);
    uint64_t digest = ona__digest_bytes(ONA__DIGEST_SEED, source, size);
    uv_mutex_lock(&cache.lock);
    blob *code = find(digest, size, name);
    uv_mutex_unlock(&cache.lock);
    if (!code) {
        int status;
        code = compile(L, source, size, name, mode, &status);
        if (!code)
            return status;
        uv_mutex_lock(&cache.lock);
        keep(digest, size, name, code);
        uv_mutex_unlock(&cache.lock);
    }
    int status = luaL_loadbufferx(L, (const char *)code->bytes, code->size, name, "b");
    blob_release(code);
    return status;
}
