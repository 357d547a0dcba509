/*
 * string.c: the shared-nothing string (ona/string.h).
 *
 * Design note. A value is 24 bytes. Strings of up to 23 bytes are stored inline: the bytes, a
 * NUL, and in the last byte (23 - length), which doubles as the terminating NUL when the length
 * is 23. Longer strings point to one heap block holding an atomic reference count, the length and
 * the bytes (NUL-terminated); the last byte of the value is then 0xFF, which no inline length
 * produces. The heap block is never written after it is published, so readers need no ordering
 * beyond what handed them the value; only the reference count is atomic:
 *  - copy increments with relaxed order: a thread can only copy a string it already holds a
 *    reference to, so the count cannot reach zero concurrently (the Boost/Rust Arc argument);
 *  - release decrements with release order, and the thread that takes it to zero issues an
 *    acquire fence before freeing, so every other holder's reads of the bytes happen before the
 *    free;
 *  - a count of 1 seen by a holder means it is the only holder, and only holders touch the
 *    count, so copy then stores 2 and release frees without a locked instruction. The thesis'
 *    "situation-specific" reference counting: a string that never leaves its owner pays for no
 *    atomic read-modify-write at all.
 * The builder grows a heap block of the same layout and hands it over on finish without copying.
 */
#include "common.h"

#include <stdatomic.h>
#include <stdio.h>

struct ona__string_heap {
    atomic_size_t refs;
    size_t size;
    char bytes[]; /* size + 1 bytes, NUL-terminated */
};

_Static_assert(sizeof(ona_string) == 24, "ona_string must stay 24 bytes");

static inline bool is_heap(const ona_string *s) {
    return !ona_string_is_inline(s);
}

static struct ona__string_heap *heap_alloc(size_t size) {
    if (size > SIZE_MAX - sizeof(struct ona__string_heap) - 1)
        return NULL;
    struct ona__string_heap *h = ona__malloc(sizeof *h + size + 1);
    if (!h)
        return NULL;
    atomic_init(&h->refs, 1);
    h->size = size;
    return h;
}

static void set_inline(ona_string *out, const char *bytes, size_t size) {
    ONA_ASSERT(size <= ONA_STRING_INLINE_MAX);
    memset(out, 0, sizeof *out);
    if (size)
        memcpy(out->inline_bytes, bytes, size);
    out->inline_bytes[ONA_STRING_INLINE_MAX] = (char)(ONA_STRING_INLINE_MAX - size);
}

static void set_heap(ona_string *out, struct ona__string_heap *h) {
    memset(out, 0, sizeof *out);
    out->h.heap = h;
    out->h.size = h->size;
    out->h.tag = ONA__STRING_HEAP_TAG;
}

int ona_string_create(ona_string *out, const char *bytes, size_t size) {
    if (!out)
        return ONA_EINVAL;
    *out = ONA_STRING_EMPTY;
    if (!bytes && size)
        return ONA_EINVAL;
    if (size <= ONA_STRING_INLINE_MAX) {
        set_inline(out, bytes, size);
        return 0;
    }
    struct ona__string_heap *h = heap_alloc(size);
    if (!h)
        return ONA_ENOMEM;
    memcpy(h->bytes, bytes, size);
    h->bytes[size] = '\0';
    set_heap(out, h);
    return 0;
}

int ona_string_from_cstr(ona_string *out, const char *cstr) {
    if (!cstr) {
        if (out)
            *out = ONA_STRING_EMPTY;
        return ONA_EINVAL;
    }
    return ona_string_create(out, cstr, strlen(cstr));
}

void ona__string_heap_retain(struct ona__string_heap *h) {
    /* A count of 1 means the caller holds the only reference, so no other thread can touch the
     * counter until this copy is handed out: a plain store replaces the locked increment. This
     * is the common create-copy-pass pattern. relaxed: the value is only read by RMWs and loads
     * ordered by whatever later hands the copy to another thread. */
    if (atomic_load_explicit(&h->refs, memory_order_relaxed) == 1) {
        atomic_store_explicit(&h->refs, 2, memory_order_relaxed);
        return;
    }
    /* relaxed: the caller holds a reference, so the count is at least 1 and the block cannot be
     * freed under us; an increment publishes no data. */
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
}

void ona__string_heap_release(struct ona__string_heap *h) {
    /* acquire: seeing 1 means every other holder has released (release-decremented), so their
     * reads of the bytes happen before our free; and being the only holder, nobody can race the
     * counter, so no locked decrement is needed. */
    if (atomic_load_explicit(&h->refs, memory_order_acquire) == 1) {
        ona__free(h);
        return;
    }
    /* release: our reads of the bytes happen before a later free by another holder. */
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_release) == 1) {
        /* acquire: every other holder's release-decrement happens before this free. */
        atomic_thread_fence(memory_order_acquire);
        ona__free(h);
    }
}

const char *ona__string_heap_bytes(const struct ona__string_heap *h) {
    return h->bytes;
}

bool ona_string_equal_bytes(const ona_string *a, const char *bytes, size_t size) {
    if (ona_string_length(a) != size)
        return false;
    return size == 0 || memcmp(ona_string_data(a), bytes, size) == 0;
}

bool ona_string_equal(const ona_string *a, const ona_string *b) {
    if (a && b && is_heap(a) && is_heap(b) && a->h.heap == b->h.heap)
        return true;
    return ona_string_equal_bytes(a, ona_string_data(b), ona_string_length(b));
}

int ona_string_compare(const ona_string *a, const ona_string *b) {
    size_t la = ona_string_length(a), lb = ona_string_length(b);
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(ona_string_data(a), ona_string_data(b), n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

uint64_t ona_string_hash(const ona_string *s) {
    const unsigned char *p = (const unsigned char *)ona_string_data(s);
    size_t n = ona_string_length(s);
    uint64_t h = 14695981039346656037ull; /* FNV-1a 64 offset basis */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull; /* FNV-1a 64 prime */
    }
    return h;
}

int ona_string_concat(ona_string *out, const ona_string *a, const ona_string *b) {
    if (!out || !a || !b) {
        if (out)
            *out = ONA_STRING_EMPTY;
        return ONA_EINVAL;
    }
    ona_string_builder builder;
    ona_string_builder_init(&builder);
    ona_string_builder_append_string(&builder, a);
    ona_string_builder_append_string(&builder, b);
    return ona_string_builder_finish(&builder, out);
}

int ona_string_vformat(ona_string *out, const char *fmt, va_list args) {
    if (!out || !fmt) {
        if (out)
            *out = ONA_STRING_EMPTY;
        return ONA_EINVAL;
    }
    ona_string_builder builder;
    ona_string_builder_init(&builder);
    ona_string_builder_appendv(&builder, fmt, args);
    return ona_string_builder_finish(&builder, out);
}

int ona_string_format(ona_string *out, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int rc = ona_string_vformat(out, fmt, args);
    va_end(args);
    return rc;
}

/* --- Builder --------------------------------------------------------------------------------- */

void ona_string_builder_init(ona_string_builder *b) {
    if (b)
        memset(b, 0, sizeof *b);
}

static char *builder_bytes(ona_string_builder *b) {
    return b->heap ? b->heap->bytes : b->small;
}

/* Makes room for `extra` more bytes (plus the NUL). */
static int builder_reserve(ona_string_builder *b, size_t extra) {
    if (b->error)
        return b->error;
    if (extra > SIZE_MAX / 2 - b->size)
        return b->error = ONA_ENOMEM;
    size_t need = b->size + extra;
    if (!b->heap && need <= ONA_STRING_INLINE_MAX)
        return 0;
    if (b->heap && need <= b->capacity)
        return 0;
    size_t cap = b->capacity ? b->capacity : 32;
    while (cap < need)
        cap *= 2;
    struct ona__string_heap *h = ona__realloc(b->heap, sizeof *h + cap + 1);
    if (!h)
        return b->error = ONA_ENOMEM;
    if (!b->heap) {
        atomic_init(&h->refs, 1);
        memcpy(h->bytes, b->small, b->size);
    }
    b->heap = h;
    b->capacity = cap;
    return 0;
}

int ona_string_builder_append(ona_string_builder *b, const char *bytes, size_t size) {
    if (!b)
        return ONA_EINVAL;
    if (!bytes && size)
        return b->error ? b->error : (b->error = ONA_EINVAL);
    int rc = builder_reserve(b, size);
    if (rc)
        return rc;
    if (size)
        memcpy(builder_bytes(b) + b->size, bytes, size);
    b->size += size;
    return 0;
}

int ona_string_builder_append_cstr(ona_string_builder *b, const char *cstr) {
    if (!cstr)
        return b ? (b->error ? b->error : (b->error = ONA_EINVAL)) : ONA_EINVAL;
    return ona_string_builder_append(b, cstr, strlen(cstr));
}

int ona_string_builder_append_string(ona_string_builder *b, const ona_string *s) {
    return ona_string_builder_append(b, ona_string_data(s), ona_string_length(s));
}

int ona_string_builder_appendv(ona_string_builder *b, const char *fmt, va_list args) {
    if (!b)
        return ONA_EINVAL;
    if (!fmt)
        return b->error ? b->error : (b->error = ONA_EINVAL);
    if (b->error)
        return b->error;
    /* Try to format into the space already there; measure and retry once if it did not fit. */
    char *dst = builder_bytes(b) + b->size;
    size_t room = (b->heap ? b->capacity : ONA_STRING_INLINE_MAX) - b->size + 1;
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(dst, room, fmt, copy);
    va_end(copy);
    if (n < 0)
        return b->error = ONA_EFORMAT;
    if ((size_t)n >= room) {
        int rc = builder_reserve(b, (size_t)n);
        if (rc)
            return rc;
        dst = builder_bytes(b) + b->size;
        va_copy(copy, args);
        int m = vsnprintf(dst, (size_t)n + 1, fmt, copy);
        va_end(copy);
        if (m != n)
            return b->error = ONA_EFORMAT;
    }
    b->size += (size_t)n;
    return 0;
}

int ona_string_builder_appendf(ona_string_builder *b, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int rc = ona_string_builder_appendv(b, fmt, args);
    va_end(args);
    return rc;
}

void ona_string_builder_discard(ona_string_builder *b) {
    if (!b)
        return;
    ona__free(b->heap);
    ona_string_builder_init(b);
}

int ona_string_builder_finish(ona_string_builder *b, ona_string *out) {
    if (!b || !out) {
        if (out)
            *out = ONA_STRING_EMPTY;
        if (b)
            ona_string_builder_discard(b);
        return ONA_EINVAL;
    }
    int rc = b->error;
    if (rc) {
        *out = ONA_STRING_EMPTY;
    } else if (b->size <= ONA_STRING_INLINE_MAX) {
        set_inline(out, builder_bytes(b), b->size);
    } else {
        struct ona__string_heap *h = b->heap;
        h->size = b->size;
        h->bytes[b->size] = '\0';
        /* Give back the slack when it is large; a failing shrink keeps the bigger block. */
        if (b->capacity > 2 * b->size + 64) {
            struct ona__string_heap *shrunk = ona__realloc(h, sizeof *h + b->size + 1);
            if (shrunk)
                h = shrunk;
        }
        set_heap(out, h);
        b->heap = NULL;
    }
    ona_string_builder_discard(b);
    return rc;
}
