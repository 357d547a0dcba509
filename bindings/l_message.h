/*
 * l_message.h: the Lua half of the message codec (l_message.c): encoding Lua values from a
 * system's stack into a message and decoding a message onto another system's stack.
 *
 * Encoding never raises a Lua error: it returns ONA_EENCODE (or ONA_ENOMEM, ONA_ELIMIT,
 * ONA_ERANGE) with a message naming the bad value's path, such as
 * "msg.enemies[3].cb is a function". Decoding pushes values and may raise a Lua memory error
 * (it allocates Lua objects); it is written so that a raise leaks nothing: each string or buffer
 * reference is moved out of the message (its slot in the bytes cleared) only once a Lua value
 * owns it, so ona_message_release() afterwards frees exactly what was not handed over.
 */
#ifndef ONA_L_MESSAGE_H
#define ONA_L_MESSAGE_H

#include "message.h"

#include <lua.h>

/* Appends the Lua values at stack slots first..last (absolute indices, may be an empty range)
 * to `m`, recording buffer handles in `moves` (reset first). Names the root values "msg" (one
 * value) or "msg#N" (several). On error `m` is left as it was before the call and `err` holds
 * the reason. */
int ona__message_encode_lua(ona_message *m, lua_State *L, int first, int last, ona__moves *moves,
                            char *err, size_t errsize);
/* The same, naming the root value `name` in `err` (ona.save names it "value"). */
int ona__message_encode_lua_named(ona_message *m, lua_State *L, int first, int last,
                                  ona__moves *moves, const char *name, char *err, size_t errsize);

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

#endif
