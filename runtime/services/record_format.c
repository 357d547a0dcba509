/*
 * record_format.c: the byte format of a recording (`ona --record`, ona_runtime_desc.record_path)
 * and its writer (chunk encoders).
 *
 * Format, version 3 (version 2, without 'A', 'L' and 'C', and version 1, without seed, window
 * size, 'G', 'R' and interrupts either, are still read). Integers are little-endian; `varint` is
 * unsigned LEB128 (at most 10 bytes); `str` is a varint length then that many bytes, none of
 * them NUL; `f32`/`f64` are IEEE-754 bit patterns.
 *
 *   file   = magic "ONAREC\0\n" (8 bytes), u32 format version (3), then chunks to the end
 *   chunk  = u8 tag, u32 payload length, payload, u32 CRC32 of tag, length and payload
 *   'H'    = header, first and once: str runtime version ("0.1.0"), str game folder as given,
 *            u8 delivery (ona_delivery), varint threads, varint arg count, str key=value each;
 *            version 2 goes on: varint seed, varint window width, varint window height (the
 *            size scripts saw at the first frame; 0 without video)
 *   'G'    = a game file the session loaded (a script, module or asset), written before the
 *            frame that first used it: str path (relative to the first script root it is
 *            under, else as resolved), varint size, u64 digest of its bytes (digest.h's hash;
 *            two u32, low first); size and digest 0 when it could not be read
 *   'R'    = a hot reload: varint frame it took effect in, then as 'G' (the new content's)
 *   'C'    = version 3: the new content of the hot reload in the 'R' chunk just before it:
 *            varint frame, str path (both as in its 'R'), then the file's bytes to the chunk's end;
 *            absent when the file was past ONA__RECORD_CONTENT_FILE_BYTES, or the recording's
 *            reloads past ONA__RECORD_CONTENT_TOTAL_BYTES, or it could not be read
 *   'L'    = version 3: a save loaded (ona.load, ona_ctx_load, ona_runtime_load), written before
 *            the frame it was loaded in: varint frame (0: before the first), varint loader
 *            (spawn order + 1; 0: C outside any system), str save name, varint result (0:
 *            loaded, else the ONA_E* code negated); loaded: u8 kept (1: the save's payload, the
 *            message codec's bytes of one value, follows to the chunk's end; 0: left out, past
 *            the bounds 'C' has); not loaded: str the error's text (< 600), e.g. "no such save"
 *   'M'    = a message sent from C (ona_runtime_send) between frames: varint frame it is
 *            delivered in, varint receiver's spawn order, then its values to the chunk's end:
 *            u8 kind (1 nil, 2 false, 3 true, 4 number: f64, 5 string: varint length and
 *            bytes, 6 buffer: str type (< 64), varint element size, varint count, the bytes,
 *            7 table begin, 8 table end), tables nested at most ONA_MESSAGE_MAX_DEPTH
 *   'S'    = a system's name, written before the first frame that has its digests:
 *            varint spawn order, str name (at most 63 bytes)
 *   'F'    = a frame: varint frame number (the first is 1; each is the one before + 1),
 *            f64 dt, varint event count (at most 256), events, varint digest count, digests;
 *            version 2 goes on: varint count of systems whose turn a budget interrupt ended
 *            in the frame, varint spawn order each (growing)
 *   'A'    = a frame of fixed steps (version 3; ona_runtime_desc.fixed_step), written before
 *            its first step's 'F': varint frame number of the first step, varint step count
 *            (1 to 1000: that many 'F' follow before the picture), f64 alpha in [0, 1)
 *   'E'    = the end, after the last frame of a session that closed: varint frame count
 *   event  = u8 ona_event_type, then by type:
 *              KEY_DOWN/UP     str name (< 32), varint scancode, u8 repeat
 *              TEXT            str text (< 32)
 *              MOUSE_*         f32 x, y, dx, dy, u8 button
 *              MOUSE_WHEEL     f32 dx, dy
 *              WINDOW_RESIZED  varint width, height
 *              GAMEPAD_*       u8 index, str name (< 16), f32 value
 *              others          nothing
 *   digest = varint spawn order (strictly growing within a frame), u8 mask of kinds
 *            (bit k: ONA__DIGEST_* k, digest.h), then for each bit set, lowest first:
 *            varint item count, u32 low half of the digest; for received messages (bit 0),
 *            version 2 goes on with the first min(count, 8) messages: varint sender's spawn
 *            order + 1 (0: from C), u32 low half of that message's digest
 *
 * A system's loads are in the order it made them, so a replay answers its nth load with its nth
 * 'L' whatever the thread count. A system with no item of any kind in a frame has no digest
 * there. Unknown tags are an error:
 * a new chunk is a new format version. A frame of a small game is 10-30 bytes plus its events
 * and 6-10 bytes per system that did something. The reader is record_read.c.
 */
#include "record.h"

#include "save.h"

/* --- Writing --------------------------------------------------------------------------------- */

void ona__rec_buf_free(ona__rec_buf *b) {
    ona__free(b->bytes);
    *b = (ona__rec_buf){0};
}

static void put(ona__rec_buf *b, const void *bytes, size_t n) {
    if (b->failed || n == 0)
        return;
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->size + n)
            cap *= 2;
        uint8_t *grown = ona__realloc(b->bytes, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->bytes = grown;
        b->cap = cap;
    }
    memcpy(b->bytes + b->size, bytes, n);
    b->size += n;
}

void ona__rec_put_bytes(ona__rec_buf *b, const void *bytes, size_t n) {
    if (n)
        put(b, bytes, n);
}

static void put_u8(ona__rec_buf *b, uint8_t v) {
    put(b, &v, 1);
}

static void put_u32(ona__rec_buf *b, uint32_t v) {
    uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, p, 4);
}

static void put_varint(ona__rec_buf *b, uint64_t v) {
    uint8_t p[10];
    size_t n = 0;
    do {
        p[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            p[n] |= 0x80;
        n++;
    } while (v);
    put(b, p, n);
}

static void put_str(ona__rec_buf *b, const char *s, size_t max) {
    size_t n = strnlen(s, max);
    put_varint(b, n);
    put(b, s, n);
}

static void put_f32(ona__rec_buf *b, float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    put_u32(b, bits);
}

static void put_f64(ona__rec_buf *b, double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    put_u32(b, (uint32_t)bits);
    put_u32(b, (uint32_t)(bits >> 32));
}

/* A chunk is built in place: begin writes the tag and room for the length, end fills it in and
 * appends the CRC. */
static size_t chunk_begin(ona__rec_buf *b, char tag) {
    size_t at = b->size;
    put_u8(b, (uint8_t)tag);
    put_u32(b, 0);
    return at;
}

static void chunk_end(ona__rec_buf *b, size_t at) {
    if (b->failed)
        return;
    uint32_t len = (uint32_t)(b->size - at - 5);
    uint8_t *p = b->bytes + at + 1;
    p[0] = (uint8_t)len, p[1] = (uint8_t)(len >> 8), p[2] = (uint8_t)(len >> 16);
    p[3] = (uint8_t)(len >> 24);
    put_u32(b, ona__crc32(0, b->bytes + at, b->size - at));
}

void ona__rec_put_header(ona__rec_buf *b, const ona__rec_header *h) {
    const char *const *args = h->args;
    put(b, ONA__RECORD_MAGIC, 8);
    put_u32(b, ONA__RECORD_VERSION);
    size_t at = chunk_begin(b, 'H');
    put_str(b, ONA_VERSION_STRING, 31);
    put_str(b, h->game ? h->game : "", 1023);
    put_u8(b, (uint8_t)h->delivery);
    put_varint(b, h->threads);
    uint32_t n = 0;
    while (args && args[n])
        n++;
    put_varint(b, n);
    for (uint32_t i = 0; i < n; i++)
        put_str(b, args[i], 4095);
    put_varint(b, h->seed);
    put_varint(b, h->width);
    put_varint(b, h->height);
    chunk_end(b, at);
}

static void put_file_body(ona__rec_buf *b, const char *path, uint64_t size, uint64_t digest) {
    put_str(b, path, ONA__RECORD_PATH_BYTES - 1);
    put_varint(b, size);
    put_u32(b, (uint32_t)digest);
    put_u32(b, (uint32_t)(digest >> 32));
}

void ona__rec_put_file(ona__rec_buf *b, const char *path, uint64_t size, uint64_t digest) {
    size_t at = chunk_begin(b, 'G');
    put_file_body(b, path, size, digest);
    chunk_end(b, at);
}

void ona__rec_put_reload(ona__rec_buf *b, uint64_t frame, const char *path, uint64_t size,
                         uint64_t digest) {
    size_t at = chunk_begin(b, 'R');
    put_varint(b, frame);
    put_file_body(b, path, size, digest);
    chunk_end(b, at);
}

void ona__rec_put_system(ona__rec_buf *b, uint32_t order, const char *name) {
    size_t at = chunk_begin(b, 'S');
    put_varint(b, order);
    put_str(b, name, ONA__RECORD_NAME_BYTES - 1);
    chunk_end(b, at);
}

void ona__rec_put_content(ona__rec_buf *b, uint64_t frame, const char *path, const uint8_t *bytes,
                          size_t size) {
    size_t at = chunk_begin(b, 'C');
    put_varint(b, frame);
    put_str(b, path, ONA__RECORD_PATH_BYTES - 1);
    put(b, bytes, size);
    chunk_end(b, at);
}

void ona__rec_put_load(ona__rec_buf *b, uint64_t frame, uint32_t loader, const char *name, int rc,
                       const uint8_t *bytes, size_t size, const char *err) {
    size_t at = chunk_begin(b, 'L');
    put_varint(b, frame);
    put_varint(b, loader);
    put_str(b, name, ONA__SAVE_MAX_NAME);
    put_varint(b, rc < 0 ? (uint64_t) - (int64_t)rc : 0);
    if (rc == 0) {
        put_u8(b, bytes ? 1 : 0);
        if (bytes)
            put(b, bytes, size);
    } else {
        put_str(b, err ? err : "", ONA__RECORD_ERROR_BYTES - 1);
    }
    chunk_end(b, at);
}

static void put_event(ona__rec_buf *b, const ona_event *e) {
    put_u8(b, (uint8_t)e->type);
    switch (e->type) {
    case ONA_EVENT_KEY_DOWN:
    case ONA_EVENT_KEY_UP:
        put_str(b, e->as.key.name, sizeof e->as.key.name - 1);
        put_varint(b, (uint32_t)e->as.key.scancode);
        put_u8(b, e->as.key.repeat);
        break;
    case ONA_EVENT_TEXT:
        put_str(b, e->as.text.text, sizeof e->as.text.text - 1);
        break;
    case ONA_EVENT_MOUSE_MOVE:
    case ONA_EVENT_MOUSE_DOWN:
    case ONA_EVENT_MOUSE_UP:
        put_f32(b, e->as.mouse.x);
        put_f32(b, e->as.mouse.y);
        put_f32(b, e->as.mouse.dx);
        put_f32(b, e->as.mouse.dy);
        put_u8(b, (uint8_t)e->as.mouse.button);
        break;
    case ONA_EVENT_MOUSE_WHEEL:
        put_f32(b, e->as.wheel.dx);
        put_f32(b, e->as.wheel.dy);
        break;
    case ONA_EVENT_WINDOW_RESIZED:
        put_varint(b, (uint32_t)e->as.window.width);
        put_varint(b, (uint32_t)e->as.window.height);
        break;
    case ONA_EVENT_GAMEPAD_ADDED:
    case ONA_EVENT_GAMEPAD_REMOVED:
    case ONA_EVENT_GAMEPAD_BUTTON_DOWN:
    case ONA_EVENT_GAMEPAD_BUTTON_UP:
    case ONA_EVENT_GAMEPAD_AXIS:
        put_u8(b, (uint8_t)e->as.gamepad.index);
        put_str(b, e->as.gamepad.name, sizeof e->as.gamepad.name - 1);
        put_f32(b, e->as.gamepad.value);
        break;
    default:
        break;
    }
}

void ona__rec_put_frame(ona__rec_buf *b, uint64_t frame, double dt, const ona_event *events,
                        uint32_t event_count, const ona__rec_digest *digests, uint32_t digest_count,
                        const uint32_t *interrupted, uint32_t interrupted_count) {
    size_t at = chunk_begin(b, 'F');
    put_varint(b, frame);
    put_f64(b, dt);
    put_varint(b, event_count);
    for (uint32_t i = 0; i < event_count; i++)
        put_event(b, &events[i]);
    put_varint(b, digest_count);
    for (uint32_t i = 0; i < digest_count; i++) {
        const ona__rec_digest *d = &digests[i];
        put_varint(b, d->order);
        put_u8(b, d->mask);
        for (int k = 0; k < ONA__DIGEST_KINDS; k++)
            if (d->mask & (1u << k)) {
                put_varint(b, d->count[k]);
                put_u32(b, d->hash[k]);
                for (uint32_t m = 0; k == ONA__DIGEST_RECEIVED && m < d->detail_count; m++) {
                    put_varint(b, d->detail_from[m]);
                    put_u32(b, d->detail_hash[m]);
                }
            }
    }
    put_varint(b, interrupted_count);
    for (uint32_t i = 0; i < interrupted_count; i++)
        put_varint(b, interrupted[i]);
    chunk_end(b, at);
}

void ona__rec_put_steps(ona__rec_buf *b, uint64_t frame, uint32_t count, double alpha) {
    size_t at = chunk_begin(b, 'A');
    put_varint(b, frame);
    put_varint(b, count);
    put_f64(b, alpha);
    chunk_end(b, at);
}

void ona__rec_put_end(ona__rec_buf *b, uint64_t frames) {
    size_t at = chunk_begin(b, 'E');
    put_varint(b, frames);
    chunk_end(b, at);
}

/* A message's values: u8 kind (ONA__REC_VALUE_*), then a number's f64, a string's varint length
 * and bytes, a buffer's str type, varint element size, varint count and bytes. */
void ona__rec_put_send(ona__rec_buf *b, uint64_t frame, uint32_t order, ona_message *m) {
    size_t at = chunk_begin(b, 'M');
    put_varint(b, frame);
    put_varint(b, order);
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END) {
        switch (v.type) {
        case ONA_VALUE_BOOLEAN:
            put_u8(b, v.as.boolean ? ONA__REC_VALUE_TRUE : ONA__REC_VALUE_FALSE);
            break;
        case ONA_VALUE_NUMBER:
            put_u8(b, ONA__REC_VALUE_NUMBER);
            put_f64(b, v.as.number);
            break;
        case ONA_VALUE_STRING:
        case ONA_VALUE_ONA_STRING: {
            const char *bytes =
                v.type == ONA_VALUE_STRING ? v.as.string.bytes : ona_string_data(v.as.ona_string);
            size_t n =
                v.type == ONA_VALUE_STRING ? v.as.string.size : ona_string_length(v.as.ona_string);
            put_u8(b, ONA__REC_VALUE_STRING);
            put_varint(b, n);
            put(b, bytes, n);
            break;
        }
        case ONA_VALUE_BUFFER: {
            ona_buffer *buf = v.as.buffer;
            size_t n = ona_buffer_count(buf) * ona_buffer_elem_size(buf);
            put_u8(b, ONA__REC_VALUE_BUFFER);
            put_str(b, ona_buffer_type(buf), 63);
            put_varint(b, ona_buffer_elem_size(buf));
            put_varint(b, ona_buffer_count(buf));
            put(b, ona_buffer_data(buf), n);
            break;
        }
        case ONA_VALUE_TABLE_BEGIN:
            put_u8(b, ONA__REC_VALUE_TABLE);
            break;
        case ONA_VALUE_TABLE_END:
            put_u8(b, ONA__REC_VALUE_END);
            break;
        default:
            put_u8(b, ONA__REC_VALUE_NIL);
            break;
        }
    }
    chunk_end(b, at);
}

void ona__rec_put_send_values(ona__rec_buf *b, uint64_t frame, uint32_t order,
                              const uint8_t *values, size_t size) {
    size_t at = chunk_begin(b, 'M');
    put_varint(b, frame);
    put_varint(b, order);
    put(b, values, size);
    chunk_end(b, at);
}
