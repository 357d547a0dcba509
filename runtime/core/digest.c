/*
 * digest.c: the digest of a message's values (digest.h), for recordings.
 *
 * Design note. A message's bytes may hold pointers (a shared string's block, a buffer), which
 * differ between runs, so the digest walks the values with the public reader and folds each
 * token's type and content: numbers by their bits, strings by their bytes, buffers by type,
 * sizes and bytes, a live system's handle by its spawn order. A table's pairs are encoded in
 * the order `pairs` gave them, and LuaJIT's order of string keys differs between runs of the
 * same program, so a table digests as the sum of its pairs' digests: the same pairs in any
 * order give the same digest. Reading does not change the message (only
 * ona_message_take_buffer would).
 */
#include "digest.h"

#include "actor.h"
#include "ona/string.h"

/* The digest of the value that starts with token `v` (a table: through its TABLE_END). */
static uint64_t digest_value(ona_message_reader *r, const ona_value *v, ona__core *core) {
    uint64_t h = ona__digest_word(ONA__DIGEST_SEED, (uint64_t)v->type);
    switch (v->type) {
    case ONA_VALUE_BOOLEAN:
        return ona__digest_word(h, v->as.boolean);
    case ONA_VALUE_NUMBER: {
        double n = v->as.number;
        ona__system *sys = n >= 1 && n < 9007199254740992.0 && n == (double)(uint64_t)n
                               ? ona__actor_resolve(core, (uint64_t)n)
                               : NULL;
        uint64_t bits;
        memcpy(&bits, &n, sizeof bits);
        return sys ? ona__digest_word(h ^ 0x68616e646c65ull, sys->spawn_order)
                   : ona__digest_word(h, bits);
    }
    case ONA_VALUE_STRING:
        return ona__digest_bytes(h, v->as.string.bytes, v->as.string.size);
    case ONA_VALUE_ONA_STRING:
        return ona__digest_bytes(h, ona_string_data(v->as.ona_string),
                                 ona_string_length(v->as.ona_string));
    case ONA_VALUE_BUFFER: {
        const char *type = ona_buffer_type(v->as.buffer);
        size_t elem = ona_buffer_elem_size(v->as.buffer), count = ona_buffer_count(v->as.buffer);
        h = ona__digest_bytes(h, type ? type : "", type ? strlen(type) : 0);
        h = ona__digest_word(h, elem);
        return ona__digest_bytes(h, ona_buffer_data(v->as.buffer), elem * count);
    }
    case ONA_VALUE_TABLE_BEGIN: {
        uint64_t sum = 0;
        ona_value key, value;
        while (ona_message_read(r, &key) == 0 && key.type != ONA_VALUE_TABLE_END &&
               key.type != ONA_VALUE_END) {
            uint64_t k = digest_value(r, &key, core);
            if (ona_message_read(r, &value) != 0 || value.type == ONA_VALUE_END)
                break;
            sum += ona__digest_word(k, digest_value(r, &value, core));
        }
        return ona__digest_word(h, sum);
    }
    default:
        return h;
    }
}

uint64_t ona__digest_message(uint64_t h, ona_message *m, struct ona__core *core) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    h = ona__digest_word(h, ona_message_count(m));
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END)
        h = ona__digest_word(h, digest_value(&r, &v, core));
    return h;
}
