/*
 * message_clone.c: copying a message that holds no buffers (message.h). Spawn args are kept
 * encoded and cloned for each init and restart; strings in the copy share the original's
 * blocks (a reference each), buffers cannot be copied (they move, never duplicate).
 */
#include "common.h"

#include "message.h"

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

int ona__message_clone(ona_message *src, ona_message *dst) {
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
        default:
            w.error = w.error ? w.error : ONA_EINVAL; /* buffers cannot be copied */
            break;
        }
    }
    int end = ona_message_writer_end(&w);
    if (rc == 0)
        rc = end;
    if (rc)
        ona_message_release(dst);
    return rc;
}
