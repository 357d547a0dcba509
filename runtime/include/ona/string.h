/*
 * ona/string.h: the shared-nothing string.
 *
 * An ona_string is immutable UTF-8 bytes (embedded NULs allowed; the bytes are not validated as
 * UTF-8, only carried). A value of up to ONA_STRING_INLINE_MAX (23) bytes lives inside the
 * 24-byte struct and never allocates. A longer one lives in one heap block behind an atomic
 * reference count, so ona_string_copy() is O(1) and the copies may be held and released by any
 * threads in any order. No function mutates a string; new strings come from bytes, formatting,
 * concatenation or a builder.
 *
 * Ownership: every ona_string a function gives you (create, format, copy, builder finish) is
 * yours and must be released once with ona_string_release(). Initialise a string variable with
 * ONA_STRING_EMPTY; releasing it is a no-op, and releasing twice is safe because release resets
 * the value to empty. (A memset-zero value is not empty: the inline encoding that keeps 23-byte
 * strings NUL-terminated reads it as 23 NUL bytes. It is still safe to read and release.)
 *
 * Threads: all functions may be called from any thread. A single ona_string value (the 24-byte
 * struct) is not itself synchronised: give each thread its own copy.
 *
 * The data pointer of an inline string points into the struct: it moves with the value and is
 * valid only while that value is alive and unmoved. The data pointer of a heap string is valid
 * while any copy is alive.
 */
#ifndef ONA_STRING_H
#define ONA_STRING_H

#include "ona/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONA_STRING_INLINE_MAX 23

struct ona__string_heap;

/* 24 bytes. Inline: bytes in `inline_bytes[0..len)`, NUL after them, and the last byte holds
 * (23 - len), which is itself the terminating NUL when len is 23. Heap: `heap` and `size`, and
 * the last byte is ONA__STRING_HEAP_TAG. Treat the fields as private. */
typedef union ona_string {
    char inline_bytes[ONA_STRING_INLINE_MAX + 1];
    struct {
        struct ona__string_heap *heap;
        size_t size;
        char pad_[7];
        unsigned char tag;
    } h;
} ona_string;

#define ONA__STRING_HEAP_TAG 0xFFu
/* The empty string: inline, length 0, last byte 23. */
#define ONA_STRING_EMPTY                                                                           \
    ((ona_string){.inline_bytes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                             \
                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ONA_STRING_INLINE_MAX}})

/* Makes a string of `size` bytes copied from `bytes` (which may hold NULs; may be NULL when size
 * is 0). Errors: ONA_EINVAL (out NULL, or bytes NULL with size > 0), ONA_ENOMEM. On error *out
 * is the empty string. */
ONA_API int ona_string_create(ona_string *out, const char *bytes, size_t size);

/* ona_string_create with strlen(cstr) bytes. Errors as ona_string_create. */
ONA_API int ona_string_from_cstr(ona_string *out, const char *cstr);

/* Makes a string from a printf-style format. Errors: ONA_EINVAL (NULL out or fmt),
 * ONA_EFORMAT (the C library rejected the format), ONA_ENOMEM. On error *out is empty. */
ONA_API int ona_string_format(ona_string *out, const char *fmt, ...) ONA_PRINTF(2, 3);
ONA_API int ona_string_vformat(ona_string *out, const char *fmt, va_list args);

/* Makes a + b. Errors: ONA_EINVAL, ONA_ENOMEM. */
ONA_API int ona_string_concat(ona_string *out, const ona_string *a, const ona_string *b);

/* The out-of-line halves of copy and release for heap strings (use the functions below). */
ONA_API void ona__string_heap_retain(struct ona__string_heap *heap);
ONA_API void ona__string_heap_release(struct ona__string_heap *heap);
ONA_API const char *ona__string_heap_bytes(const struct ona__string_heap *heap);

/* True when the string lives inline (no heap block). */
static inline bool ona_string_is_inline(const ona_string *s) {
    return !s || s->h.tag != ONA__STRING_HEAP_TAG;
}

/* Returns a copy: the same bytes, O(1) (inline: 24-byte copy; heap: one relaxed atomic
 * increment). The copy must be released. Never fails. Inline so that copying a short string is
 * a plain struct copy. */
static inline ona_string ona_string_copy(const ona_string *s) {
    if (!s)
        return ONA_STRING_EMPTY;
    if (!ona_string_is_inline(s))
        ona__string_heap_retain(s->h.heap);
    return *s;
}

/* Releases the string's reference (freeing the heap block when it was the last) and resets *s to
 * the empty string. NULL is ignored. */
static inline void ona_string_release(ona_string *s) {
    if (!s)
        return;
    if (!ona_string_is_inline(s))
        ona__string_heap_release(s->h.heap);
    *s = ONA_STRING_EMPTY;
}

/* The number of bytes, not counting the terminating NUL. */
static inline size_t ona_string_length(const ona_string *s) {
    if (!s)
        return 0;
    if (!ona_string_is_inline(s))
        return s->h.size;
    return (size_t)(ONA_STRING_INLINE_MAX - (unsigned char)s->inline_bytes[ONA_STRING_INLINE_MAX]);
}

/* The bytes, always followed by a NUL so C callers can pass them on (but the string itself may
 * hold NULs: use ona_string_length). See the header note on pointer lifetime. */
static inline const char *ona_string_data(const ona_string *s) {
    if (!s)
        return "";
    return ona_string_is_inline(s) ? s->inline_bytes : ona__string_heap_bytes(s->h.heap);
}

/* Byte-wise equality. Two strings that are equal have equal hashes. */
ONA_API bool ona_string_equal(const ona_string *a, const ona_string *b);

/* Equality with `size` bytes. */
ONA_API bool ona_string_equal_bytes(const ona_string *a, const char *bytes, size_t size);

/* Byte-wise lexicographic order: <0, 0, >0 (a shorter prefix sorts first). */
ONA_API int ona_string_compare(const ona_string *a, const ona_string *b);

/* A 64-bit hash of the bytes (FNV-1a), the same for equal strings on every thread and run. */
ONA_API uint64_t ona_string_hash(const ona_string *s);

/* --- Builder --------------------------------------------------------------------------------- */

/* Builds a string piece by piece, then finishes into an ona_string without copying the bytes
 * again when they outgrow the inline size. The first failing append records its error; later
 * appends do nothing and finish reports it, so a caller may check once at the end. A builder is
 * used by one thread at a time. Zero-initialise it or use ona_string_builder_init. */
typedef struct ona_string_builder {
    struct ona__string_heap *heap; /* NULL until the bytes outgrow `small` */
    size_t size;
    size_t capacity;
    int error;
    char small[ONA_STRING_INLINE_MAX + 1];
} ona_string_builder;

ONA_API void ona_string_builder_init(ona_string_builder *b);
ONA_API int ona_string_builder_append(ona_string_builder *b, const char *bytes, size_t size);
ONA_API int ona_string_builder_append_cstr(ona_string_builder *b, const char *cstr);
ONA_API int ona_string_builder_append_string(ona_string_builder *b, const ona_string *s);
ONA_API int ona_string_builder_appendf(ona_string_builder *b, const char *fmt, ...)
    ONA_PRINTF(2, 3);
ONA_API int ona_string_builder_appendv(ona_string_builder *b, const char *fmt, va_list args);

/* Moves the built bytes into *out and resets the builder. Returns the first error any append
 * hit (then *out is empty and the builder is reset). */
ONA_API int ona_string_builder_finish(ona_string_builder *b, ona_string *out);

/* Frees whatever the builder holds without producing a string. */
ONA_API void ona_string_builder_discard(ona_string_builder *b);

#ifdef __cplusplus
}
#endif

#endif /* ONA_STRING_H */
