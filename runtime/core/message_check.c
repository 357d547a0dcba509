/*
 * message_check.c: reading the message byte format: the token reader that every decoder steps
 * through the bytes with (the C reader and release in message.c, the Lua decoder in
 * bindings/), the checker that proves a whole body well formed before anything decodes it,
 * and ona_message_validate, the checker's public face and the fuzzing entry point.
 *
 * Design note. The format itself (tags, payloads, size hints, references) is described at the
 * top of message.c, which writes it. Nothing here trusts the bytes: the token reader never reads
 * at or past `size` and checks what one token can (tag, lengths, the NUL after a string); the
 * checker adds what needs the whole body (balanced tables at most ONA_MESSAGE_MAX_DEPTH deep,
 * keys of allowed types, size hints that add up to each table's pairs, references only where
 * the caller trusts the bytes), so a decoder that runs after a successful check may assert
 * instead of checking again. Reads only; any thread, on bytes no other thread is writing.
 */
#include "common.h"

#include "message.h"

#include <math.h>
#include <stdio.h>

/* The width of a reference's pointer in the bytes (message.c writes it with the same). */
#define PTR_SIZE sizeof(void *)

/* --- Tokens ---------------------------------------------------------------------------------- */

int ona__message_token(const uint8_t *bytes, uint32_t size, uint32_t *offset, ona__token *t) {
    uint32_t off = *offset;
    if (off >= size)
        return ONA_EDECODE;
    const uint8_t *p = bytes + off + 1;
    uint64_t left = (uint64_t)size - off - 1; /* payload bytes available after the tag */
    uint64_t used = 0;
    memset(t, 0, sizeof *t);
    t->tag = bytes[off];
    t->offset = off;
    switch (t->tag) {
    case ONA__TAG_NIL:
    case ONA__TAG_FALSE:
    case ONA__TAG_TRUE:
    case ONA__TAG_END:
        break;
    case ONA__TAG_NUMBER:
        used = sizeof(double);
        if (left < used)
            return ONA_EDECODE;
        memcpy(&t->as.number, p, sizeof(double));
        break;
    case ONA__TAG_STRING: {
        uint32_t len;
        if (left < 4)
            return ONA_EDECODE;
        memcpy(&len, p, 4);
        used = 4 + (uint64_t)len + 1;
        if (len > ONA_MESSAGE_MAX_SIZE || left < used || p[4 + len] != '\0')
            return ONA_EDECODE;
        t->as.str.bytes = (const char *)p + 4;
        t->as.str.size = len;
        break;
    }
    case ONA__TAG_STRING8:
        if (left < 1)
            return ONA_EDECODE;
        used = 1 + (uint64_t)p[0] + 1;
        if (left < used || p[1 + p[0]] != '\0')
            return ONA_EDECODE;
        t->as.str.bytes = (const char *)p + 1;
        t->as.str.size = p[0];
        break;
    case ONA__TAG_SHORT_STRING:
        if (left < 1 || p[0] > ONA_STRING_INLINE_MAX)
            return ONA_EDECODE;
        used = 1 + (uint64_t)p[0];
        if (left < used)
            return ONA_EDECODE;
        t->as.str.bytes = (const char *)p + 1;
        t->as.str.size = p[0];
        break;
    case ONA__TAG_STRING_REF:
        used = PTR_SIZE + 8;
        if (left < used)
            return ONA_EDECODE;
        t->slot = off + 1;
        memcpy(&t->as.ref.heap, p, PTR_SIZE);
        memcpy(&t->as.ref.size, p + PTR_SIZE, 8);
        break;
    case ONA__TAG_BUFFER_REF:
        used = PTR_SIZE;
        if (left < used)
            return ONA_EDECODE;
        t->slot = off + 1;
        memcpy(&t->as.buffer, p, PTR_SIZE);
        break;
    case ONA__TAG_TABLE:
        used = 8;
        if (left < used)
            return ONA_EDECODE;
        memcpy(&t->as.table.array_size, p, 4);
        memcpy(&t->as.table.hash_size, p + 4, 4);
        break;
    default:
        return ONA_EDECODE;
    }
    *offset = (uint32_t)(off + 1 + used);
    return 0;
}

static int check_fail(char *err, size_t errsize, uint32_t at, const char *why) {
    if (err && errsize)
        snprintf(err, errsize, "malformed message: %s (byte %u)", why, (unsigned)at);
    return ONA_EDECODE;
}

static bool is_key_tag(const ona__token *t) {
    switch (t->tag) {
    case ONA__TAG_FALSE:
    case ONA__TAG_TRUE:
    case ONA__TAG_STRING:
    case ONA__TAG_STRING8:
        return true;
    case ONA__TAG_NUMBER:
        return !isnan(t->as.number);
    default:
        return false;
    }
}

int ona__message_check(const uint8_t *bytes, size_t size, bool allow_refs, uint32_t *count,
                       uint32_t *buffers, char *err, size_t errsize) {
    uint32_t items[ONA_MESSAGE_MAX_DEPTH]; /* tokens read in each open table */
    uint32_t pairs[ONA_MESSAGE_MAX_DEPTH]; /* the pairs its hints announced */
    uint32_t depth = 0, values = 0, live_buffers = 0, off = 0;
    if (size > ONA_MESSAGE_MAX_SIZE)
        return check_fail(err, errsize, 0, "larger than ONA_MESSAGE_MAX_SIZE");
    if (!bytes && size)
        return check_fail(err, errsize, 0, "no bytes");
    while (off < size) {
        uint32_t at = off;
        ona__token t;
        if (ona__message_token(bytes, (uint32_t)size, &off, &t) != 0)
            return check_fail(err, errsize, at, "unknown tag or truncated value");
        if (t.tag == ONA__TAG_END) {
            if (depth == 0)
                return check_fail(err, errsize, at, "end of table outside a table");
            if (items[depth - 1] & 1u)
                return check_fail(err, errsize, at, "a table key has no value");
            if (items[depth - 1] / 2 != pairs[depth - 1])
                return check_fail(err, errsize, at, "table size hints do not match its pairs");
            depth--;
            continue;
        }
        if (depth > 0 && (items[depth - 1] & 1u) == 0 && !is_key_tag(&t))
            return check_fail(err, errsize, at, "table key is not a string, number or boolean");
        if (t.tag == ONA__TAG_STRING_REF || t.tag == ONA__TAG_BUFFER_REF) {
            if (!allow_refs)
                return check_fail(err, errsize, at, "reference in untrusted bytes");
            if (t.tag == ONA__TAG_STRING_REF && t.as.ref.heap &&
                t.as.ref.size <= ONA_STRING_INLINE_MAX)
                return check_fail(err, errsize, at, "heap string reference of inline size");
            if (t.tag == ONA__TAG_BUFFER_REF && t.as.buffer)
                live_buffers++;
        }
        if (depth > 0)
            items[depth - 1]++;
        else
            values++;
        if (t.tag == ONA__TAG_TABLE) {
            if (depth == ONA_MESSAGE_MAX_DEPTH)
                return check_fail(err, errsize, at, "tables nested too deep");
            /* Each pair takes at least two bytes, and the END tag one more. */
            uint64_t announced = (uint64_t)t.as.table.array_size + t.as.table.hash_size;
            if (announced > (size - off) / 2)
                return check_fail(err, errsize, at, "table size hints exceed the message");
            items[depth] = 0;
            pairs[depth] = (uint32_t)announced;
            depth++;
        }
    }
    if (depth != 0)
        return check_fail(err, errsize, (uint32_t)size, "a table is not closed");
    if (count)
        *count = values;
    if (buffers)
        *buffers = live_buffers;
    return 0;
}

int ona_message_validate(const void *bytes, size_t size, uint32_t *count) {
    uint32_t n = 0;
    int rc = ona__message_check(bytes, size, false, &n, NULL, NULL, 0);
    if (count)
        *count = rc == 0 ? n : 0;
    return rc;
}
