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

/* --- The byte format, shared by message.c and bindings/l_message.c ---------------------------------
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
 * fields the tag does not use, for decoders that step through every token. */
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

/* --- The writer's fast path, for the Lua encoder --------------------------------------------
 * Writes the tokens the Lua encoder writes most (string keys and values under 256 bytes, number
 * values) without the public writer's per-token checks: the caller guarantees that the writer
 * has no error and that the token may go where it goes (strings and numbers that are not NaN
 * may be keys or values). The bytes and the table hints are the ones the public writer
 * writes. */

/* The writer's growth (message.c's `reserve`): room for `n` more bytes, or NULL with the
 * writer's error recorded (ONA_ERANGE, ONA_ENOMEM). */
uint8_t *ona__message_reserve(ona_message_writer *w, size_t n);

/* Room for `n` (< 2^16) more bytes: inline or in the heap block when they fit, else grows. */
static inline uint8_t *ona__message_room(ona_message_writer *w, uint32_t n) {
    ona_message *m = w->msg;
    uint32_t need = m->size + n; /* size <= ONA_MESSAGE_MAX_SIZE: cannot wrap */
    if (!m->heap) {
        if (need <= ONA_MESSAGE_INLINE)
            return m->inline_data + m->size;
    } else if (need <= m->capacity) {
        return m->heap + m->size;
    }
    return ona__message_reserve(w, n);
}

/* Counts the token just written (the writer's end_token). */
static inline void ona__message_counted(ona_message_writer *w, uint32_t n) {
    w->msg->size += n;
    if (w->depth == 0)
        w->msg->count++;
    else
        w->items[w->depth - 1]++;
}

/* A byte string of `size` <= 255 bytes as STRING8. 0 or the writer's error. */
static inline int ona__message_put_string8(ona_message_writer *w, const char *bytes, size_t size) {
    uint8_t *p = ona__message_room(w, (uint32_t)size + 3);
    if (!p)
        return w->error;
    p[0] = ONA__TAG_STRING8;
    p[1] = (uint8_t)size;
    memcpy(p + 2, bytes, size);
    p[2 + size] = '\0';
    ona__message_counted(w, (uint32_t)size + 3);
    return 0;
}

/* A number, as a value or as a key that is not NaN (keys taken from a Lua table never are).
 * A key keeps the table's array hint as ona_message_write_number does. 0 or the writer's
 * error. */
static inline int ona__message_put_number(ona_message_writer *w, double value) {
    uint8_t *p = ona__message_room(w, 1 + sizeof(double));
    if (!p)
        return w->error;
    if (w->depth > 0) {
        uint32_t d = w->depth - 1;
        if ((w->items[d] & 1u) == 0 && w->array_[d] == w->items[d] / 2 &&
            value == (double)w->array_[d] + 1.0)
            w->array_[d]++;
    }
    p[0] = ONA__TAG_NUMBER;
    memcpy(p + 1, &value, sizeof(double));
    ona__message_counted(w, 1 + sizeof(double));
    return 0;
}

/* The encoded bytes of a message. */
static inline uint8_t *ona__message_bytes(ona_message *m) {
    return m->heap ? m->heap : m->inline_data;
}

/* A copy of `src` into `dst` (initialised here). Strings are shared by reference; a message
 * holding a buffer cannot be copied (ONA_EINVAL, `dst` left empty). message_clone.c. */
int ona__message_clone(ona_message *src, ona_message *dst);
/* The same, but a buffer is copied into a new one (its type and bytes), and the copy keeps the
 * sender: what a failed turn took, kept for its re-run (retake.c). ONA_ENOMEM or ONA_ERANGE. */
int ona__message_duplicate(ona_message *src, ona_message *dst);
/* Writes one value read from another message, if it is one every copy writes the same way (nil,
 * boolean, number, string, table begin and end): true when written (the writer records its own
 * errors). Shared strings and buffers are the caller's to handle (false). message_clone.c. */
bool ona__message_copy_plain(ona_message_writer *w, const ona_value *v);

#endif
