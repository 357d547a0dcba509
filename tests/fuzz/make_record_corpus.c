/*
 * make_record_corpus.c: writes the recording fuzzer's seed corpus (tests/fuzz/corpus/record/)
 * with the runtime's own chunk encoders: valid-* recordings (one with every kind of event and
 * digest), trunc-* ones cut inside a chunk (valid: a crash leaves them), and bad-* ones (another
 * version, a flipped byte, no header, a bad save or reload chunk); valid-v1-events and
 * valid-v2-events are older versions' recordings, kept as they were written.
 * tests/test_fuzz_corpus.c holds each file to its name's verdict. Run by hand (built with
 * ONA_BUILD_FUZZ): make_record_corpus <folder>.
 */
#include "record.h"
#include "save.h"
#include "seed_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *folder;

static void save(const char *name, const uint8_t *bytes, size_t size) {
    seed_save("make_record_corpus", folder, name, bytes, size);
}

int main(int argc, char **argv) {
    folder = seed_folder("make_record_corpus", argc, argv);
    const char *args[] = {"autoplay=1", "level=2", NULL};
    ona__rec_buf b = {0};
    ona__rec_put_header(&b, &(ona__rec_header){.game = "samples/invaders",
                                               .delivery = ONA_DELIVERY_ORDERED,
                                               .threads = 2,
                                               .width = 960,
                                               .height = 720,
                                               .args = args});
    ona__rec_put_end(&b, 0);
    save("valid-empty", b.bytes, b.size);

    b.size = 0;
    ona__rec_put_header(
        &b, &(ona__rec_header){
                .game = "game", .delivery = ONA_DELIVERY_ORDERED, .threads = 4, .seed = 12345});
    ona__rec_put_file(&b, "main.lua", 120, 0x0123456789abcdefull);
    ona__rec_put_file(&b, "missing.lua", 0, 0);
    ona_event events[8] = {{0}};
    events[0].type = ONA_EVENT_KEY_DOWN;
    snprintf(events[0].as.key.name, sizeof events[0].as.key.name, "space");
    events[0].as.key.scancode = 44;
    events[1].type = ONA_EVENT_TEXT;
    snprintf(events[1].as.text.text, sizeof events[1].as.text.text, "a");
    events[2] = (ona_event){.type = ONA_EVENT_MOUSE_DOWN, .as.mouse = {1, 2, 0, 0, 1}};
    events[3] = (ona_event){.type = ONA_EVENT_MOUSE_WHEEL, .as.wheel = {0, -1}};
    events[4] = (ona_event){.type = ONA_EVENT_WINDOW_RESIZED, .as.window = {640, 480}};
    events[5] = (ona_event){.type = ONA_EVENT_GAMEPAD_AXIS, .as.gamepad = {1, "leftx", 0.5f}};
    events[6].type = ONA_EVENT_WINDOW_FOCUS;
    events[7].type = ONA_EVENT_QUIT;
    ona__rec_digest digests[2] = {
        {.order = 1,
         .mask = 3,
         .count = {2, 1, 0},
         .hash = {0xdeadbeef, 7, 0},
         .detail_count = 2,
         .detail_from = {0, 6},
         .detail_hash = {11, 12}},
        {.order = 5, .mask = 4, .count = {0, 0, 1}, .hash = {0, 0, 42}},
    };
    ona__rec_put_system(&b, 1, "player");
    ona__rec_put_system(&b, 5, "audio");
    const uint32_t interrupted[] = {1, 5};
    ona__rec_put_frame(&b, 1, 1.0 / 60, events, 8, digests, 2, NULL, 0);
    ona__rec_put_reload(&b, 2, "player.lua", 99, 77);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_string(&w, "hit", 3);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "damage", 6);
    ona_message_write_number(&w, 17);
    ona_message_write_table_end(&w);
    ona_message_write_boolean(&w, true);
    ona_message_write_nil(&w);
    ona_message_writer_end(&w);
    ona__rec_put_send(&b, 2, 5, &m);
    ona_message_release(&m);
    ona__rec_put_frame(&b, 2, 0.02, NULL, 0, digests, 1, interrupted, 2);
    size_t cut = b.size;
    ona__rec_put_frame(&b, 3, 0.0, events, 1, NULL, 0, NULL, 0);
    ona__rec_put_end(&b, 3);
    save("valid-events", b.bytes, b.size);
    save("trunc-frame", b.bytes, cut + 7);

    uint8_t *copy = malloc(b.size);
    memcpy(copy, b.bytes, b.size);
    copy[8] = 9;
    save("bad-version", copy, b.size);
    memcpy(copy, b.bytes, b.size);
    copy[cut - 10] ^= 1;
    save("bad-flipped", copy, b.size);
    save("bad-no-header", b.bytes, 14);
    memcpy(copy, b.bytes, b.size);
    copy[0] = 'X';
    save("bad-magic", copy, b.size);
    free(copy);

    /* Version 3's inputs: saves loaded (kept, missing, an error, left out) and a hot reload's
     * content. */
    b.size = 0;
    ona__rec_put_header(&b, &(ona__rec_header){.game = "game", .threads = 2, .seed = 7});
    ona_message_init(&m);
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "level", 5);
    ona_message_write_number(&w, 3);
    ona_message_write_table_end(&w);
    ona_message_writer_end(&w);
    const uint8_t *payload = ona__message_bytes(&m);
    size_t payload_size = m.size;
    ona__rec_put_load(&b, 0, 1, "slot1", 0, payload, payload_size, NULL);
    ona__rec_put_load(&b, 0, 1, "slot2", ONA_ENOENT, NULL, 0,
                      "save slot2 (/s/slot2.save): no such save");
    ona__rec_put_load(&b, 0, 0, "big", 0, NULL, 0, NULL);
    ona__rec_put_system(&b, 0, "main");
    ona__rec_put_frame(&b, 1, 1.0 / 60, NULL, 0, NULL, 0, NULL, 0);
    ona__rec_put_reload(&b, 2, "player.lua", 12, 99);
    ona__rec_put_content(&b, 2, "player.lua", (const uint8_t *)"return {}\n--", 12);
    ona__rec_put_load(&b, 2, 1, "slot1", ONA_EFORMAT, NULL, 0,
                      "save slot1: corrupt: checksum mismatch");
    ona__rec_put_frame(&b, 2, 1.0 / 60, NULL, 0, NULL, 0, NULL, 0);
    size_t before_load = b.size;
    ona__rec_put_load(&b, 2, 1, "slot1", 0, payload, payload_size, NULL);
    size_t after_load = b.size;
    ona__rec_put_end(&b, 2);
    save("valid-v3-inputs", b.bytes, b.size);
    save("trunc-load", b.bytes, before_load + 9);
    /* An 'L' whose save does not decode, and a 'C' with no 'R' before it (checksums right). */
    copy = malloc(b.size);
    memcpy(copy, b.bytes, b.size);
    copy[after_load - 5] = 0xff; /* the kept payload's last tag (the table's end) */
    uint32_t crc = ona__crc32(0, copy + before_load, after_load - before_load - 4);
    for (int i = 0; i < 4; i++)
        copy[after_load - 4 + i] = (uint8_t)(crc >> (8 * i));
    save("bad-load-value", copy, b.size);
    free(copy);
    ona_message_release(&m);
    b.size = 0;
    ona__rec_put_header(&b, &(ona__rec_header){.game = "game", .threads = 2});
    ona__rec_put_content(&b, 2, "player.lua", (const uint8_t *)"x", 1);
    save("bad-content-orphan", b.bytes, b.size);
    b.size = 0;
    ona__rec_put_header(&b, &(ona__rec_header){.game = "game", .threads = 2});
    ona__rec_put_load(&b, 0, 1, "../etc", ONA_ENOENT, NULL, 0, "no");
    save("bad-load-name", b.bytes, b.size);
    ona__rec_buf_free(&b);
    return 0;
}
