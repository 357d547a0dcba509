/*
 * ona/message.h: messages between systems, built and read from C; and buffers, the payload that
 * moves instead of being copied.
 *
 * A message is a tuple of values encoded by C: nil, booleans, numbers, byte strings, ona_string
 * values (shared by reference count, never copied), buffers (moved: single owner at a time) and
 * plain tables of those (nested, acyclic, at most ONA_MESSAGE_MAX_DEPTH deep; keys are strings,
 * numbers or booleans). Lua systems send and receive the same encoding, so C and Lua systems
 * message each other alike.
 *
 * Ownership: an ona_message is a value the caller owns until it is sent. Sending moves it into
 * the receiver's mailbox (the caller's message is reset to empty); a message that was not sent
 * must be released with ona_message_release(). A received message is borrowed from the runtime
 * (see ona/runtime.h). Strings added to a message are referenced, not copied; buffers added to a
 * message are moved into it.
 *
 * Threads: a message, writer or reader is used by one thread at a time; it may be handed to
 * another thread (that is what sending does).
 */
#ifndef ONA_MESSAGE_H
#define ONA_MESSAGE_H

#include "ona/base.h"
#include "ona/string.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encoded bytes up to this size live inside the message with no allocation. */
#define ONA_MESSAGE_INLINE 56
/* Tables may nest this deep (the top-level values are depth 0). */
#define ONA_MESSAGE_MAX_DEPTH 32
/* A message holds at most this many encoded bytes. */
#define ONA_MESSAGE_MAX_SIZE (64u * 1024u * 1024u)

/* --- Buffers --------------------------------------------------------------------------------- */

/* A typed array of `count` elements of `elem_size` bytes, named by a C type (`"float"`,
 * `"struct sprite"`) so that a Lua receiver can cast it through the FFI. Single owner: adding it
 * to a message moves it. The data is 16-byte aligned and zero-initialised. */
typedef struct ona_buffer ona_buffer;

/* Errors: ONA_EINVAL (NULL out, empty or over-long (>= 64 bytes) type name, zero elem_size),
 * ONA_ERANGE (count * elem_size overflows or exceeds ONA_MESSAGE_MAX_SIZE), ONA_ENOMEM. */
ONA_API int ona_buffer_create(const char *ctype, size_t elem_size, size_t count, ona_buffer **out);
/* Frees a buffer the caller owns. NULL is ignored. */
ONA_API void ona_buffer_destroy(ona_buffer *buffer);
ONA_API void *ona_buffer_data(ona_buffer *buffer);
ONA_API size_t ona_buffer_count(const ona_buffer *buffer);
ONA_API size_t ona_buffer_elem_size(const ona_buffer *buffer);
ONA_API const char *ona_buffer_type(const ona_buffer *buffer);

/* --- Messages -------------------------------------------------------------------------------- */

/* Treat the fields as private. `heap` is NULL while the bytes fit `inline_data`. */
typedef struct ona_message {
    uint8_t *heap;
    uint32_t size;     /* encoded bytes */
    uint32_t capacity; /* of heap */
    uint32_t count;    /* top-level values */
    uint32_t flags;
    uint64_t sender; /* the sending system's handle id; 0 when sent from outside a system */
    uint8_t inline_data[ONA_MESSAGE_INLINE];
} ona_message;

/* Makes an empty message (count 0). A zero-initialised message is also empty. */
ONA_API void ona_message_init(ona_message *m);
/* Releases everything the message holds (string references, buffers, heap bytes) and leaves it
 * empty. NULL is ignored. */
ONA_API void ona_message_release(ona_message *m);
/* The number of top-level values. */
ONA_API uint32_t ona_message_count(const ona_message *m);
/* The sending system's handle id (0 from outside a system). */
ONA_API uint64_t ona_message_sender(const ona_message *m);

/* --- Writing --------------------------------------------------------------------------------- */

/* Appends values to a message. The first failing call records its error and later calls do
 * nothing; ona_message_writer_end() returns it. Tables: call table_begin, then alternate key and
 * value (any value may be a nested table; keys must be byte strings (write_string), numbers other
 * than NaN, or booleans: any other key is ONA_EENCODE), then table_end. */
typedef struct ona_message_writer {
    ona_message *msg;
    int error;
    uint32_t depth;
    uint32_t open[ONA_MESSAGE_MAX_DEPTH];  /* byte offset of each open table's header */
    uint32_t items[ONA_MESSAGE_MAX_DEPTH]; /* keys and values written into each open table */
    /* Private: the leading keys 1..n of each open table (its array size hint), and where
     * ona_message_writer_begin found the message, for the rollback on error. */
    uint32_t array_[ONA_MESSAGE_MAX_DEPTH];
    uint32_t start_size_;
    uint32_t start_count_;
    uint32_t start_flags_;
} ona_message_writer;

/* Starts appending to `m` (which keeps what it already holds). */
ONA_API void ona_message_writer_begin(ona_message_writer *w, ona_message *m);
ONA_API int ona_message_write_nil(ona_message_writer *w);
ONA_API int ona_message_write_boolean(ona_message_writer *w, bool value);
ONA_API int ona_message_write_number(ona_message_writer *w, double value);
/* Copies `size` bytes (may hold NULs). */
ONA_API int ona_message_write_string(ona_message_writer *w, const char *bytes, size_t size);
/* Adds a reference to `s` (O(1), no bytes copied for heap strings). Not allowed as a table key
 * (it would decode to a Lua userdata key): use write_string for keys. */
ONA_API int ona_message_write_ona_string(ona_message_writer *w, const ona_string *s);
/* Moves the buffer into the message: on success *buffer is set to NULL (on error the caller
 * keeps it). Errors: ONA_EINVAL for a NULL buffer, or for a message holding buffers encoded from
 * Lua that are not yet sent (a message never mixes owned and not-yet-owned buffers). */
ONA_API int ona_message_write_buffer(ona_message_writer *w, ona_buffer **buffer);
/* Errors: ONA_ELIMIT past ONA_MESSAGE_MAX_DEPTH. */
ONA_API int ona_message_write_table_begin(ona_message_writer *w);
/* Errors: ONA_EINVAL when no table is open or a key has no value. */
ONA_API int ona_message_write_table_end(ona_message_writer *w);
/* Finishes: returns the first error (ONA_EINVAL for a table left open, ONA_ENOMEM,
 * ONA_ERANGE past ONA_MESSAGE_MAX_SIZE, ONA_EENCODE for a bad key). On error the values written
 * since ona_message_writer_begin are removed again (and buffers moved in are destroyed). */
ONA_API int ona_message_writer_end(ona_message_writer *w);

/* --- Reading --------------------------------------------------------------------------------- */

typedef enum ona_value_type {
    ONA_VALUE_END = 0, /* no more values */
    ONA_VALUE_NIL,
    ONA_VALUE_BOOLEAN,
    ONA_VALUE_NUMBER,
    ONA_VALUE_STRING,     /* bytes copied from a Lua string or ona_message_write_string */
    ONA_VALUE_ONA_STRING, /* a shared ona_string */
    ONA_VALUE_BUFFER,
    ONA_VALUE_TABLE_BEGIN, /* then key, value, key, value, ..., TABLE_END */
    ONA_VALUE_TABLE_END,
} ona_value_type;

/* One token of a message. Pointers are borrowed from the message and valid while it is. */
typedef struct ona_value {
    ona_value_type type;
    union {
        bool boolean;
        double number;
        struct {
            const char *bytes; /* NUL-terminated */
            size_t size;
        } string;
        /* Copy it (ona_string_copy) to keep it. It points into the reader, so it is valid only
         * until the next ona_message_read. */
        const ona_string *ona_string;
        ona_buffer *buffer; /* take it with ona_message_take_buffer to keep it */
        struct {
            uint32_t array_size; /* hint: keys 1..n come first */
            uint32_t hash_size;
        } table;
    } as;
} ona_value;

typedef struct ona_message_reader {
    ona_message *msg;
    uint32_t offset;
    uint32_t depth;
    int error;
    /* Private: offset + 1 of the pointer of the buffer the last read returned (0: none), and
     * the string that ONA_VALUE_ONA_STRING values point at (the bytes hold no ona_string
     * struct: a short string is stored as its bytes, a heap one as its block pointer). */
    uint32_t buffer_slot_;
    ona_string scratch_;
} ona_message_reader;

ONA_API void ona_message_reader_begin(ona_message_reader *r, ona_message *m);
/* Reads the next token into *out. Returns 0 (out->type is ONA_VALUE_END after the last one) or
 * ONA_EDECODE for malformed bytes. A string or buffer that was already moved out of the message
 * (by ona_message_take_buffer or by decoding it into Lua) reads as ONA_VALUE_NIL. */
ONA_API int ona_message_read(ona_message_reader *r, ona_value *out);
/* Takes ownership of the buffer the reader last returned; the message no longer frees it.
 * Returns NULL when the last token was not a buffer or it was already taken, or when the message
 * does not own its buffers (encoded from Lua and not yet sent: the sender's handles own them). */
ONA_API ona_buffer *ona_message_take_buffer(ona_message_reader *r);

/* Checks that `size` arbitrary bytes form a well-formed message body with no string or buffer
 * references (which untrusted bytes can never carry): returns 0 and sets *count, or ONA_EDECODE.
 * Never reads past `size`. This is the fuzzing entry point. */
ONA_API int ona_message_validate(const void *bytes, size_t size, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* ONA_MESSAGE_H */
