/*
 * message.h: the message codec's internal side shared by the core and the Lua half of the codec
 * (bindings/l_message.h): buffer moves, message flags, and the byte format's tokenizer and
 * checker. The public C side (writer, reader, buffers) is ona/message.h.
 */
#ifndef ONA_MESSAGE_INTERNAL_H
#define ONA_MESSAGE_INTERNAL_H

#include "ona/message.h"
#include <string.h>

/* Buffers are moved by a send, but only once the message is in the receiver's mailbox: a send
 * that parks on a full mailbox, or fails, must leave the sender's handles alive. The encoder
 * records the sender's buffer handles here; ona__message_commit_moves kills them. */
#define ONA__MAX_MOVES 64
typedef struct ona__moves {
    uint32_t count;
    ona_buffer **handles[ONA__MAX_MOVES]; /* the `buffer` fields of the sender's userdata */
} ona__moves;

/* Message flags (ona_message.flags). */
enum {
    /* The message owns the buffers it references (set by commit or by the C writer). Without
     * it, release leaves the buffers to the sender's handles. */
    ONA__MESSAGE_OWNS_BUFFERS = 1u << 0,
    /* The bytes hold string or buffer references (release must walk them). */
    ONA__MESSAGE_HAS_REFS = 1u << 1,
    /* Added by the codec: the bytes hold buffers that the sender's Lua handles still own
     * (encoded, not yet committed). A message never mixes these with buffers it owns: the C
     * writer refuses a buffer into such a message, and the Lua encoder refuses a buffer into a
     * message that already owns some. Commit clears it and sets ONA__MESSAGE_OWNS_BUFFERS. */
    ONA__MESSAGE_LENT_BUFFERS = 1u << 2,
};

/* The message went into a mailbox: the buffers now belong to it and the sender's handles die. */
void ona__message_commit_moves(ona_message *m, ona__moves *moves);

/* --- The byte format, shared by message.c and message_lua.c ---------------------------------
 * Added by the codec; message.c's opening comment describes the format. */

enum {
    ONA__TAG_NIL = 1,
    ONA__TAG_FALSE = 2,
    ONA__TAG_TRUE = 3,
    ONA__TAG_NUMBER = 4,       /* double, 8 bytes */
    ONA__TAG_STRING = 5,       /* u32 length, bytes, NUL */
    ONA__TAG_SHORT_STRING = 6, /* an inline ona_string: u8 length (<= 23), bytes */
    ONA__TAG_STRING_REF = 7,   /* a heap ona_string: heap pointer, u64 length (trusted only) */
    ONA__TAG_BUFFER_REF = 8,   /* an ona_buffer pointer (trusted only) */
    ONA__TAG_TABLE = 9,        /* u32 array size, u32 hash size, pairs, END */
    ONA__TAG_END = 10,         /* end of a table */
    ONA__TAG_STRING8 = 11,     /* u8 length (< 256), bytes, NUL: STRING for short byte strings */
};

/* One decoded token. Pointers point into the bytes (`str`) or are the stored references. */
typedef struct ona__token {
    uint8_t tag;
    uint32_t offset; /* of the tag byte */
    uint32_t slot;   /* reference tags: offset of the stored pointer (cleared to NULL when moved) */
    union {
        double number;
        struct {
            const char *bytes;
            uint32_t size;
        } str; /* STRING, STRING8, SHORT_STRING */
        struct {
            struct ona__string_heap *heap; /* NULL once moved out */
            uint64_t size;
        } ref;              /* STRING_REF */
        ona_buffer *buffer; /* BUFFER_REF; NULL once moved out */
        struct {
            uint32_t array_size;
            uint32_t hash_size;
        } table;
    } as;
} ona__token;

/* Reads the token at *offset into *t and advances *offset past it. Checks only what one token
 * can check: the tag, that its fields fit in `size`, the NUL after a string, the short string
 * length. Never reads at or past `size`. Returns 0 or ONA_EDECODE. */
int ona__message_token(const uint8_t *bytes, uint32_t size, uint32_t *offset, ona__token *t);

/* The token at *offset of bytes known to be well formed (ona__message_check accepted them, or the
 * writer wrote them): as ona__message_token without the bounds checks and without clearing the
 * fields the tag does not use, for decoders that step through every token (issue 12). */
static inline void ona__message_token_trusted(const uint8_t *bytes, uint32_t *offset,
                                              ona__token *t) {
    uint32_t off = *offset, used = 0;
    const uint8_t *p = bytes + off + 1;
    t->tag = bytes[off];
    t->offset = off;
    switch (t->tag) {
    case ONA__TAG_NUMBER:
        used = sizeof(double);
        memcpy(&t->as.number, p, sizeof(double));
        break;
    case ONA__TAG_STRING:
        memcpy(&t->as.str.size, p, 4);
        t->as.str.bytes = (const char *)p + 4;
        used = 4 + t->as.str.size + 1;
        break;
    case ONA__TAG_STRING8:
        t->as.str.size = p[0];
        t->as.str.bytes = (const char *)p + 1;
        used = 1 + (uint32_t)p[0] + 1;
        break;
    case ONA__TAG_SHORT_STRING:
        t->as.str.size = p[0];
        t->as.str.bytes = (const char *)p + 1;
        used = 1 + (uint32_t)p[0];
        break;
    case ONA__TAG_STRING_REF:
        t->slot = off + 1;
        memcpy(&t->as.ref.heap, p, sizeof(void *));
        memcpy(&t->as.ref.size, p + sizeof(void *), 8);
        used = (uint32_t)sizeof(void *) + 8;
        break;
    case ONA__TAG_BUFFER_REF:
        t->slot = off + 1;
        memcpy(&t->as.buffer, p, sizeof(void *));
        used = (uint32_t)sizeof(void *);
        break;
    case ONA__TAG_TABLE:
        memcpy(&t->as.table.array_size, p, 4);
        memcpy(&t->as.table.hash_size, p + 4, 4);
        used = 8;
        break;
    default: /* NIL, FALSE, TRUE, END: no payload */
        break;
    }
    *offset = off + 1 + used;
}

/* Checks that `size` bytes are a well-formed message body: every token, keys of allowed types
 * (no NaN), tables balanced, nested at most ONA_MESSAGE_MAX_DEPTH deep, with size hints that add
 * up to their pairs. Reference tags are refused unless `allow_refs`. Sets *count to the number
 * of top-level values and *buffers (may be NULL) to the number of buffer references not yet
 * moved out. Returns 0, or ONA_EDECODE with a reason in err (which may be NULL). */
int ona__message_check(const uint8_t *bytes, size_t size, bool allow_refs, uint32_t *count,
                       uint32_t *buffers, char *err, size_t errsize);

/* Writes a reference to a buffer that the message does not own: the sender's handle keeps it
 * until ona__message_commit_moves. Sets ONA__MESSAGE_LENT_BUFFERS. Errors as the writer's, and
 * ONA_EINVAL when the message already owns buffers. */
int ona__message_write_buffer_lent(ona_message_writer *w, ona_buffer *buffer);

/* The encoded bytes of a message. */
static inline uint8_t *ona__message_bytes(ona_message *m) {
    return m->heap ? m->heap : m->inline_data;
}

/* A copy of `src` into `dst` (initialised here). Strings are shared by reference; a message
 * holding a buffer cannot be copied (ONA_EINVAL, `dst` left empty). message_clone.c. */
int ona__message_clone(ona_message *src, ona_message *dst);
/* Writes one value read from another message, if it is one every copy writes the same way (nil,
 * boolean, number, string, table begin and end): true when written (the writer records its own
 * errors). Shared strings and buffers are the caller's to handle (false). message_clone.c. */
bool ona__message_copy_plain(ona_message_writer *w, const ona_value *v);

#endif
