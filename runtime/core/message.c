/*
 * message.c: messages built and read from C (ona/message.h): the byte format, the writer, the
 * reader and release. The token reader, the checker and the validator that is the fuzzing entry
 * point are message_check.c's; the Lua side of the codec (bindings/l_message.c) shares the token
 * reader and the checker through runtime/core/message.h.
 *
 * Design note: the byte format. A message body is its top-level values one after another (the
 * count lives in ona_message, not in the bytes). Each value starts with a one-byte tag:
 *
 *   NIL 1 | FALSE 2 | TRUE 3             no payload
 *   NUMBER 4        double (8 bytes)
 *   STRING 5        u32 length, the bytes, a NUL (so readers get C strings; NULs inside are kept)
 *   SHORT_STRING 6  an inline ona_string (<= 23 bytes): u8 length, the bytes
 *   STRING_REF 7    a heap ona_string: its `struct ona__string_heap *`, u64 length
 *   BUFFER_REF 8    an `ona_buffer *`
 *   TABLE 9         u32 array size, u32 hash size, then key, value, key, value, ..., END 10
 *   STRING8 11      as STRING with a u8 length: the writer's form of byte strings under 256
 *                   bytes (`{x = 1, y = 2, name = "abc"}` fits ONA_MESSAGE_INLINE, so
 *                   a table message like it allocates nothing); STRING is used from 256 bytes
 *
 * Tag 0 is invalid, so zeroed bytes never decode. Multi-byte fields are in native byte order
 * (messages never leave the process) and unaligned: they are always read and written with
 * memcpy. A table's two sizes are hints for lua_createtable (the leading keys 1..n, the rest);
 * the writer back-patches them in table_end from its items[]/array_[] counters, and the checker
 * requires that they add up to the table's pairs, so a hint can never ask for more than the
 * bytes hold. Keys are byte strings, numbers (never NaN) or booleans.
 *
 * References. STRING_REF and BUFFER_REF carry raw pointers, so only messages built in this
 * process carry them; ona_message_validate and the Lua byte decoder refuse them. The message
 * holds one reference to each heap string, and owns its buffers only with
 * ONA__MESSAGE_OWNS_BUFFERS (the C writer moves buffers in at once; Lua-encoded buffers stay
 * with the sender's handles until ona__message_commit_moves). A reference moved out of the
 * message (decoded into a Lua userdata, or taken with ona_message_take_buffer) has its pointer
 * cleared to NULL in the bytes; release skips such slots, and the reader reports them as nil.
 * Release walks the bytes only when ONA__MESSAGE_HAS_REFS says there is something to release.
 *
 * Storage. Bytes live in inline_data up to ONA_MESSAGE_INLINE, then in `heap`, grown by
 * doubling through ona__realloc; a rollback that shrinks the bytes back under the inline size
 * moves them inline again, so `heap` is NULL exactly while they fit.
 *
 * Threads: a message, writer or reader belongs to one thread at a time; nothing here is atomic.
 * Heap strings are retained and released through string.c's atomic counts.
 */
#include "common.h"

#include "message.h"

#include <math.h>
#include <stdarg.h>

/* The width of a reference's pointer in the bytes (message_check.c reads it with the same). */
#define PTR_SIZE sizeof(void *)

/* --- Messages -------------------------------------------------------------------------------- */

/* Empties the header; the inline bytes need no clearing (size says how many are used). */
static void reset_header(ona_message *m) {
    m->heap = NULL;
    m->size = m->capacity = m->count = m->flags = 0;
    m->sender = 0;
}

void ona_message_init(ona_message *m) {
    if (m)
        reset_header(m);
}

/* Releases the references held by the complete tokens in bytes [from, to): heap strings always,
 * buffers when the message owns them. */
static void release_refs(ona_message *m, uint32_t from, uint32_t to) {
    uint8_t *bytes = ona__message_bytes(m);
    bool owns_buffers = (m->flags & ONA__MESSAGE_OWNS_BUFFERS) != 0;
    uint32_t off = from;
    while (off < to) {
        ona__token t;
        int rc = ona__message_token(bytes, to, &off, &t);
        ONA_ASSERT(rc == 0); /* our own bytes: the writer only appends complete tokens */
        if (rc != 0)
            return;
        if (t.tag == ONA__TAG_STRING_REF && t.as.ref.heap) {
            ona__string_heap_release(t.as.ref.heap);
            memset(bytes + t.slot, 0, PTR_SIZE);
        } else if (t.tag == ONA__TAG_BUFFER_REF && t.as.buffer && owns_buffers) {
            ona_buffer_destroy(t.as.buffer);
            memset(bytes + t.slot, 0, PTR_SIZE);
        }
    }
}

void ona_message_release(ona_message *m) {
    if (!m)
        return;
    if (m->flags & ONA__MESSAGE_HAS_REFS)
        release_refs(m, 0, m->size);
    if (m->heap)
        ona__free(m->heap);
    reset_header(m);
}

uint32_t ona_message_count(const ona_message *m) {
    return m ? m->count : 0;
}

uint64_t ona_message_sender(const ona_message *m) {
    return m ? m->sender : 0;
}

/* --- Writing --------------------------------------------------------------------------------- */

static int writer_fail(ona_message_writer *w, int code) {
    if (!w->error)
        w->error = code;
    return w->error;
}

/* Makes room for `n` more bytes and returns where they go, or NULL with the error recorded.
 * Also the slow half of message.h's ona__message_room (the Lua encoder's fast path). */
uint8_t *ona__message_reserve(ona_message_writer *w, size_t n) {
    ona_message *m = w->msg;
    if (n > ONA_MESSAGE_MAX_SIZE - m->size) {
        writer_fail(w, ONA_ERANGE);
        return NULL;
    }
    uint32_t need = m->size + (uint32_t)n;
    if (!m->heap && need <= ONA_MESSAGE_INLINE)
        return m->inline_data + m->size;
    if (!m->heap || need > m->capacity) {
        uint64_t cap = m->capacity ? m->capacity : 4 * ONA_MESSAGE_INLINE;
        while (cap < need)
            cap *= 2;
        if (cap > ONA_MESSAGE_MAX_SIZE)
            cap = ONA_MESSAGE_MAX_SIZE;
        uint8_t *grown = ona__realloc(m->heap, (size_t)cap);
        if (!grown) {
            writer_fail(w, ONA_ENOMEM);
            return NULL;
        }
        if (!m->heap)
            memcpy(grown, m->inline_data, m->size);
        m->heap = grown;
        m->capacity = (uint32_t)cap;
    }
    return m->heap + m->size;
}

/* Checks that the next token may go where it goes (a key must be a byte string, a number that
 * is not NaN, or a boolean) and keeps the array hint: `number` is the value of a number token. */
static int begin_token(ona_message_writer *w, bool keyable, const double *number) {
    if (!w)
        return ONA_EINVAL;
    if (w->error)
        return w->error;
    if (w->depth == 0)
        return 0;
    uint32_t d = w->depth - 1;
    if ((w->items[d] & 1u) == 0) {
        if (!keyable || (number && isnan(*number)))
            return writer_fail(w, ONA_EENCODE);
        if (number && w->array_[d] == w->items[d] / 2 && *number == (double)w->array_[d] + 1.0)
            w->array_[d]++;
    }
    return 0;
}

/* Counts a token that was written completely. */
static void end_token(ona_message_writer *w) {
    if (w->depth == 0)
        w->msg->count++;
    else
        w->items[w->depth - 1]++;
}

/* Writes a token with no payload or a fixed one. */
static int write_simple(ona_message_writer *w, uint8_t tag, const void *payload, size_t n,
                        bool keyable, const double *number) {
    int rc = begin_token(w, keyable, number);
    if (rc)
        return rc;
    uint8_t *p = ona__message_reserve(w, 1 + n);
    if (!p)
        return w->error;
    p[0] = tag;
    if (n)
        memcpy(p + 1, payload, n);
    w->msg->size += (uint32_t)(1 + n);
    end_token(w);
    return 0;
}

void ona_message_writer_begin(ona_message_writer *w, ona_message *m) {
    if (!w)
        return;
    /* Only the scalars: open[], items[] and array_[] are written for a depth before that depth
     * is read, and zeroing the arrays (400 bytes) was a measurable share of every send. */
    w->error = 0;
    w->depth = 0;
    w->msg = m;
    if (!m) {
        w->error = ONA_EINVAL;
        return;
    }
    w->start_size_ = m->size;
    w->start_count_ = m->count;
    w->start_flags_ = m->flags;
}

int ona_message_write_nil(ona_message_writer *w) {
    return write_simple(w, ONA__TAG_NIL, NULL, 0, false, NULL);
}

int ona_message_write_boolean(ona_message_writer *w, bool value) {
    return write_simple(w, value ? ONA__TAG_TRUE : ONA__TAG_FALSE, NULL, 0, true, NULL);
}

int ona_message_write_number(ona_message_writer *w, double value) {
    return write_simple(w, ONA__TAG_NUMBER, &value, sizeof value, true, &value);
}

int ona_message_write_string(ona_message_writer *w, const char *bytes, size_t size) {
    int rc = begin_token(w, true, NULL);
    if (rc)
        return rc;
    if (!bytes && size)
        return writer_fail(w, ONA_EINVAL);
    if (size > ONA_MESSAGE_MAX_SIZE)
        return writer_fail(w, ONA_ERANGE);
    if (size <= UINT8_MAX) {
        uint8_t *p = ona__message_reserve(w, 1 + 1 + size + 1);
        if (!p)
            return w->error;
        p[0] = ONA__TAG_STRING8;
        p[1] = (uint8_t)size;
        if (size)
            memcpy(p + 2, bytes, size);
        p[2 + size] = '\0';
        w->msg->size += (uint32_t)(1 + 1 + size + 1);
        end_token(w);
        return 0;
    }
    uint8_t *p = ona__message_reserve(w, 1 + 4 + size + 1);
    if (!p)
        return w->error;
    uint32_t len = (uint32_t)size;
    p[0] = ONA__TAG_STRING;
    memcpy(p + 1, &len, 4);
    if (size)
        memcpy(p + 5, bytes, size);
    p[5 + size] = '\0';
    w->msg->size += (uint32_t)(1 + 4 + size + 1);
    end_token(w);
    return 0;
}

int ona_message_write_ona_string(ona_message_writer *w, const ona_string *s) {
    /* Keys are byte strings: an ona_string key would decode to a userdata key in Lua, which
     * compares by identity and could never be looked up. */
    int rc = begin_token(w, false, NULL);
    if (rc)
        return rc;
    if (!s)
        return writer_fail(w, ONA_EINVAL);
    size_t len = ona_string_length(s);
    if (ona_string_is_inline(s)) {
        uint8_t *p = ona__message_reserve(w, 2 + len);
        if (!p)
            return w->error;
        p[0] = ONA__TAG_SHORT_STRING;
        p[1] = (uint8_t)len;
        if (len)
            memcpy(p + 2, s->inline_bytes, len);
        w->msg->size += (uint32_t)(2 + len);
    } else {
        uint8_t *p = ona__message_reserve(w, 1 + PTR_SIZE + 8);
        if (!p)
            return w->error;
        uint64_t size64 = len;
        p[0] = ONA__TAG_STRING_REF;
        memcpy(p + 1, &s->h.heap, PTR_SIZE);
        memcpy(p + 1 + PTR_SIZE, &size64, 8);
        ona__string_heap_retain(s->h.heap); /* the message's reference */
        w->msg->size += (uint32_t)(1 + PTR_SIZE + 8);
        w->msg->flags |= ONA__MESSAGE_HAS_REFS;
    }
    end_token(w);
    return 0;
}

static int write_buffer_ref(ona_message_writer *w, ona_buffer *buffer, uint32_t flags) {
    uint8_t *p = ona__message_reserve(w, 1 + PTR_SIZE);
    if (!p)
        return w->error;
    p[0] = ONA__TAG_BUFFER_REF;
    memcpy(p + 1, &buffer, PTR_SIZE);
    w->msg->size += (uint32_t)(1 + PTR_SIZE);
    w->msg->flags |= ONA__MESSAGE_HAS_REFS | flags;
    end_token(w);
    return 0;
}

int ona_message_write_buffer(ona_message_writer *w, ona_buffer **buffer) {
    int rc = begin_token(w, false, NULL);
    if (rc)
        return rc;
    if (!buffer || !*buffer || (w->msg->flags & ONA__MESSAGE_LENT_BUFFERS))
        return writer_fail(w, ONA_EINVAL);
    rc = write_buffer_ref(w, *buffer, ONA__MESSAGE_OWNS_BUFFERS);
    if (rc == 0)
        *buffer = NULL;
    return rc;
}

int ona__message_write_buffer_lent(ona_message_writer *w, ona_buffer *buffer) {
    int rc = begin_token(w, false, NULL);
    if (rc)
        return rc;
    if (!buffer || (w->msg->flags & ONA__MESSAGE_OWNS_BUFFERS))
        return writer_fail(w, ONA_EINVAL);
    return write_buffer_ref(w, buffer, ONA__MESSAGE_LENT_BUFFERS);
}

int ona_message_write_table_begin(ona_message_writer *w) {
    int rc = begin_token(w, false, NULL);
    if (rc)
        return rc;
    if (w->depth >= ONA_MESSAGE_MAX_DEPTH)
        return writer_fail(w, ONA_ELIMIT);
    uint8_t *p = ona__message_reserve(w, 1 + 8);
    if (!p)
        return w->error;
    p[0] = ONA__TAG_TABLE;
    memset(p + 1, 0, 8); /* the hints, back-patched by table_end */
    uint32_t header = w->msg->size;
    w->msg->size += 1 + 8;
    end_token(w);
    w->open[w->depth] = header;
    w->items[w->depth] = 0;
    w->array_[w->depth] = 0;
    w->depth++;
    return 0;
}

int ona_message_write_table_end(ona_message_writer *w) {
    if (!w)
        return ONA_EINVAL;
    if (w->error)
        return w->error;
    if (w->depth == 0 || (w->items[w->depth - 1] & 1u))
        return writer_fail(w, ONA_EINVAL);
    uint8_t *p = ona__message_reserve(w, 1);
    if (!p)
        return w->error;
    p[0] = ONA__TAG_END;
    ona_message *m = w->msg;
    m->size += 1;
    uint32_t d = w->depth - 1;
    uint32_t array = w->array_[d], hash = w->items[d] / 2 - array;
    uint8_t *header = ona__message_bytes(m) + w->open[d];
    memcpy(header + 1, &array, 4);
    memcpy(header + 5, &hash, 4);
    w->depth--;
    return 0;
}

int ona_message_writer_end(ona_message_writer *w) {
    if (!w)
        return ONA_EINVAL;
    if (!w->msg)
        return w->error ? w->error : ONA_EINVAL;
    if (!w->error && w->depth != 0)
        w->error = ONA_EINVAL;
    if (w->error) {
        ona_message *m = w->msg;
        if (m->flags & ONA__MESSAGE_HAS_REFS)
            release_refs(m, w->start_size_, m->size);
        m->size = w->start_size_;
        m->count = w->start_count_;
        m->flags = w->start_flags_;
        if (m->heap && m->size <= ONA_MESSAGE_INLINE) {
            memcpy(m->inline_data, m->heap, m->size);
            ona__free(m->heap);
            m->heap = NULL;
            m->capacity = 0;
        }
    }
    w->depth = 0;
    return w->error;
}

/* --- Reading --------------------------------------------------------------------------------- */

void ona_message_reader_begin(ona_message_reader *r, ona_message *m) {
    if (!r)
        return;
    memset(r, 0, sizeof *r);
    r->msg = m;
    r->scratch_ = ONA_STRING_EMPTY;
    if (!m)
        r->error = ONA_EINVAL;
}

int ona_message_read(ona_message_reader *r, ona_value *out) {
    if (!r || !out)
        return ONA_EINVAL;
    memset(out, 0, sizeof *out);
    out->type = ONA_VALUE_END;
    if (r->error)
        return r->error;
    r->buffer_slot_ = 0;
    ona_message *m = r->msg;
    if (r->offset >= m->size)
        return r->depth == 0 ? 0 : (r->error = ONA_EDECODE);
    ona__token t;
    if (ona__message_token(ona__message_bytes(m), m->size, &r->offset, &t) != 0)
        return r->error = ONA_EDECODE;
    switch (t.tag) {
    case ONA__TAG_NIL:
        out->type = ONA_VALUE_NIL;
        break;
    case ONA__TAG_FALSE:
    case ONA__TAG_TRUE:
        out->type = ONA_VALUE_BOOLEAN;
        out->as.boolean = t.tag == ONA__TAG_TRUE;
        break;
    case ONA__TAG_NUMBER:
        out->type = ONA_VALUE_NUMBER;
        out->as.number = t.as.number;
        break;
    case ONA__TAG_STRING:
    case ONA__TAG_STRING8:
        out->type = ONA_VALUE_STRING;
        out->as.string.bytes = t.as.str.bytes;
        out->as.string.size = t.as.str.size;
        break;
    case ONA__TAG_SHORT_STRING:
        /* At most 23 bytes: an inline string, which cannot fail or allocate. */
        ona_string_create(&r->scratch_, t.as.str.bytes, t.as.str.size);
        out->type = ONA_VALUE_ONA_STRING;
        out->as.ona_string = &r->scratch_;
        break;
    case ONA__TAG_STRING_REF:
        if (!t.as.ref.heap) {
            out->type = ONA_VALUE_NIL;
            break;
        }
        /* A borrowed view of the message's reference: no retain, the caller copies to keep. */
        memset(&r->scratch_, 0, sizeof r->scratch_);
        r->scratch_.h.heap = t.as.ref.heap;
        r->scratch_.h.size = (size_t)t.as.ref.size;
        r->scratch_.h.tag = ONA__STRING_HEAP_TAG;
        out->type = ONA_VALUE_ONA_STRING;
        out->as.ona_string = &r->scratch_;
        break;
    case ONA__TAG_BUFFER_REF:
        if (!t.as.buffer) {
            out->type = ONA_VALUE_NIL;
            break;
        }
        out->type = ONA_VALUE_BUFFER;
        out->as.buffer = t.as.buffer;
        r->buffer_slot_ = t.slot + 1;
        break;
    case ONA__TAG_TABLE:
        if (r->depth >= ONA_MESSAGE_MAX_DEPTH)
            return r->error = ONA_EDECODE;
        r->depth++;
        out->type = ONA_VALUE_TABLE_BEGIN;
        out->as.table.array_size = t.as.table.array_size;
        out->as.table.hash_size = t.as.table.hash_size;
        break;
    case ONA__TAG_END:
        if (r->depth == 0)
            return r->error = ONA_EDECODE;
        r->depth--;
        out->type = ONA_VALUE_TABLE_END;
        break;
    default:
        return r->error = ONA_EDECODE;
    }
    return 0;
}

ona_buffer *ona_message_take_buffer(ona_message_reader *r) {
    if (!r || !r->msg || r->buffer_slot_ == 0)
        return NULL;
    ona_message *m = r->msg;
    if (!(m->flags & ONA__MESSAGE_OWNS_BUFFERS))
        return NULL;
    uint8_t *slot = ona__message_bytes(m) + (r->buffer_slot_ - 1);
    ona_buffer *buffer;
    memcpy(&buffer, slot, PTR_SIZE);
    memset(slot, 0, PTR_SIZE);
    r->buffer_slot_ = 0;
    return buffer;
}

void ona__message_commit_moves(ona_message *m, ona__moves *moves) {
    if (!moves)
        return;
    for (uint32_t i = 0; i < moves->count; i++)
        *moves->handles[i] = NULL;
    moves->count = 0;
    if (m && (m->flags & ONA__MESSAGE_LENT_BUFFERS))
        m->flags = (m->flags & ~(uint32_t)ONA__MESSAGE_LENT_BUFFERS) | ONA__MESSAGE_OWNS_BUFFERS;
}
