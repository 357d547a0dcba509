/*
 * handle.h: generation-checked slot handles, shared by every table that hands out 32-bit ids
 * (textures, sounds, the asset registry). Internal.
 *
 * An id is generation << 16 | (slot index + 1); 0 is never an id. A table publishes a slot's id
 * with a release store once the slot's fields are complete, and retires it (stores 0) before it
 * reuses the slot with the next generation; a lookup compares the id with an acquire load, so a
 * stale or forged id looks up to NULL and a live one sees the fields its publisher wrote. A slot
 * is retired and reused only where no reader can hold its old id (each table says where: main,
 * at the frame boundary, when no turn runs).
 */
#ifndef ONA_HANDLE_H
#define ONA_HANDLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t ona__handle_make(uint32_t index, uint16_t generation) {
    return ((uint32_t)generation << 16) | (index + 1);
}

/* The generation after `g`: never 0, so an id is never 0 whatever its slot. */
static inline uint16_t ona__handle_next_generation(uint16_t g) {
    return (uint16_t)(g == UINT16_MAX ? 1 : g + 1);
}

/* Picks a slot for a new handle: the last one freed (`free_slots`, `*free_count` of them), else
 * the next never used (`*used` of `max` so far). False when the table is full. Under the
 * table's lock. */
static inline bool ona__handle_take_slot(uint32_t *free_slots, uint32_t *free_count, uint32_t *used,
                                         uint32_t max, uint32_t *index) {
    if (*free_count)
        *index = free_slots[--*free_count];
    else if (*used < max)
        *index = (*used)++;
    else
        return false;
    return true;
}

/* The slot of `id` in `slots` (`count` slots of `stride` bytes whose published id is the
 * _Atomic uint32_t at `id_offset`), or NULL for 0, an index out of range or a stale id. */
static inline void *ona__handle_lookup(void *slots, size_t stride, size_t id_offset, uint32_t count,
                                       uint32_t id) {
    uint32_t index = id & 0xFFFFu;
    if (index == 0 || index > count)
        return NULL;
    char *slot = (char *)slots + (size_t)(index - 1) * stride;
    _Atomic uint32_t *live = (_Atomic uint32_t *)(void *)(slot + id_offset);
    /* acquire: pairs with the publisher's release store; the slot's fields are complete. */
    return atomic_load_explicit(live, memory_order_acquire) == id ? slot : NULL;
}

/* ona__handle_lookup over an array of `type` with an `id` member. */
#define ONA__HANDLE_LOOKUP(array, type, count, id_value)                                           \
    ((type *)ona__handle_lookup((array), sizeof(type), offsetof(type, id), (count), (id_value)))

#endif
