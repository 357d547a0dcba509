/*
 * digest.h: the digests a recording keeps of each system's frame (runtime/services/record.c),
 * and the one hash they use. Internal to the library.
 *
 * While a runtime records or replays (`ona__core.digesting`, set by the assembly at create and
 * never changed after), each system's turn folds what it took and gave this frame into its own
 * digests (ona__system.digest / digest_count, the turn's fields): the messages it received
 * (delivery.c), the draws it submitted (services/draw.c) and the sound commands it queued
 * (services/services.c). A system runs on one thread at a time and these happen in the order
 * its own code runs, so each digest is the same on every thread count; main reads and clears
 * them after the frame's turns. With `digesting` false nothing is hashed.
 *
 * The hash is not cryptographic: 64-bit words folded with a multiply and a shift (the tail
 * padded with zeros, the length folded last), a few GB/s, enough to tell a changed frame apart.
 */
#ifndef ONA_DIGEST_H
#define ONA_DIGEST_H

#include "ona/message.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What a digest covers. The numbers are the recording format's (record.c): keep them. */
enum {
    ONA__DIGEST_RECEIVED = 0, /* messages taken, in the order taken */
    ONA__DIGEST_DREW,         /* draw runs: key (layer, blend, shader) and sprites */
    ONA__DIGEST_PLAYED,       /* sound commands */
    ONA__DIGEST_KINDS,
};

#define ONA__DIGEST_SEED 0x6f6e617265633031ull /* "onarec01" */

/* How many of a frame's first messages a system keeps in detail, and the text of each. */
#define ONA__DETAIL_MESSAGES 8
#define ONA__DETAIL_TEXT 96

static inline uint64_t ona__digest_word(uint64_t h, uint64_t w) {
    h ^= w;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 31);
}

static inline uint64_t ona__digest_bytes(uint64_t h, const void *bytes, size_t size) {
    const unsigned char *p = bytes;
    size_t n = size;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = ona__digest_word(h, w);
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h = ona__digest_word(h, w);
    }
    return ona__digest_word(h, (uint64_t)size);
}

struct ona__core;

/* The digest of a message's values (strings by their bytes, shared or not; a buffer by its type,
 * element size, count and bytes), never of the pointers its encoding may hold, so the same
 * values hash the same in every run. A number that is the handle of a live system of `core` is
 * digested as that system's spawn order: handle numbers depend on which thread spawned first,
 * spawn orders do not. */
uint64_t ona__digest_message(uint64_t h, ona_message *m, struct ona__core *core);

struct ona__system;
/* Folds the message `sys` just took (its inbox, from spawn order `from` - 1, 0 from C) into its
 * digest of received messages, and keeps the frame's first ones in detail. Its own turn. */
void ona__digest_take(struct ona__system *sys, uint32_t from);
/* Writes a message's values as text, `("hit", 17, {x = 1})`, cut with "..." to fit `size`. */
void ona__message_render(ona_message *m, char *buf, size_t size);

#endif
