/*
 * message_clone.c: copying a message (message.h). Spawn args are kept encoded and cloned for
 * each init and restart; strings in the copy share the original's blocks (a reference each).
 * Buffers move, never duplicate: a plain clone refuses them; a copy for a re-run
 * (ona__message_duplicate) gives the copy new buffers holding the same bytes.
 */
#include "common.h"

#include "message.h"

#include <string.h>

bool ona__message_copy_plain(ona_message_writer *w, const ona_value *v) {
    switch (v->type) {
    case ONA_VALUE_NIL:
        ona_message_write_nil(w);
        return true;
    case ONA_VALUE_BOOLEAN:
        ona_message_write_boolean(w, v->as.boolean);
        return true;
    case ONA_VALUE_NUMBER:
        ona_message_write_number(w, v->as.number);
        return true;
    case ONA_VALUE_STRING:
        ona_message_write_string(w, v->as.string.bytes, v->as.string.size);
        return true;
    case ONA_VALUE_TABLE_BEGIN:
        ona_message_write_table_begin(w);
        return true;
    case ONA_VALUE_TABLE_END:
        ona_message_write_table_end(w);
        return true;
    default:
        return false;
    }
}

/* A new buffer with `b`'s type and bytes, written into w. */
static void write_buffer_copy(ona_message_writer *w, ona_buffer *b) {
    ona_buffer *copy = NULL;
    int rc = b ? ona_buffer_create(ona_buffer_type(b), ona_buffer_elem_size(b), ona_buffer_count(b),
                                   &copy)
               : 0;
    if (rc) {
        w->error = w->error ? w->error : rc;
        return;
    }
    if (!copy) { /* already moved out of the message: reads as nil */
        ona_message_write_nil(w);
        return;
    }
    memcpy(ona_buffer_data(copy), ona_buffer_data(b),
           ona_buffer_count(b) * ona_buffer_elem_size(b));
    if (ona_message_write_buffer(w, &copy) != 0)
        ona_buffer_destroy(copy);
}

static int clone(ona_message *src, ona_message *dst, bool copy_buffers) {
    ona_message_init(dst);
    ona_message_writer w;
    ona_message_writer_begin(&w, dst);
    ona_message_reader r;
    ona_message_reader_begin(&r, src);
    ona_value v;
    int rc;
    while ((rc = ona_message_read(&r, &v)) == 0 && v.type != ONA_VALUE_END) {
        if (ona__message_copy_plain(&w, &v))
            continue;
        switch (v.type) {
        case ONA_VALUE_ONA_STRING:
            ona_message_write_ona_string(&w, v.as.ona_string);
            break;
        case ONA_VALUE_BUFFER:
            if (copy_buffers) {
                write_buffer_copy(&w, v.as.buffer);
                break;
            }
            w.error = w.error ? w.error : ONA_EINVAL; /* buffers cannot be copied */
            break;
        default:
            w.error = w.error ? w.error : ONA_EINVAL;
            break;
        }
    }
    int end = ona_message_writer_end(&w);
    if (rc == 0)
        rc = end;
    if (rc)
        ona_message_release(dst);
    else
        dst->sender = src->sender;
    return rc;
}

int ona__message_clone(ona_message *src, ona_message *dst) {
    return clone(src, dst, false);
}

int ona__message_duplicate(ona_message *src, ona_message *dst) {
    return clone(src, dst, true);
}
