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
 * references into Lua userdata. Can raise a Lua memory error; see the header note. */
int ona__message_decode_lua(ona_message *m, lua_State *L, char *err, size_t errsize);

/* Decodes arbitrary bytes (no references allowed) onto L: the fuzzing entry point for the Lua
 * side. Returns the number of values pushed or ONA_EDECODE (nothing pushed). */
int ona__message_decode_bytes_lua(const void *bytes, size_t size, lua_State *L, char *err,
                                  size_t errsize);

/* The encoded bytes of a message. */
static inline uint8_t *ona__message_bytes(ona_message *m) {
    return m->heap ? m->heap : m->inline_data;
}

#endif
