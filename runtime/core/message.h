/*
 * message.h: the message codec's internal side: encoding Lua values from a system's stack into a
 * message and decoding a message onto another system's stack. The public C side (writer,
 * reader, buffers) is ona/message.h.
 *
 * Encoding never raises a Lua error: it returns ONA_EENCODE (or ONA_ENOMEM, ONA_ELIMIT,
 * ONA_ERANGE) with a message naming the bad value's path, such as
 * "msg.enemies[3].cb is a function". Decoding pushes values and may raise a Lua memory error
 * (it allocates Lua objects); it is written so that a raise leaks nothing: each string or buffer
 * reference is moved out of the message (its slot in the bytes cleared) only once a Lua value
 * owns it, so ona_message_release() afterwards frees exactly what was not handed over.
 */
#ifndef ONA_MESSAGE_INTERNAL_H
#define ONA_MESSAGE_INTERNAL_H

#include "ona/message.h"

#include <lua.h>

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

/* Appends the Lua values at stack slots first..last (absolute indices, may be an empty range)
 * to `m`, recording buffer handles in `moves` (reset first). Names the root values "msg" (one
 * value) or "msg#N" (several). On error `m` is left as it was before the call and `err` holds
 * the reason. */
int ona__message_encode_lua(ona_message *m, lua_State *L, int first, int last, ona__moves *moves,
                            char *err, size_t errsize);

/* The message went into a mailbox: the buffers now belong to it and the sender's handles die. */
void ona__message_commit_moves(ona_message *m, ona__moves *moves);

/* Pushes the message's values onto L (lua_checkstack is done here) and returns how many, or a
 * negative ONA_E* with `err` set for a malformed message (nothing pushed). Moves string and buffer
 * references into Lua userdata. Can raise a Lua memory error; see the header note.
 * Errors: ONA_EDECODE (malformed), ONA_EINVAL (holds buffers it does not own: encoded but never
 * committed), ONA_ELIMIT (more values than the Lua stack takes). A reference already moved out
 * (a second decode, or a buffer taken with ona_message_take_buffer) decodes as nil. */
int ona__message_decode_lua(ona_message *m, lua_State *L, char *err, size_t errsize);

/* Decodes arbitrary bytes (no references allowed) onto L: the fuzzing entry point for the Lua
 * side. Returns the number of values pushed or ONA_EDECODE (nothing pushed). */
int ona__message_decode_bytes_lua(const void *bytes, size_t size, lua_State *L, char *err,
                                  size_t errsize);

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
        } str; /* STRING, SHORT_STRING */
        struct {
            struct ona__string_heap *heap; /* NULL once moved out */
            uint64_t size;
        } ref; /* STRING_REF */
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

#endif
