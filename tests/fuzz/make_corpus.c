/*
 * make_corpus.c: writes the message fuzzer's seed corpus (tests/fuzz/corpus/message/): a few
 * valid encoded messages made with the C writer, named valid-*, and malformed ones cut or
 * patched from them, named bad-*. tests/test_fuzz_corpus.c holds each file to its name's
 * verdict. Run by hand (built with ONA_BUILD_FUZZ): make_corpus <folder>.
 *
 * Design note. The seeds are small on purpose: the fuzzer mutates them, so a seed per token kind
 * and per nesting shape is worth more than one big message.
 */
#include "ona/ona.h"
#include "message.h"
#include "seed_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *folder;

static void save(const char *name, const uint8_t *bytes, size_t size) {
    seed_save("make_corpus", folder, name, bytes, size);
}

static void save_message(const char *name, ona_message_writer *w) {
    if (ona_message_writer_end(w) != 0) {
        fprintf(stderr, "make_corpus: %s did not encode\n", name);
        exit(1);
    }
    save(name, ona__message_bytes(w->msg), w->msg->size);
}

int main(int argc, char **argv) {
    folder = seed_folder("make_corpus", argc, argv);
    ona_message m;
    ona_message_writer w;

    /* Scalars: nil, booleans, numbers, a short and a long string. */
    ona_message_init(&m);
    ona_message_writer_begin(&w, &m);
    ona_message_write_nil(&w);
    ona_message_write_boolean(&w, true);
    ona_message_write_boolean(&w, false);
    ona_message_write_number(&w, 3.25);
    ona_message_write_number(&w, -1e300);
    ona_message_write_string(&w, "hit", 3);
    const char long_text[] = "a string longer than twenty-three bytes, with a \0 inside";
    ona_message_write_string(&w, long_text, sizeof long_text - 1);
    save_message("valid-scalars", &w);
    uint8_t scalars[256];
    uint32_t scalars_size = m.size;
    memcpy(scalars, ona__message_bytes(&m), m.size);
    ona_message_release(&m);

    /* A game-like message: "positions", {1, 2, 3, x = 4, [true] = "t", nested = {{}}}. */
    ona_message_init(&m);
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, "positions", 9);
    ona_message_write_table_begin(&w);
    for (int i = 1; i <= 3; i++) {
        ona_message_write_number(&w, i);
        ona_message_write_number(&w, i * 10.5);
    }
    ona_message_write_string(&w, "x", 1);
    ona_message_write_number(&w, 4);
    ona_message_write_boolean(&w, true);
    ona_message_write_string(&w, "t", 1);
    ona_message_write_string(&w, "nested", 6);
    ona_message_write_table_begin(&w);
    ona_message_write_number(&w, 1);
    ona_message_write_table_begin(&w);
    ona_message_write_table_end(&w);
    ona_message_write_table_end(&w);
    ona_message_write_table_end(&w);
    save_message("valid-table", &w);
    uint8_t table[256];
    uint32_t table_size = m.size;
    memcpy(table, ona__message_bytes(&m), m.size);
    ona_message_release(&m);

    /* Tables nested as deep as allowed. */
    ona_message_init(&m);
    ona_message_writer_begin(&w, &m);
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH; i++) {
        ona_message_write_table_begin(&w);
        if (i + 1 < ONA_MESSAGE_MAX_DEPTH)
            ona_message_write_number(&w, 1);
    }
    for (int i = 0; i < ONA_MESSAGE_MAX_DEPTH; i++)
        ona_message_write_table_end(&w);
    save_message("valid-deep", &w);
    ona_message_release(&m);

    /* The empty message (no values) is valid too. */
    save("valid-empty", NULL, 0);

    /* Malformed: cut in the middle of a token, an unknown tag, an unbalanced table, a string
     * reference (never allowed in untrusted bytes), a short string claiming too many bytes. */
    save("bad-truncated", scalars, scalars_size - 3);
    uint8_t patched[256];
    memcpy(patched, scalars, scalars_size);
    patched[0] = 0xEE;
    save("bad-tag", patched, scalars_size);
    save("bad-unbalanced", table, table_size - 1);
    const uint8_t ref[] = {ONA__TAG_STRING_REF, 1, 2, 3, 4, 5, 6, 7, 8, 3, 0, 0, 0, 0, 0, 0, 0};
    save("bad-string-ref", ref, sizeof ref);
    const uint8_t short_string[] = {ONA__TAG_SHORT_STRING, 30, 'a', 'b'};
    save("bad-short-string", short_string, sizeof short_string);
    return 0;
}
