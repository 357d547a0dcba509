/*
 * recent.c: the ring of a watched system's last messages, and the abbreviated text of a message
 * (recent.h).
 *
 * Design note. Recording happens in the receiving turn, on the message it just took, so the
 * ring holds exactly what the system's code saw, in its order. The text is made then, with a
 * reader over the message's bytes (nothing is decoded into Lua, no buffer is taken), into the
 * entry's fixed array: recording never allocates.
 */
#include "recent.h"

#include "common.h"

#include <stdio.h>

typedef struct text_out {
    char *out;
    size_t size, len;
    bool cut;
} text_out;

static void put(text_out *t, const char *s, size_t n) {
    if (t->cut)
        return;
    if (t->len + n + 4 > t->size) { /* room for "..." and the 0 */
        n = t->size > t->len + 4 ? t->size - t->len - 4 : 0;
        t->cut = true;
    }
    memcpy(t->out + t->len, s, n);
    t->len += n;
    if (t->cut) {
        memcpy(t->out + t->len, "...", 3);
        t->len += 3;
    }
    t->out[t->len] = '\0';
}

/* A key that is a Lua identifier is written bare, as in a table constructor. */
static bool identifier(const char *bytes, size_t size) {
    if (size == 0 || size > 24 || (bytes[0] >= '0' && bytes[0] <= '9'))
        return false;
    for (size_t i = 0; i < size; i++) {
        char c = bytes[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

static void put_string(text_out *t, const char *bytes, size_t size, bool key) {
    if (key && identifier(bytes, size)) {
        put(t, bytes, size);
        return;
    }
    char quoted[40];
    size_t n = 0;
    quoted[n++] = '"';
    for (size_t i = 0; i < size && i < 24; i++) {
        unsigned char c = (unsigned char)bytes[i];
        quoted[n++] = c >= 0x20 && c < 0x7f && c != '"' ? (char)c : '?';
    }
    if (size > 24) {
        memcpy(quoted + n, "...", 3);
        n += 3;
    }
    quoted[n++] = '"';
    put(t, quoted, n);
}

size_t ona__message_describe(ona_message *m, char *out, size_t size) {
    text_out t = {out, size, 0, false};
    out[0] = '\0';
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    /* Per open table: whether the next token is a key, and whether it is the first pair. */
    bool key_next[ONA_MESSAGE_MAX_DEPTH + 1] = {false}, first[ONA_MESSAGE_MAX_DEPTH + 1] = {true};
    uint32_t depth = 0;
    bool first_value = true;
    ona_value v;
    while (!t.cut && ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END) {
        if (v.type == ONA_VALUE_TABLE_END) {
            if (depth)
                depth--;
            put(&t, "}", 1);
            continue;
        }
        bool is_key = depth && key_next[depth];
        if (depth == 0) {
            if (!first_value)
                put(&t, ", ", 2);
            first_value = false;
        } else if (is_key) {
            if (!first[depth])
                put(&t, ", ", 2);
            first[depth] = false;
        }
        if (depth)
            key_next[depth] = !is_key;
        char num[48];
        switch (v.type) {
        case ONA_VALUE_NIL:
            put(&t, "nil", 3);
            break;
        case ONA_VALUE_BOOLEAN:
            put(&t, v.as.boolean ? "true" : "false", v.as.boolean ? 4 : 5);
            break;
        case ONA_VALUE_NUMBER:
            put(&t, num, (size_t)snprintf(num, sizeof num, "%.14g", v.as.number));
            break;
        case ONA_VALUE_STRING:
            put_string(&t, v.as.string.bytes, v.as.string.size, is_key);
            break;
        case ONA_VALUE_ONA_STRING:
            put_string(&t, ona_string_data(v.as.ona_string), ona_string_length(v.as.ona_string),
                       is_key);
            break;
        case ONA_VALUE_BUFFER:
            put(&t, num,
                (size_t)snprintf(num, sizeof num, "<buffer %.20s x%zu>",
                                 ona_buffer_type(v.as.buffer), ona_buffer_count(v.as.buffer)));
            break;
        case ONA_VALUE_TABLE_BEGIN:
            put(&t, "{", 1);
            if (depth < ONA_MESSAGE_MAX_DEPTH) {
                depth++;
                key_next[depth] = true;
                first[depth] = true;
            }
            break;
        default:
            break;
        }
        if (is_key && v.type != ONA_VALUE_TABLE_BEGIN)
            put(&t, "=", 1);
    }
    return t.len;
}

void ona__recent_record(ona__recent *w, uint64_t frame, ona_message *m) {
    ona__recent_entry *e = &w->entries[w->total % ONA__RECENT_ENTRIES];
    e->frame = frame;
    e->sender = ona_message_sender(m);
    e->values = ona_message_count(m);
    ona__message_describe(m, e->text, sizeof e->text);
    w->total++;
    for (uint32_t i = 0; i < w->sender_count; i++)
        if (w->senders[i].sender == e->sender) {
            w->senders[i].count++;
            return;
        }
    if (w->sender_count < ONA__RECENT_SENDERS)
        w->senders[w->sender_count++] = (ona__recent_sender){e->sender, 1};
    else
        w->others++;
}
