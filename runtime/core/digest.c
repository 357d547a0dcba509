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
#include "core.h"
#include "ona/string.h"

#include <stdio.h>

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

void ona__digest_take(ona__system *sys, uint32_t from) {
    uint64_t d = ona__digest_message(from, &sys->inbox, sys->core);
    uint32_t i = sys->digest_count[ONA__DIGEST_RECEIVED];
    ona__system_digest(sys, ONA__DIGEST_RECEIVED, d);
    if (i >= ONA__DETAIL_MESSAGES)
        return;
    sys->detail_from[i] = from;
    sys->detail_hash[i] = (uint32_t)d;
    if (!sys->core->detailing)
        return;
    if (!sys->detail_text)
        sys->detail_text = ona__malloc(ONA__DETAIL_MESSAGES * ONA__DETAIL_TEXT);
    if (sys->detail_text)
        ona__message_render(&sys->inbox, sys->detail_text + i * ONA__DETAIL_TEXT, ONA__DETAIL_TEXT);
}

/* --- Text ------------------------------------------------------------------------------------ */

typedef struct text {
    char *buf;
    size_t size, used;
} text;

static void add(text *t, const char *s, size_t n) {
    size_t room = t->size - 1 - t->used; /* the NUL's place kept */
    if (n > room)
        n = room;
    memcpy(t->buf + t->used, s, n);
    t->used += n;
    t->buf[t->used] = '\0';
}

static void add_value(text *t, ona_message_reader *r, const ona_value *v) {
    char num[32];
    switch (v->type) {
    case ONA_VALUE_NIL:
        add(t, "nil", 3);
        break;
    case ONA_VALUE_BOOLEAN:
        add(t, v->as.boolean ? "true" : "false", v->as.boolean ? 4 : 5);
        break;
    case ONA_VALUE_NUMBER:
        add(t, num, (size_t)snprintf(num, sizeof num, "%.14g", v->as.number));
        break;
    case ONA_VALUE_STRING:
    case ONA_VALUE_ONA_STRING:
        add(t, "\"", 1);
        add(t, v->type == ONA_VALUE_STRING ? v->as.string.bytes : ona_string_data(v->as.ona_string),
            v->type == ONA_VALUE_STRING ? v->as.string.size : ona_string_length(v->as.ona_string));
        add(t, "\"", 1);
        break;
    case ONA_VALUE_BUFFER:
        add(t, num,
            (size_t)snprintf(num, sizeof num, "<buffer of %zu>", ona_buffer_count(v->as.buffer)));
        break;
    case ONA_VALUE_TABLE_BEGIN: {
        add(t, "{", 1);
        ona_value key, value;
        for (int n = 0; ona_message_read(r, &key) == 0 && key.type != ONA_VALUE_TABLE_END &&
                        key.type != ONA_VALUE_END;
             n++) {
            if (n)
                add(t, ", ", 2);
            if (key.type == ONA_VALUE_STRING)
                add(t, key.as.string.bytes, key.as.string.size);
            else
                add_value(t, r, &key);
            add(t, " = ", 3);
            if (ona_message_read(r, &value) != 0 || value.type == ONA_VALUE_END)
                break;
            add_value(t, r, &value);
        }
        add(t, "}", 1);
        break;
    }
    default:
        break;
    }
}

void ona__message_render(ona_message *m, char *buf, size_t size) {
    if (!size)
        return;
    text t = {buf, size, 0};
    buf[0] = '\0';
    add(&t, "(", 1);
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    for (int n = 0; ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END; n++) {
        if (n)
            add(&t, ", ", 2);
        add_value(&t, &r, &v);
    }
    add(&t, ")", 1);
    if (t.used == size - 1 && size > 4) /* cut: say so */
        memcpy(buf + size - 4, "...", 3);
}
