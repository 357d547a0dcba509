/*
 * lua_chunks.c: the game's Lua files compiled once for all its systems (lua_host.h:
 * ona__lua_chunks_*): every system script, module and sandboxed loadfile/dofile goes through
 * ona__lua_chunk_load.
 *
 * Design note.
 *  - A thousand systems spawned from one script, or a thousand that require one module, would
 *    read and parse the same source a thousand times; a reload of it in each of them, once per
 *    state. The runtime keeps, per resolved path, the chunk's bytecode as LuaJIT dumps it
 *    (debug info kept: chunk name, lines and locals, so errors and tracebacks read the same);
 *    a load of that path in any state is then one stat and a bytecode load, no read, no parse.
 *  - An entry is valid while the file's stat is what it was when it was compiled (device,
 *    inode, size, mtime and ctime to the nanosecond). Kernels stamp files with a coarse clock,
 *    so two writes a few milliseconds apart can leave the same stat: an entry compiled within
 *    RACY_NS of its file's mtime is *racy* (git's "racy clean" rule) and each use reads the file
 *    again and compares a digest of its bytes before trusting the bytecode. A hot reload, which
 *    comes 50 ms after the last write, is racy for a while: its systems read the file, but only
 *    the first parses it.
 *  - Only source files are kept (a file of bytecode is loaded as it is, uncached, and refused
 *    to a sandboxed system as before), so the bytecode a sandboxed system loads from here is
 *    always the runtime's own compile of source, never a forged chunk.
 *  - Bounded: at most MAX_ENTRIES files and MAX_BYTES of bytecode; past either the least
 *    recently used entry goes. The bytecode is the runtime's memory, not a system's: what it
 *    loads into its state is counted under its cap as before.
 *  - Threads: any spawning or reloading thread, under `lock` for the lookup and the insert
 *    only; the bytecode is loaded outside the lock, from a blob held by a reference, so an
 *    entry replaced meanwhile frees its blob when its last loader is done.
 */
#include "lua_host.h"

#include "digest.h"
#include "lua_sandbox.h"
#include "paths.h"

#include <lauxlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

enum { MAX_ENTRIES = 1024, BUCKETS = 256, PATH_BYTES = 4096 };
#define MAX_BYTES (32u << 20)
#define RACY_NS 2000000000ll

typedef struct blob {
    atomic_uint refs; /* the entry's and each loader's; acq_rel: the last one frees */
    size_t size;
    char bytes[];
} blob;

typedef struct ona__lua_chunk {
    struct ona__lua_chunk *next; /* in its bucket */
    char *path;
    uint64_t path_hash;
    struct stat st;         /* the file's when it was compiled */
    uint64_t source_digest; /* of the source bytes compiled */
    bool racy;              /* compiled within RACY_NS of the file's mtime */
    uint64_t used;          /* the tick of its last use */
    blob *bc;
} chunk;

static void blob_release(blob *b) {
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        ona__free(b);
}

int ona__lua_bytecode_write(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    ona__lua_bytecode *bc = ud;
    if (bc->size + size > bc->capacity) {
        size_t cap = bc->capacity ? bc->capacity * 2 : 16384;
        while (cap < bc->size + size)
            cap *= 2;
        char *grown = ona__realloc(bc->data, cap);
        if (!grown) {
            bc->failed = true;
            return 1;
        }
        bc->data = grown;
        bc->capacity = cap;
    }
    memcpy(bc->data + bc->size, p, size);
    bc->size += size;
    return 0;
}

void ona__lua_chunks_init(ona__lua_chunks *c) {
    atomic_init(&c->compiles, 0);
    atomic_init(&c->reuses, 0);
    c->lock_made = uv_mutex_init(&c->lock) == 0;
}

static void entry_free(chunk *e) {
    blob_release(e->bc);
    ona__free(e->path);
    ona__free(e);
}

/* Under the lock: an entry taken out of the table. */
static void chunk_free(ona__lua_chunks *c, chunk *e) {
    c->count--;
    c->bytes -= e->bc->size;
    entry_free(e);
}

void ona__lua_chunks_release(ona__lua_chunks *c) {
    for (uint32_t i = 0; c->buckets && i < BUCKETS; i++)
        for (chunk *e = c->buckets[i], *next; e; e = next) {
            next = e->next;
            chunk_free(c, e);
        }
    ona__free(c->buckets);
    c->buckets = NULL;
    if (c->lock_made)
        uv_mutex_destroy(&c->lock);
    c->lock_made = false;
}

static bool same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static uint64_t hash_path(const char *path) {
    return ona__digest_bytes(ONA__DIGEST_SEED, path, strlen(path));
}

/* Under the lock: the entry of `path`, or NULL. */
static chunk **find(ona__lua_chunks *c, const char *path, uint64_t h) {
    chunk **at = &c->buckets[h % BUCKETS];
    for (; *at; at = &(*at)->next)
        if ((*at)->path_hash == h && strcmp((*at)->path, path) == 0)
            return at;
    return at;
}

/* The cache of the system whose state is L; NULL for a state of no system (or no cache). */
static ona__lua_chunks *chunks_of(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    if (!lua || !lua->svc || !lua->svc->core)
        return NULL;
    ona__lua_runtime *host = lua->svc->core->host_state[ONA__HOST_SCRIPT];
    return host && host->chunks.lock_made ? &host->chunks : NULL;
}

/* A reference to the bytecode kept for `path` if its stat is still `st`; *racy says whether
 * the caller must compare the source's digest with *digest first. */
static blob *lookup(ona__lua_chunks *c, const char *path, const struct stat *st, bool *racy,
                    uint64_t *digest) {
    uint64_t h = hash_path(path);
    blob *b = NULL;
    uv_mutex_lock(&c->lock);
    chunk *e = c->buckets ? *find(c, path, h) : NULL;
    if (e && same_file(&e->st, st)) {
        e->used = ++c->tick;
        b = e->bc;
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed); /* the entry holds one */
        *racy = e->racy;
        *digest = e->source_digest;
    }
    uv_mutex_unlock(&c->lock);
    return b;
}

/* Under the lock: drops the least recently used entry. */
static void evict_one(ona__lua_chunks *c) {
    chunk **oldest = NULL;
    for (uint32_t i = 0; i < BUCKETS; i++)
        for (chunk **at = &c->buckets[i]; *at; at = &(*at)->next)
            if (!oldest || (*at)->used < (*oldest)->used)
                oldest = at;
    if (oldest) {
        chunk *e = *oldest;
        *oldest = e->next;
        chunk_free(c, e);
    }
}

static int64_t ns_of(struct timespec t) {
    return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* Keeps the function at the top of L (just compiled from `digest`'s source, `st` the file's
 * stat read before the source) as the bytecode of `path`. Without memory, nothing is kept. */
static void insert(ona__lua_chunks *c, lua_State *L, const char *path, const struct stat *st,
                   uint64_t digest) {
    ona__lua_bytecode bc = {0};
    if (lua_dump(L, ona__lua_bytecode_write, &bc) != 0 || bc.failed || bc.size > MAX_BYTES) {
        ona__free(bc.data);
        return;
    }
    blob *b = ona__malloc(sizeof *b + bc.size);
    chunk *e = ona__calloc(1, sizeof *e);
    size_t n = strlen(path) + 1;
    char *name = ona__malloc(n);
    if (!b || !e || !name) {
        ona__free(b);
        ona__free(e);
        ona__free(name);
        ona__free(bc.data);
        return;
    }
    atomic_init(&b->refs, 1);
    b->size = bc.size;
    memcpy(b->bytes, bc.data, bc.size);
    ona__free(bc.data);
    memcpy(name, path, n);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    *e = (chunk){.path = name, .path_hash = hash_path(path), .st = *st,
                 .source_digest = digest, .racy = ns_of(now) - ns_of(st->st_mtim) < RACY_NS,
                 .bc = b};
    uv_mutex_lock(&c->lock);
    if (!c->buckets)
        c->buckets = ona__calloc(BUCKETS, sizeof *c->buckets);
    if (!c->buckets) {
        uv_mutex_unlock(&c->lock);
        entry_free(e);
        return;
    }
    chunk **at = find(c, path, e->path_hash);
    if (*at) { /* another thread's compile, or an older file's: the newer stat wins */
        chunk *old = *at;
        e->next = old->next;
        *at = e;
        chunk_free(c, old);
    } else {
        *at = e;
    }
    c->count++;
    c->bytes += b->size;
    e->used = ++c->tick;
    while ((c->count > MAX_ENTRIES || c->bytes > MAX_BYTES) && c->count > 1)
        evict_one(c);
    uv_mutex_unlock(&c->lock);
}

static bool blank(const uint8_t *data, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (data[i] != ' ' && data[i] != '\t' && data[i] != '\n' && data[i] != '\r')
            return false;
    return true;
}

/* Loads the kept bytecode `b` (the caller's reference, given back). */
static int load_kept(ona__lua_chunks *c, lua_State *L, blob *b, const char *chunkname) {
    int status = luaL_loadbufferx(L, b->bytes, b->size, chunkname, "b");
    blob_release(b);
    atomic_fetch_add_explicit(&c->reuses, 1, memory_order_relaxed);
    return status;
}

int ona__lua_chunk_load(lua_State *L, const char *path, bool text_only, bool refuse_blank) {
    char chunkname[PATH_BYTES + 2];
    snprintf(chunkname, sizeof chunkname, "@%s", path);
    ona__lua_chunks *c = chunks_of(L);
    struct stat st;
    bool have_stat = c && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    bool racy = false;
    uint64_t digest = 0;
    blob *b = have_stat ? lookup(c, path, &st, &racy, &digest) : NULL;
    if (b && !racy)
        return load_kept(c, L, b, chunkname);
    uint8_t *data;
    size_t size;
    int rc = ona__read_file(path, ONA__LUA_SOURCE_MAX_BYTES, &data, &size);
    if (rc) {
        blob_release(b);
        lua_pushfstring(L, "%s: %s", path, ona__paths_why(rc, path));
        return LUA_ERRFILE;
    }
    uint64_t now_digest = ona__digest_bytes(ONA__DIGEST_SEED, data, size);
    if (b && now_digest == digest) { /* racy, but the bytes are the ones compiled */
        ona__free(data);
        return load_kept(c, L, b, chunkname);
    }
    blob_release(b);
    bool binary = size > 0 && data[0] == LUA_SIGNATURE[0];
    bool empty = refuse_blank && blank(data, size);
    int status;
    if ((binary && text_only) || empty)
        status = LUA_ERRSYNTAX;
    else
        status = luaL_loadbufferx(L, (const char *)data, size, chunkname, text_only ? "t" : NULL);
    ona__free(data); /* before anything below can raise */
    if (c && !binary && !empty)
        atomic_fetch_add_explicit(&c->compiles, 1, memory_order_relaxed);
    if (binary && text_only)
        lua_pushfstring(L,
                        "%s: a binary chunk (bytecode) is refused in a sandboxed system: it "
                        "loads Lua source only",
                        path);
    else if (empty)
        lua_pushfstring(L, "%s is empty (a save caught mid-write?): keeping the old module", path);
    else if (status == 0 && !binary && have_stat)
        insert(c, L, path, &st, now_digest);
    return status;
}
