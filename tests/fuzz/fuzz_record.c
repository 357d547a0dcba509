/*
 * fuzz_record.c: the recording reader's fuzz target. Untrusted bytes go through
 * ona__recording_parse (runtime/services/record_read.c); what it accepts is checked and
 * written back with the chunk encoders, and the copy must parse to the same recording.
 *
 * Design note. One file, two builds, like fuzz_message.c: linked with -fsanitize=fuzzer into
 * `fuzz_record` under ONA_BUILD_FUZZ, and compiled plainly into test_fuzz_corpus, which replays
 * tests/fuzz/corpus/record/ through the same function on every build. Properties, each an
 * abort(): every frame's events and digests lie inside the parsed arrays, frames are numbered
 * one after another, a failed parse names its reason, and the round trip (header, names,
 * frames, end) reads back the same frames, events and digests, loads and reloads' content. Each
 * input is also tried with its chunks' checksums made right, so the fuzzer's mutations reach the
 * payload parsers.
 */
#include "fuzz_record.h"

#include "record.h"
#include "save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_record: %s\n", what);
        abort();
    }
}

static void check_same(const ona__recording *a, const ona__recording *b) {
    check(a->frame_count == b->frame_count && a->event_count == b->event_count &&
              a->digest_count == b->digest_count && a->system_count == b->system_count &&
              a->arg_count == b->arg_count && a->ended == b->ended,
          "the round trip changed the counts");
    check(strcmp(a->game, b->game) == 0 && memcmp(a->args, b->args, sizeof a->args) == 0 &&
              a->seed == b->seed && a->width == b->width && a->height == b->height,
          "the round trip changed the header");
    check(a->interrupted_count == b->interrupted_count && a->file_count == b->file_count &&
              a->names_size == b->names_size,
          "the round trip changed the interrupts or the files");
    check(a->send_count == b->send_count && a->send_bytes_size == b->send_bytes_size &&
              (a->send_bytes_size == 0 ||
               memcmp(a->send_bytes, b->send_bytes, a->send_bytes_size) == 0),
          "the round trip changed the messages from C");
    for (uint32_t i = 0; i < a->send_count; i++)
        check(a->sends[i].frame == b->sends[i].frame && a->sends[i].order == b->sends[i].order,
              "the round trip changed a message from C");
    for (uint32_t i = 0; i < a->interrupted_count; i++)
        check(a->interrupted[i] == b->interrupted[i], "the round trip changed an interrupt");
    check(a->load_count == b->load_count && a->left_out == b->left_out,
          "the round trip changed the loads");
    for (uint32_t i = 0; i < a->load_count; i++) {
        const ona__rec_load *x = &a->loads[i], *y = &b->loads[i];
        check(x->frame == y->frame && x->loader == y->loader && strcmp(x->name, y->name) == 0 &&
                  x->rc == y->rc && x->kept == y->kept && x->size == y->size &&
                  (x->size == 0 ||
                   memcmp(a->contents + x->offset, b->contents + y->offset, x->size) == 0),
              "the round trip changed a load");
    }
    for (uint32_t i = 0; i < a->file_count; i++)
        check(a->files[i].has_content == b->files[i].has_content &&
                  a->files[i].content_size == b->files[i].content_size &&
                  (!a->files[i].content_size ||
                   memcmp(a->contents + a->files[i].content, b->contents + b->files[i].content,
                          a->files[i].content_size) == 0),
              "the round trip changed a reload's content");
    for (uint32_t i = 0; i < a->file_count; i++)
        check(a->files[i].frame == b->files[i].frame && a->files[i].size == b->files[i].size &&
                  a->files[i].digest == b->files[i].digest &&
                  strcmp(a->names + a->files[i].name, b->names + b->files[i].name) == 0,
              "the round trip changed a file");
    for (uint32_t i = 0; i < a->frame_count; i++)
        check(a->frames[i].frame == b->frames[i].frame &&
                  memcmp(&a->frames[i].dt, &b->frames[i].dt, sizeof(double)) == 0,
              "the round trip changed a frame");
    for (uint32_t i = 0; i < a->event_count; i++)
        check(memcmp(&a->events[i], &b->events[i], sizeof *a->events) == 0,
              "the round trip changed an event");
    for (uint32_t i = 0; i < a->digest_count; i++)
        check(memcmp(&a->digests[i], &b->digests[i], sizeof *a->digests) == 0,
              "the round trip changed a digest");
}

/* A copy of `data` whose chunks' CRCs are made to match, so that mutated payloads reach the
 * chunk parsers instead of all stopping at the checksum. */
static uint8_t *with_crcs_fixed(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return NULL;
    memcpy(copy, data, size);
    size_t at = 12;
    while (size >= 12 && at + 9 <= size) {
        uint32_t len = (uint32_t)copy[at + 1] | (uint32_t)copy[at + 2] << 8 |
                       (uint32_t)copy[at + 3] << 16 | (uint32_t)copy[at + 4] << 24;
        if ((uint64_t)at + 9 + len > size)
            break;
        uint32_t crc = ona__crc32(0, copy + at, 5 + (size_t)len);
        for (int i = 0; i < 4; i++)
            copy[at + 5 + len + i] = (uint8_t)(crc >> (8 * i));
        at += 9 + (size_t)len;
    }
    return copy;
}

static int fuzz_one(const uint8_t *data, size_t size);

int ona_fuzz_record(const uint8_t *data, size_t size) {
    int rc = fuzz_one(data, size);
    uint8_t *fixed = with_crcs_fixed(data, size);
    if (fixed) {
        fuzz_one(fixed, size);
        free(fixed);
    }
    return rc;
}

static int fuzz_one(const uint8_t *data, size_t size) {
    ona__recording rec;
    char err[256] = "";
    int rc = ona__recording_parse(data, size, &rec, err, sizeof err);
    for (uint32_t i = 0; rc == 0 && i < rec.send_count; i++) { /* what a replay sends */
        ona_message m;
        if (ona__rec_send_decode(rec.send_bytes + rec.sends[i].offset, rec.sends[i].size, &m) == 0)
            ona_message_release(&m);
    }
    for (uint32_t i = 0; rc == 0 && i < rec.load_count; i++) { /* what a replay answers */
        const ona__rec_load *l = &rec.loads[i];
        check((uint64_t)l->offset + l->size <= rec.contents_size, "a load points past contents");
        ona_message m;
        if (l->rc == 0 && l->kept && ona__save_decode(rec.contents + l->offset, l->size, &m) == 0)
            ona_message_release(&m);
    }
    for (uint32_t i = 0; rc == 0 && i < rec.file_count; i++)
        check(!rec.files[i].has_content ||
                  (uint64_t)rec.files[i].content + rec.files[i].content_size <= rec.contents_size,
              "a reload's content points past contents");
    if (rc) {
        check(rc == ONA_ENOMEM || err[0] != '\0', "a refusal without a reason");
        ona__recording_free(&rec);
        return rc;
    }
    for (uint32_t i = 0; i < rec.frame_count; i++) {
        const ona__rec_frame *f = &rec.frames[i];
        check((uint64_t)f->first_event + f->event_count <= rec.event_count &&
                  (uint64_t)f->first_digest + f->digest_count <= rec.digest_count,
              "a frame points past the arrays");
        check(i == 0 || f->frame == rec.frames[i - 1].frame + 1, "frames out of sequence");
        check((uint64_t)f->first_interrupted + f->interrupted_count <= rec.interrupted_count,
              "a frame's interrupts point past the array");
    }
    /* Write it again: the header, the names, the frames and, when it had one, the end. */
    const char *args[65] = {0};
    const char *a = rec.args;
    for (uint32_t i = 0; i < rec.arg_count && i < 64; i++, a += strlen(a) + 1)
        args[i] = a;
    ona__rec_buf b = {0};
    ona__rec_header header = {.game = rec.game,
                              .delivery = rec.delivery,
                              .threads = rec.threads,
                              .seed = rec.seed,
                              .width = rec.width,
                              .height = rec.height,
                              .args = args};
    ona__rec_put_header(&b, &header);
    for (uint32_t i = 0; i < rec.file_count; i++) {
        const ona__rec_file *f = &rec.files[i];
        if (f->frame) {
            ona__rec_put_reload(&b, f->frame, rec.names + f->name, f->size, f->digest);
            if (f->has_content)
                ona__rec_put_content(&b, f->frame, rec.names + f->name, rec.contents + f->content,
                                     f->content_size);
        } else
            ona__rec_put_file(&b, rec.names + f->name, f->size, f->digest);
    }
    for (uint32_t i = 0; i < rec.send_count; i++)
        ona__rec_put_send_values(&b, rec.sends[i].frame, rec.sends[i].order,
                                 rec.send_bytes + rec.sends[i].offset, rec.sends[i].size);
    for (uint32_t i = 0; i < rec.load_count; i++) {
        const ona__rec_load *l = &rec.loads[i];
        char text[ONA__RECORD_ERROR_BYTES];
        snprintf(text, sizeof text, "%.*s", (int)l->size, (const char *)rec.contents + l->offset);
        ona__rec_put_load(&b, l->frame, l->loader, l->name, l->rc,
                          l->rc == 0 && l->kept ? rec.contents + l->offset : NULL, l->size, text);
    }
    for (uint32_t i = 0; i < rec.system_count; i++)
        ona__rec_put_system(&b, rec.systems[i].order, rec.systems[i].name);
    for (uint32_t i = 0; i < rec.frame_count; i++) {
        const ona__rec_frame *f = &rec.frames[i];
        ona__rec_put_frame(
            &b, f->frame, f->dt, rec.events ? rec.events + f->first_event : NULL, f->event_count,
            rec.digests ? rec.digests + f->first_digest : NULL, f->digest_count,
            rec.interrupted ? rec.interrupted + f->first_interrupted : NULL, f->interrupted_count);
    }
    if (rec.ended)
        ona__rec_put_end(&b, rec.frame_count);
    /* A version 1 recording has no message detail, which the writer writes; a version 2 one
     * reads back the same as the version 3 copy (it has no loads or reload content). */
    if (!b.failed && rec.arg_count <= 64 && rec.version >= 2) {
        ona__recording again;
        char why[256];
        int again_rc = ona__recording_parse(b.bytes, b.size, &again, why, sizeof why);
        if (again_rc != ONA_ENOMEM) {
            check(again_rc == 0, why);
            check(!again.truncated, "the copy reads as truncated");
            check_same(&rec, &again);
        }
        ona__recording_free(&again);
    }
    ona__rec_buf_free(&b);
    ona__recording_free(&rec);
    return 0;
}

/* Only in the fuzzer's own build: test_fuzz_corpus links fuzz_message.c's entry too. */
#ifdef ONA_FUZZ_RECORD_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ona_fuzz_record(data, size);
    return 0;
}
#endif
