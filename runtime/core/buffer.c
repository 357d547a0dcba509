/*
 * buffer.c: ona_buffer, the typed array that messages move instead of copying (ona/message.h).
 *
 * Design note. A buffer is one allocation: a header (element count, element size, the C type
 * name that a Lua receiver casts through the FFI) followed by the zeroed element data. The header
 * is a multiple of 16 bytes and the allocator returns memory aligned for max_align_t (C's
 * realloc contract, which ona_allocator follows), so the data is 16-byte aligned without a
 * second allocation or an offset field. A buffer has a single owner at a time (a C caller, a
 * message, or one ona.Buffer userdata) and is never shared, so nothing here is synchronised:
 * whatever hands a buffer to another thread (a mailbox) provides the ordering.
 */
#include "common.h"

#include "ona/message.h"

#include <stdalign.h>

#define BUFFER_TYPE_MAX 64

struct ona_buffer {
    size_t count;
    size_t elem_size;
    char type[BUFFER_TYPE_MAX]; /* NUL-terminated C type name */
};

/* The data starts right after the header, which keeps it 16-byte aligned. */
#define BUFFER_HEADER (sizeof(struct ona_buffer))
_Static_assert(BUFFER_HEADER % 16 == 0, "the buffer header must keep the data 16-byte aligned");
_Static_assert(alignof(max_align_t) >= 16, "the allocator must return 16-byte aligned memory");

int ona_buffer_create(const char *ctype, size_t elem_size, size_t count, ona_buffer **out) {
    if (!out)
        return ONA_EINVAL;
    *out = NULL;
    if (!ctype || elem_size == 0)
        return ONA_EINVAL;
    size_t type_len = strlen(ctype);
    if (type_len == 0 || type_len >= BUFFER_TYPE_MAX)
        return ONA_EINVAL;
    if (count > ONA_MESSAGE_MAX_SIZE / elem_size)
        return ONA_ERANGE;
    size_t bytes = count * elem_size;
    ona_buffer *b = ona__malloc(BUFFER_HEADER + bytes);
    if (!b)
        return ONA_ENOMEM;
    memset(b, 0, BUFFER_HEADER + bytes);
    b->count = count;
    b->elem_size = elem_size;
    memcpy(b->type, ctype, type_len + 1);
    ONA_ASSERT(((uintptr_t)ona_buffer_data(b) & 15u) == 0);
    *out = b;
    return 0;
}

void ona_buffer_destroy(ona_buffer *buffer) {
    ona__free(buffer);
}

void *ona_buffer_data(ona_buffer *buffer) {
    return buffer ? (unsigned char *)buffer + BUFFER_HEADER : NULL;
}

size_t ona_buffer_count(const ona_buffer *buffer) {
    return buffer ? buffer->count : 0;
}

size_t ona_buffer_elem_size(const ona_buffer *buffer) {
    return buffer ? buffer->elem_size : 0;
}

const char *ona_buffer_type(const ona_buffer *buffer) {
    return buffer ? buffer->type : "";
}
