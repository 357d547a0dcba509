/*
 * record_format.c: the byte format of a recording (`ona --record`, ona_runtime_desc.record_path)
 * and its reader, which takes untrusted bytes (the fuzzing entry point).
 *
 * Format, version 1. Integers are little-endian; `varint` is unsigned LEB128 (at most 10 bytes);
 * `str` is a varint length then that many bytes, none of them NUL; `f32`/`f64` are IEEE-754 bit
 * patterns.
 *
 *   file   = magic "ONAREC\0\n" (8 bytes), u32 format version (1), then chunks to the end
 *   chunk  = u8 tag, u32 payload length, payload, u32 CRC32 of tag, length and payload
 *   'H'    = header, first and once: str runtime version ("0.1.0"), str game folder as given,
 *            u8 delivery (ona_delivery), varint threads, varint arg count, str key=value each
 *   'S'    = a system's name, written before the first frame that has its digests:
 *            varint spawn order, str name (at most 63 bytes)
 *   'F'    = a frame: varint frame number (the first is 1; each is the one before + 1),
 *            f64 dt, varint event count (at most 256), events, varint digest count, digests
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
 *            varint item count, u32 low half of the digest
 *
 * A system with no item of any kind in a frame has no digest there. Unknown tags are an error:
 * a new chunk is a new format version. A frame of a small game is 10-30 bytes plus its events
 * and 6-10 bytes per system that did something.
 *
 * Reading. The CRC of a chunk is checked before its payload is parsed, so a flipped byte reads
 * as "corrupt" rather than as a strange frame. A chunk whose length runs past the end of the
 * file is what a crash leaves: the reader keeps every chunk before it and marks the recording
 * truncated. Every count is checked against the bytes left, so an array never grows past what
 * the input could describe.
 */
#include "record.h"

#include "save.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>

/* --- Writing --------------------------------------------------------------------------------- */

void ona__rec_buf_free(ona__rec_buf *b) {
    ona__free(b->bytes);
    *b = (ona__rec_buf){0};
}

static void put(ona__rec_buf *b, const void *bytes, size_t n) {
    if (b->failed)
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

void ona__rec_put_header(ona__rec_buf *b, const char *game, uint32_t delivery, uint32_t threads,
                         const char *const *args) {
    put(b, ONA__RECORD_MAGIC, 8);
    put_u32(b, ONA__RECORD_VERSION);
    size_t at = chunk_begin(b, 'H');
    put_str(b, ONA_VERSION_STRING, 31);
    put_str(b, game ? game : "", 1023);
    put_u8(b, (uint8_t)delivery);
    put_varint(b, threads);
    uint32_t n = 0;
    while (args && args[n])
        n++;
    put_varint(b, n);
    for (uint32_t i = 0; i < n; i++)
        put_str(b, args[i], 4095);
    chunk_end(b, at);
}

void ona__rec_put_system(ona__rec_buf *b, uint32_t order, const char *name) {
    size_t at = chunk_begin(b, 'S');
    put_varint(b, order);
    put_str(b, name, ONA__RECORD_NAME_BYTES - 1);
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
                        uint32_t event_count, const ona__rec_digest *digests,
                        uint32_t digest_count) {
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
            }
    }
    chunk_end(b, at);
}

void ona__rec_put_end(ona__rec_buf *b, uint64_t frames) {
    size_t at = chunk_begin(b, 'E');
    put_varint(b, frames);
    chunk_end(b, at);
}

/* --- Reading --------------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p, *end;
    bool bad;
} reader;

static uint8_t get_u8(reader *r) {
    if (r->p >= r->end) {
        r->bad = true;
        return 0;
    }
    return *r->p++;
}

static uint32_t get_u32(reader *r) {
    if (r->end - r->p < 4) {
        r->bad = true;
        r->p = r->end;
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    return v;
}

static uint64_t get_varint(reader *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t c = get_u8(r);
        if (r->bad)
            return 0;
        if (shift == 63 && c > 1) { /* past 64 bits */
            r->bad = true;
            return 0;
        }
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

/* Reads a string into `out` (NUL-terminated); one longer than `size - 1` or holding a NUL is
 * malformed. */
static void get_str(reader *r, char *out, size_t size) {
    uint64_t n = get_varint(r);
    if (r->bad || n >= size || n > (uint64_t)(r->end - r->p) || memchr(r->p, 0, (size_t)n)) {
        r->bad = true;
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p, (size_t)n);
    out[n] = '\0';
    r->p += n;
}

static float get_f32(reader *r) {
    uint32_t bits = get_u32(r);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static double get_f64(reader *r) {
    uint64_t lo = get_u32(r), hi = get_u32(r);
    uint64_t bits = lo | hi << 32;
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static int fail(char *err, size_t errsize, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
    return ONA_EFORMAT;
}

/* Makes room for one more item in a growing array. */
static bool grow(void **items, uint32_t *cap, uint32_t count, size_t item) {
    if (count < *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 64;
    void *grown = ona__realloc(*items, (size_t)n * item);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

static bool get_event(reader *r, ona_event *e) {
    memset(e, 0, sizeof *e);
    uint8_t type = get_u8(r);
    if (type == ONA_EVENT_NONE || type > ONA_EVENT_GAMEPAD_AXIS)
        return false;
    e->type = (ona_event_type)type;
    switch (e->type) {
    case ONA_EVENT_KEY_DOWN:
    case ONA_EVENT_KEY_UP: {
        get_str(r, e->as.key.name, sizeof e->as.key.name);
        uint64_t sc = get_varint(r);
        e->as.key.scancode = sc < 4096 ? (int)sc : 0;
        uint8_t repeat = get_u8(r);
        e->as.key.repeat = repeat != 0;
        return sc < 4096 && repeat <= 1;
    }
    case ONA_EVENT_TEXT:
        get_str(r, e->as.text.text, sizeof e->as.text.text);
        return true;
    case ONA_EVENT_MOUSE_MOVE:
    case ONA_EVENT_MOUSE_DOWN:
    case ONA_EVENT_MOUSE_UP:
        e->as.mouse.x = get_f32(r);
        e->as.mouse.y = get_f32(r);
        e->as.mouse.dx = get_f32(r);
        e->as.mouse.dy = get_f32(r);
        e->as.mouse.button = get_u8(r);
        return true;
    case ONA_EVENT_MOUSE_WHEEL:
        e->as.wheel.dx = get_f32(r);
        e->as.wheel.dy = get_f32(r);
        return true;
    case ONA_EVENT_WINDOW_RESIZED: {
        uint64_t w = get_varint(r), h = get_varint(r);
        e->as.window.width = (int)(w & 0xffff);
        e->as.window.height = (int)(h & 0xffff);
        return w > 0 && w <= 65535 && h > 0 && h <= 65535;
    }
    case ONA_EVENT_GAMEPAD_ADDED:
    case ONA_EVENT_GAMEPAD_REMOVED:
    case ONA_EVENT_GAMEPAD_BUTTON_DOWN:
    case ONA_EVENT_GAMEPAD_BUTTON_UP:
    case ONA_EVENT_GAMEPAD_AXIS:
        e->as.gamepad.index = get_u8(r);
        get_str(r, e->as.gamepad.name, sizeof e->as.gamepad.name);
        e->as.gamepad.value = get_f32(r);
        return true;
    default:
        return true;
    }
}

static int parse_header(reader *r, ona__recording *out) {
    get_str(r, out->runtime_version, sizeof out->runtime_version);
    get_str(r, out->game, sizeof out->game);
    out->delivery = get_u8(r);
    uint64_t threads = get_varint(r), n = get_varint(r);
    if (r->bad || out->delivery > ONA_DELIVERY_IMMEDIATE || threads > 1024 ||
        n > (uint64_t)(r->end - r->p))
        return -1;
    out->threads = (uint32_t)threads;
    size_t used = 0;
    for (uint64_t i = 0; i < n; i++) {
        char arg[4096];
        get_str(r, arg, sizeof arg);
        size_t len = strlen(arg);
        if (r->bad || used + len + 1 > sizeof out->args || !strchr(arg, '='))
            return -1;
        memcpy(out->args + used, arg, len + 1);
        used += len + 1;
        out->arg_count++;
    }
    return 0;
}

static int parse_frame(reader *r, ona__recording *out, char *err, size_t errsize) {
    if (!grow((void **)&out->frames, &out->frame_cap, out->frame_count, sizeof *out->frames))
        return ONA_ENOMEM;
    ona__rec_frame *f = &out->frames[out->frame_count];
    f->frame = get_varint(r);
    f->dt = get_f64(r);
    uint64_t events = get_varint(r);
    if (r->bad)
        return -1;
    uint64_t expect = out->frame_count ? out->frames[out->frame_count - 1].frame + 1 : f->frame;
    if (f->frame == 0 || f->frame != expect)
        return fail(err, errsize, "frame %llu follows frame %llu", (unsigned long long)f->frame,
                    (unsigned long long)(expect - 1));
    if (!(f->dt >= 0 && f->dt <= 1) || events > 256)
        return -1;
    f->first_event = out->event_count;
    f->event_count = (uint32_t)events;
    for (uint64_t i = 0; i < events; i++) {
        if (!grow((void **)&out->events, &out->event_cap, out->event_count, sizeof *out->events))
            return ONA_ENOMEM;
        if (!get_event(r, &out->events[out->event_count]) || r->bad)
            return -1;
        out->event_count++;
    }
    uint64_t digests = get_varint(r);
    if (r->bad || digests > (uint64_t)(r->end - r->p))
        return -1;
    f->first_digest = out->digest_count;
    f->digest_count = (uint32_t)digests;
    for (uint64_t i = 0; i < digests; i++) {
        if (!grow((void **)&out->digests, &out->digest_cap, out->digest_count,
                  sizeof *out->digests))
            return ONA_ENOMEM;
        ona__rec_digest *d = &out->digests[out->digest_count];
        memset(d, 0, sizeof *d);
        uint64_t order = get_varint(r);
        d->mask = get_u8(r);
        if (r->bad || order > UINT32_MAX || d->mask == 0 || d->mask >> ONA__DIGEST_KINDS ||
            (i > 0 && order <= out->digests[out->digest_count - 1].order))
            return -1;
        d->order = (uint32_t)order;
        for (int k = 0; k < ONA__DIGEST_KINDS; k++)
            if (d->mask & (1u << k)) {
                uint64_t count = get_varint(r);
                if (count > UINT32_MAX)
                    return -1;
                d->count[k] = (uint32_t)count;
                d->hash[k] = get_u32(r);
            }
        if (r->bad)
            return -1;
        out->digest_count++;
    }
    out->frame_count++;
    return 0;
}

int ona__recording_parse(const uint8_t *bytes, size_t size, ona__recording *out, char *err,
                         size_t errsize) {
    memset(out, 0, sizeof *out);
    if (size < 12 || memcmp(bytes, ONA__RECORD_MAGIC, 8) != 0)
        return fail(err, errsize, "not an Ona recording (no ONAREC header)");
    reader file = {bytes + 8, bytes + size, false};
    out->version = get_u32(&file);
    if (out->version != ONA__RECORD_VERSION)
        return fail(err, errsize, "recording format version %u; this runtime reads version %d",
                    out->version, ONA__RECORD_VERSION);
    bool header = false;
    while (file.p < file.end) {
        size_t at = (size_t)(file.p - bytes);
        if (file.end - file.p < 9 ||
            (uint64_t)(file.end - file.p) < 9 + (uint64_t)(file.p[1] | file.p[2] << 8 |
                                                           file.p[3] << 16 |
                                                           (uint32_t)file.p[4] << 24)) {
            out->truncated = true; /* a chunk cut short: what a crash leaves */
            break;
        }
        char tag = (char)get_u8(&file);
        uint32_t len = get_u32(&file);
        const uint8_t *payload = file.p;
        file.p += len;
        uint32_t crc = get_u32(&file);
        if (crc != ona__crc32(0, bytes + at, 5 + (size_t)len))
            return fail(err, errsize, "corrupt chunk at byte %zu (its checksum does not match)",
                        at);
        if (out->ended)
            return fail(err, errsize, "a chunk after the end chunk, at byte %zu", at);
        if (!header && tag != 'H')
            return fail(err, errsize, "the first chunk is not the header");
        reader r = {payload, payload + len, false};
        int rc = 0;
        switch (tag) {
        case 'H':
            if (header)
                return fail(err, errsize, "a second header at byte %zu", at);
            header = true;
            rc = parse_header(&r, out);
            break;
        case 'S': {
            if (!grow((void **)&out->systems, &out->system_cap, out->system_count,
                      sizeof *out->systems))
                return ONA_ENOMEM;
            ona__rec_system *s = &out->systems[out->system_count];
            uint64_t order = get_varint(&r);
            get_str(&r, s->name, sizeof s->name);
            s->order = (uint32_t)order;
            rc = order > UINT32_MAX ? -1 : 0;
            if (rc == 0 && !r.bad)
                out->system_count++;
            break;
        }
        case 'F':
            rc = parse_frame(&r, out, err, errsize);
            break;
        case 'E': {
            uint64_t frames = get_varint(&r);
            rc = !r.bad && frames == out->frame_count ? 0 : -1;
            out->ended = true;
            break;
        }
        default:
            return fail(err, errsize, "unknown chunk '%c' (0x%02x) at byte %zu",
                        tag >= 32 && tag < 127 ? tag : '?', (unsigned)(uint8_t)tag, at);
        }
        if (rc > 0 || rc == ONA_ENOMEM)
            return ONA_ENOMEM;
        if (rc == ONA_EFORMAT)
            return rc;
        if (rc || r.bad || r.p != r.end)
            return fail(err, errsize, "malformed '%c' chunk at byte %zu", tag, at);
    }
    if (!header)
        return fail(err, errsize, "the recording has no header%s",
                    out->truncated ? " (the file was cut short)" : "");
    return 0;
}

void ona__recording_free(ona__recording *r) {
    ona__free(r->frames);
    ona__free(r->events);
    ona__free(r->digests);
    ona__free(r->systems);
    memset(r, 0, sizeof *r);
}

int ona__recording_load(const char *path, ona__recording *out, char *err, size_t errsize) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, errsize, "cannot open %s: %s", path, strerror(e));
        return e == ENOENT ? ONA_ENOENT : ONA_EIO;
    }
    uint8_t *bytes = NULL;
    size_t size = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (size == cap) {
            size_t n = cap ? cap * 2 : 65536;
            uint8_t *grown = n > cap ? ona__realloc(bytes, n) : NULL;
            if (!grown) {
                rc = ONA_ENOMEM;
                snprintf(err, errsize, "%s: out of memory reading it", path);
                break;
            }
            bytes = grown;
            cap = n;
        }
        size_t got = fread(bytes + size, 1, cap - size, f);
        size += got;
        if (got == 0) {
            if (ferror(f)) {
                rc = ONA_EIO;
                snprintf(err, errsize, "cannot read %s", path);
            }
            break;
        }
    }
    fclose(f);
    if (rc == 0) {
        char why[256];
        rc = ona__recording_parse(bytes, size, out, why, sizeof why);
        if (rc)
            snprintf(err, errsize, "%s: %s", path, rc == ONA_ENOMEM ? "out of memory" : why);
    }
    ona__free(bytes);
    return rc;
}

const char *ona__recording_system_name(const ona__recording *r, uint32_t order) {
    for (uint32_t i = r->system_count; i-- > 0;)
        if (r->systems[i].order == order)
            return r->systems[i].name;
    return NULL;
}
