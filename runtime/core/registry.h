/*
 * registry.h: the core's handle registry: gives objects (opaque pointers) 64-bit handles that any
 * thread can resolve without a lock, and finds them by name.
 *
 * A handle is (generation << 20) | (slot + 1): never 0, always below 2^53 (so a Lua number holds
 * it exactly). A slot's generation grows by one each time the slot is freed and is never
 * reused: a slot worn out at the 33-bit limit is retired for good, so a stale handle can never
 * resolve again, whatever happens. Freed slots are reused in FIFO order, so a freed slot stays
 * unused as long as possible and the name of its last object (its tombstone) lives long.
 *
 * Threads: insert, lookup and dead_name may run on any thread (they take the registry's mutex);
 * resolve and count on any thread without a lock. remove runs where no other thread will use a
 * pointer it resolved for that handle afterwards (the runtime: the main thread at a frame
 * boundary). init and free run while no other thread uses the registry.
 */
#ifndef ONA_REGISTRY_H
#define ONA_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#define ONA__REGISTRY_SLOT_BITS 20
#define ONA__REGISTRY_GENERATION_BITS 33
/* The most objects a registry can hold (capacity 1..this). */
#define ONA__REGISTRY_MAX_CAPACITY ((1u << ONA__REGISTRY_SLOT_BITS) - 1)
/* The last generation a slot hands out before it is retired. */
#define ONA__REGISTRY_MAX_GENERATION ((UINT64_C(1) << ONA__REGISTRY_GENERATION_BITS) - 1)
/* Names are stored inline: up to 63 bytes and a NUL; longer names are truncated (when inserted
 * and when looked up alike, so a long name still finds itself). */
#define ONA__REGISTRY_NAME_SIZE 64

/* Private to registry.c. */
typedef struct ona__registry_slot ona__registry_slot;

/* Defined here so that it can be embedded; its fields are registry.c's business. */
typedef struct ona__registry {
    ona__registry_slot *slots;
    uint32_t *bucket_head; /* per bucket: first slot of its chain (index + 1), oldest first */
    uint32_t *bucket_tail; /* per bucket: last slot of its chain (index + 1) */
    uint32_t bucket_mask;
    uint32_t capacity;
    uint32_t free_head; /* FIFO of free slots through ona__registry_slot.next_free (index + 1) */
    uint32_t free_tail;
    atomic_uint count; /* live objects */
    uv_mutex_t lock;
} ona__registry;

/* capacity = the most live objects, 1..ONA__REGISTRY_MAX_CAPACITY. Allocates everything the
 * registry will need. Errors: ONA_EINVAL (capacity), ONA_ENOMEM. */
int ona__registry_init(ona__registry *r, uint32_t capacity);
/* Frees the registry's memory (not the objects). Safe on a zeroed struct. */
void ona__registry_free(ona__registry *r);

/* Any thread. Gives `obj` (not NULL) a fresh handle and registers `name` with it (copied; NULL or
 * "" = not findable by name). Never allocates. Errors: ONA_EINVAL, ONA_ELIMIT when every slot is
 * taken (`capacity` objects, less any slots retired at the generation limit). */
int ona__registry_insert(ona__registry *r, void *obj, const char *name, uint64_t *handle);
/* Any thread, lock-free. The object of a live handle; NULL for a handle that is stale or was
 * never valid (0, out of range, wrong generation). The pointer stays valid until the object is
 * removed. */
void *ona__registry_resolve(const ona__registry *r, uint64_t handle);
/* The caller guarantees that no other thread uses a pointer resolved from `handle` after this
 * (the runtime removes only at a frame boundary). Afterwards the handle, and every older handle
 * of its slot, is stale forever; the name stays as the slot's tombstone until the slot is
 * reused. A stale or invalid handle is ignored. */
void ona__registry_remove(ona__registry *r, uint64_t handle);
/* Any thread, O(1) expected. The handle of the live object registered as `name` for which
 * accept(obj, ud) is true (accept NULL = any), the earliest inserted of them; 0 when none.
 * accept runs with the registry's mutex held: it must not call into the registry. */
uint64_t ona__registry_lookup(ona__registry *r, const char *name,
                              bool (*accept)(void *obj, void *ud), void *ud);
/* Any thread. For a handle that was live and has been removed, while its slot has not been
 * reused: copies the name it had into buf (truncated to size; "" when it had none) and returns
 * buf. NULL otherwise (live, never valid, slot reused, size 0). */
const char *ona__registry_dead_name(ona__registry *r, uint64_t handle, char *buf, size_t size);
/* Any thread: live objects (a snapshot). */
uint32_t ona__registry_count(const ona__registry *r);

/* Tests only: sets the generation that free, unretired slot `slot` (0-based) hands out next, to
 * a value at least its current one and at most ONA__REGISTRY_MAX_GENERATION, so that retirement
 * at the limit can be tested without 2^33 reuses. */
void ona__registry_set_generation(ona__registry *r, uint32_t slot, uint64_t generation);

#endif /* ONA_REGISTRY_H */
