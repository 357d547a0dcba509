/*
 * registry.c: the handle registry (registry.h): handles for objects, lock-free resolution from
 * any thread, lookup by name, and the names of dead handles.
 *
 * Design note.
 *  - A slot holds one object at a time. Its `handle` is the live handle or 0; its `generation` is
 *    that of the handle it hands out next and grows by one on every remove, so a handle value is
 *    stored in its slot at most once in the registry's life. A slot whose last handle had the
 *    greatest generation is retired (never queued again) instead of wrapping, so a stale handle
 *    never aliases a later object, however long the program runs.
 *  - Free slots form a FIFO queue linked through the slots: a removed slot goes to the back, so
 *    it waits for every other free slot to be used first. That keeps its tombstone (the name and
 *    handle of its last object, for dead_name) for as long as possible.
 *  - Names are stored inline (no allocation after init) and hashed with FNV-1a 64 into buckets
 *    (a power of two >= capacity, so chains stay short). A bucket's chain is doubly linked through
 *    the slots in insertion order, so lookup's first match is the earliest inserted, and removal
 *    unlinks in O(1). A removed slot leaves its chain: tombstones are never found by name.
 *  - One mutex orders insert, remove, lookup and dead_name. Only resolve is lock-free: it
 *    acquire-loads the slot's handle, acquire-loads the object, then reloads the handle. The
 *    writers (under the mutex) store the object before the handle on insert and the handle (0)
 *    before the object (NULL) on remove; the object stores are release stores. If resolve read
 *    the object of a later insert, that store was released after the remove that staled its
 *    handle, so the reload sees 0 or a newer handle and resolve returns NULL: a stale handle
 *    never yields another object, even while the slot is reused under it.
 */
#include "registry.h"

#include "common.h"

#include <stdio.h>

struct ona__registry_slot {
    /* Live handle, 0 while free. Written under the mutex, read lock-free by resolve. */
    _Atomic uint64_t handle;
    /* Live object, NULL while free. Written under the mutex, read lock-free by resolve. */
    _Atomic(void *) obj;
    /* The generation of the next handle; > ONA__REGISTRY_MAX_GENERATION once retired. */
    uint64_t generation;
    uint64_t dead;      /* the handle last removed from this (now free) slot; 0 otherwise */
    uint64_t hash;      /* of name */
    uint32_t prev;      /* bucket chain (index + 1; 0 = none), oldest first */
    uint32_t next;      /* bucket chain (index + 1; 0 = none) */
    uint32_t next_free; /* free queue (index + 1; 0 = none) */
    bool named;         /* in a bucket chain */
    char name[ONA__REGISTRY_NAME_SIZE];
};

#define SLOT_MASK ((UINT64_C(1) << ONA__REGISTRY_SLOT_BITS) - 1)

/* Slot index 0 is never a handle's, so the runtime's sender never resolves to a system. */
_Static_assert((ONA_SENDER_RUNTIME & SLOT_MASK) == 0, "ONA_SENDER_RUNTIME must name no slot");

static uint64_t make_handle(uint64_t generation, uint32_t index) {
    return (generation << ONA__REGISTRY_SLOT_BITS) | (uint64_t)(index + 1);
}

/* The slot a handle names, or NULL when the handle cannot be one of this registry's. */
static ona__registry_slot *slot_of(const ona__registry *r, uint64_t handle) {
    if (handle >> (ONA__REGISTRY_SLOT_BITS + ONA__REGISTRY_GENERATION_BITS))
        return NULL;
    uint64_t index = handle & SLOT_MASK;
    if (index == 0 || index > r->capacity)
        return NULL;
    return &r->slots[index - 1];
}

/* The stored (truncated) length of a name. */
static size_t name_length(const char *name) {
    return name ? strnlen(name, ONA__REGISTRY_NAME_SIZE - 1) : 0;
}

/* FNV-1a 64, as ona_string_hash. */
static uint64_t hash_name(const char *name, size_t length) {
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < length; i++) {
        h ^= (unsigned char)name[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static uint32_t next_power_of_two(uint32_t n) {
    uint32_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

int ona__registry_init(ona__registry *r, uint32_t capacity) {
    if (!r)
        return ONA_EINVAL;
    memset(r, 0, sizeof *r);
    if (capacity == 0 || capacity > ONA__REGISTRY_MAX_CAPACITY)
        return ONA_EINVAL;
    uint32_t buckets = next_power_of_two(capacity);
    r->slots = ona__calloc(capacity, sizeof *r->slots);
    r->bucket_head = ona__calloc(buckets, sizeof *r->bucket_head);
    r->bucket_tail = ona__calloc(buckets, sizeof *r->bucket_tail);
    if (!r->slots || !r->bucket_head || !r->bucket_tail || uv_mutex_init(&r->lock) != 0) {
        ona__free(r->slots);
        ona__free(r->bucket_head);
        ona__free(r->bucket_tail);
        memset(r, 0, sizeof *r);
        return ONA_ENOMEM;
    }
    r->capacity = capacity;
    r->bucket_mask = buckets - 1;
    for (uint32_t i = 0; i < capacity; i++) {
        ona__registry_slot *s = &r->slots[i];
        atomic_init(&s->handle, 0);
        atomic_init(&s->obj, NULL);
        s->generation = 1; /* so that no handle is a bare slot number */
        s->next_free = i + 2 <= capacity ? i + 2 : 0;
    }
    r->free_head = 1;
    r->free_tail = capacity;
    atomic_init(&r->count, 0);
    return 0;
}

void ona__registry_free(ona__registry *r) {
    if (!r || !r->slots)
        return;
    uv_mutex_destroy(&r->lock);
    ona__free(r->slots);
    ona__free(r->bucket_head);
    ona__free(r->bucket_tail);
    memset(r, 0, sizeof *r);
}

/* --- Under the mutex ------------------------------------------------------------------------- */

static void chain_append(ona__registry *r, uint32_t index) {
    ona__registry_slot *s = &r->slots[index];
    uint32_t bucket = (uint32_t)s->hash & r->bucket_mask;
    s->next = 0;
    s->prev = r->bucket_tail[bucket];
    if (s->prev)
        r->slots[s->prev - 1].next = index + 1;
    else
        r->bucket_head[bucket] = index + 1;
    r->bucket_tail[bucket] = index + 1;
    s->named = true;
}

static void chain_unlink(ona__registry *r, uint32_t index) {
    ona__registry_slot *s = &r->slots[index];
    uint32_t bucket = (uint32_t)s->hash & r->bucket_mask;
    if (s->prev)
        r->slots[s->prev - 1].next = s->next;
    else
        r->bucket_head[bucket] = s->next;
    if (s->next)
        r->slots[s->next - 1].prev = s->prev;
    else
        r->bucket_tail[bucket] = s->prev;
    s->prev = s->next = 0;
    s->named = false;
}

static void free_push(ona__registry *r, uint32_t index) {
    r->slots[index].next_free = 0;
    if (r->free_tail)
        r->slots[r->free_tail - 1].next_free = index + 1;
    else
        r->free_head = index + 1;
    r->free_tail = index + 1;
}

static bool free_pop(ona__registry *r, uint32_t *index) {
    if (!r->free_head)
        return false;
    *index = r->free_head - 1;
    r->free_head = r->slots[*index].next_free;
    if (!r->free_head)
        r->free_tail = 0;
    r->slots[*index].next_free = 0;
    return true;
}

/* --- The API --------------------------------------------------------------------------------- */

int ona__registry_insert(ona__registry *r, void *obj, const char *name, uint64_t *handle) {
    if (handle)
        *handle = 0;
    if (!r || !r->slots || !obj || !handle)
        return ONA_EINVAL;
    size_t length = name_length(name);
    uv_mutex_lock(&r->lock);
    uint32_t index;
    if (!free_pop(r, &index)) {
        uv_mutex_unlock(&r->lock);
        return ONA_ELIMIT;
    }
    ona__registry_slot *s = &r->slots[index];
    ONA_ASSERT(s->generation >= 1 && s->generation <= ONA__REGISTRY_MAX_GENERATION);
    uint64_t h = make_handle(s->generation, index);
    s->dead = 0; /* the slot is reused: its tombstone goes */
    memcpy(s->name, name ? name : "", length);
    s->name[length] = '\0';
    s->hash = hash_name(s->name, length);
    if (length)
        chain_append(r, index);
    /* release: a resolver that reads this object reads it fully built (see the design note). */
    atomic_store_explicit(&s->obj, obj, memory_order_release);
    /* release: a resolver that sees the handle sees the object stored just before. */
    atomic_store_explicit(&s->handle, h, memory_order_release);
    /* relaxed: a statistic; the mutex orders it against other writers. */
    atomic_store_explicit(&r->count, atomic_load_explicit(&r->count, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    uv_mutex_unlock(&r->lock);
    *handle = h;
    return 0;
}

void *ona__registry_resolve(const ona__registry *r, uint64_t handle) {
    if (!r || !r->slots)
        return NULL;
    ona__registry_slot *s = slot_of(r, handle);
    if (!s)
        return NULL;
    /* acquire: pairs with insert's release store; the object stored before it is visible. */
    if (atomic_load_explicit(&s->handle, memory_order_acquire) != handle)
        return NULL;
    /* acquire: if this reads a later insert's object, its release store comes after the remove
     * that staled `handle`, so the reload below cannot see `handle` any more. */
    void *obj = atomic_load_explicit(&s->obj, memory_order_acquire);
    /* relaxed: the acquire load above already orders this reload after the object's load. */
    if (atomic_load_explicit(&s->handle, memory_order_relaxed) != handle)
        return NULL;
    return obj;
}

void ona__registry_remove(ona__registry *r, uint64_t handle) {
    if (!r || !r->slots)
        return;
    ona__registry_slot *s = slot_of(r, handle);
    if (!s)
        return;
    uint32_t index = (uint32_t)(s - r->slots);
    uv_mutex_lock(&r->lock);
    /* relaxed: handle is only written under the mutex, which we hold. */
    if (atomic_load_explicit(&s->handle, memory_order_relaxed) != handle) {
        uv_mutex_unlock(&r->lock);
        return;
    }
    /* relaxed: resolve needs this ordered only before the object stores that follow (this
     * remove's NULL and any later insert's object), and those are release stores. */
    atomic_store_explicit(&s->handle, 0, memory_order_relaxed);
    /* release: a resolver reading NULL or a later object then reloads the handle as 0 or newer. */
    atomic_store_explicit(&s->obj, NULL, memory_order_release);
    if (s->named)
        chain_unlink(r, index);
    s->dead = handle;
    s->generation++;
    if (s->generation <= ONA__REGISTRY_MAX_GENERATION)
        free_push(r, index); /* else worn out: retired, so no handle of it ever comes back */
    /* relaxed: a statistic; the mutex orders it against other writers. */
    atomic_store_explicit(&r->count, atomic_load_explicit(&r->count, memory_order_relaxed) - 1,
                          memory_order_relaxed);
    uv_mutex_unlock(&r->lock);
}

uint64_t ona__registry_lookup(ona__registry *r, const char *name,
                              bool (*accept)(void *obj, void *ud), void *ud) {
    size_t length = name_length(name);
    if (!r || !r->slots || length == 0)
        return 0;
    uint64_t hash = hash_name(name, length);
    uint64_t found = 0;
    uv_mutex_lock(&r->lock);
    for (uint32_t i = r->bucket_head[(uint32_t)hash & r->bucket_mask]; i && !found;) {
        ona__registry_slot *s = &r->slots[i - 1];
        i = s->next;
        if (s->hash != hash || memcmp(s->name, name, length) != 0 || s->name[length] != '\0')
            continue;
        /* relaxed: handle and obj are only written under the mutex, which we hold. */
        void *obj = atomic_load_explicit(&s->obj, memory_order_relaxed);
        if (!accept || accept(obj, ud))
            found = atomic_load_explicit(&s->handle, memory_order_relaxed);
    }
    uv_mutex_unlock(&r->lock);
    return found;
}

const char *ona__registry_dead_name(ona__registry *r, uint64_t handle, char *buf, size_t size) {
    if (!r || !r->slots || !buf || size == 0)
        return NULL;
    ona__registry_slot *s = slot_of(r, handle);
    if (!s)
        return NULL;
    const char *result = NULL;
    uv_mutex_lock(&r->lock);
    if (s->dead == handle) {
        snprintf(buf, size, "%s", s->name);
        result = buf;
    }
    uv_mutex_unlock(&r->lock);
    return result;
}

uint32_t ona__registry_count(const ona__registry *r) {
    /* relaxed: a snapshot that may be stale by the time it returns. */
    return r ? atomic_load_explicit(&r->count, memory_order_relaxed) : 0;
}

void ona__registry_set_generation(ona__registry *r, uint32_t slot, uint64_t generation) {
    ONA_ASSERT(slot < r->capacity);
    ONA_ASSERT(generation >= 1 && generation <= ONA__REGISTRY_MAX_GENERATION);
    uv_mutex_lock(&r->lock);
    /* relaxed: handle is only written under the mutex, which we hold. */
    ONA_ASSERT(atomic_load_explicit(&r->slots[slot].handle, memory_order_relaxed) == 0);
    /* Only forward, so that no handle this slot gave out can come back. */
    ONA_ASSERT(generation >= r->slots[slot].generation);
    r->slots[slot].generation = generation;
    uv_mutex_unlock(&r->lock);
}
