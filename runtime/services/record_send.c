/*
 * record_send.c: a recording's C sends (ona_runtime_send's messages): their values checked as the
 * file is read, then decoded into a message when the replay reaches their frame (record.h).
 *
 * The values are kept as the bytes record_format.c wrote (kinds, not a message): checked once as
 * the file is read (each kind, each length against the bytes left, the table depth, a buffer's
 * element size and count), and decoded again, as carefully, only when the replay sends them.
 */
#include "record_reader.h"

/* One recorded value (record_format.c's kinds): its bytes are checked, not kept. `depth`
 * counts the open tables. */
static bool skip_value(ona__rec_reader *r, uint32_t *depth) {
    uint8_t kind = ona__rec_get_u8(r);
    switch (kind) {
    case ONA__REC_VALUE_NIL:
    case ONA__REC_VALUE_FALSE:
    case ONA__REC_VALUE_TRUE:
        return !r->bad;
    case ONA__REC_VALUE_NUMBER:
        ona__rec_get_f64(r);
        return !r->bad;
    case ONA__REC_VALUE_STRING: {
        uint64_t n = ona__rec_get_varint(r);
        if (r->bad || n > (uint64_t)(r->end - r->p))
            return false;
        r->p += n;
        return true;
    }
    case ONA__REC_VALUE_BUFFER: {
        char type[64];
        ona__rec_get_str(r, type, sizeof type);
        uint64_t elem = ona__rec_get_varint(r), count = ona__rec_get_varint(r);
        if (r->bad || !type[0] || elem == 0 || elem > ONA_MESSAGE_MAX_SIZE ||
            count > ONA_MESSAGE_MAX_SIZE / elem || elem * count > (uint64_t)(r->end - r->p))
            return false;
        r->p += elem * count;
        return true;
    }
    case ONA__REC_VALUE_TABLE:
        return ++*depth <= ONA_MESSAGE_MAX_DEPTH;
    case ONA__REC_VALUE_END:
        return *depth > 0 && (--*depth, true);
    default:
        return false;
    }
}

int ona__rec_parse_send(ona__rec_reader *r, ona__recording *out) {
    uint64_t frame = ona__rec_get_varint(r), order = ona__rec_get_varint(r);
    if (r->bad || frame == 0 || order > UINT32_MAX)
        return -1;
    const uint8_t *values = r->p;
    uint32_t depth = 0;
    while (r->p < r->end)
        if (!skip_value(r, &depth))
            return -1;
    size_t size = (size_t)(r->p - values);
    if (depth || out->send_bytes_size + size > UINT32_MAX)
        return -1;
    if (!out->send_bytes || out->send_bytes_size + size > out->send_bytes_cap) { /* never NULL */
        size_t cap = out->send_bytes_cap ? out->send_bytes_cap : 1024;
        while (cap < out->send_bytes_size + size)
            cap *= 2;
        uint8_t *grown = cap <= UINT32_MAX ? ona__realloc(out->send_bytes, cap) : NULL;
        if (!grown)
            return ONA_ENOMEM;
        out->send_bytes = grown;
        out->send_bytes_cap = (uint32_t)cap;
    }
    if (!ona__rec_grow((void **)&out->sends, &out->send_cap, out->send_count, sizeof *out->sends))
        return ONA_ENOMEM;
    if (size)
        memcpy(out->send_bytes + out->send_bytes_size, values, size);
    out->sends[out->send_count++] = (ona__rec_send){.frame = frame,
                                                    .order = (uint32_t)order,
                                                    .offset = out->send_bytes_size,
                                                    .size = (uint32_t)size};
    out->send_bytes_size += (uint32_t)size;
    return 0;
}

int ona__rec_send_decode(const uint8_t *values, size_t size, ona_message *out) {
    ona_message_init(out);
    ona_message_writer w;
    ona_message_writer_begin(&w, out);
    ona__rec_reader r = {values, values + size, false};
    while (r.p < r.end && !r.bad) {
        uint8_t kind = ona__rec_get_u8(&r);
        switch (kind) {
        case ONA__REC_VALUE_NIL:
            ona_message_write_nil(&w);
            break;
        case ONA__REC_VALUE_FALSE:
        case ONA__REC_VALUE_TRUE:
            ona_message_write_boolean(&w, kind == ONA__REC_VALUE_TRUE);
            break;
        case ONA__REC_VALUE_NUMBER:
            ona_message_write_number(&w, ona__rec_get_f64(&r));
            break;
        case ONA__REC_VALUE_STRING: {
            uint64_t n = ona__rec_get_varint(&r);
            if (r.bad || n > (uint64_t)(r.end - r.p)) {
                r.bad = true;
                break;
            }
            ona_message_write_string(&w, (const char *)r.p, (size_t)n);
            r.p += n;
            break;
        }
        case ONA__REC_VALUE_BUFFER: {
            char type[64];
            ona__rec_get_str(&r, type, sizeof type);
            uint64_t elem = ona__rec_get_varint(&r), count = ona__rec_get_varint(&r);
            ona_buffer *buf = NULL;
            if (r.bad || elem == 0 || count > ONA_MESSAGE_MAX_SIZE / elem ||
                elem * count > (uint64_t)(r.end - r.p) ||
                ona_buffer_create(type, (size_t)elem, (size_t)count, &buf) != 0) {
                r.bad = true;
                break;
            }
            memcpy(ona_buffer_data(buf), r.p, (size_t)(elem * count));
            r.p += elem * count;
            if (ona_message_write_buffer(&w, &buf) != 0)
                ona_buffer_destroy(buf);
            break;
        }
        case ONA__REC_VALUE_TABLE:
            ona_message_write_table_begin(&w);
            break;
        case ONA__REC_VALUE_END:
            ona_message_write_table_end(&w);
            break;
        default:
            r.bad = true;
            break;
        }
    }
    if (r.bad && !w.error)
        w.error = ONA_EDECODE;
    return ona_message_writer_end(&w);
}
