/*
 * record_read.c: reading a recording back (record.h), from untrusted bytes: the fuzzing entry
 * point. The format is record_format.c's.
 *
 * The CRC of a chunk is checked before its payload is parsed, so a flipped byte reads as
 * "corrupt" rather than as a strange frame. A chunk whose length runs past the end of the file
 * is what a crash leaves: the reader keeps every chunk before it and marks the recording
 * truncated. Every count is checked against the bytes left, so an array never grows past what
 * the input could describe.
 */
#include "record_reader.h"

#include "save.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>

/* --- Reading --------------------------------------------------------------------------------- */

static int fail(char *err, size_t errsize, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
    return ONA_EFORMAT;
}

bool ona__rec_grow(void **items, uint32_t *cap, uint32_t count, size_t item) {
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

static bool get_event(ona__rec_reader *r, ona_event *e) {
    memset(e, 0, sizeof *e);
    uint8_t type = ona__rec_get_u8(r);
    if (type == ONA_EVENT_NONE || type > ONA_EVENT_GAMEPAD_AXIS)
        return false;
    e->type = (ona_event_type)type;
    switch (e->type) {
    case ONA_EVENT_KEY_DOWN:
    case ONA_EVENT_KEY_UP: {
        ona__rec_get_str(r, e->as.key.name, sizeof e->as.key.name);
        uint64_t sc = ona__rec_get_varint(r);
        e->as.key.scancode = sc < 4096 ? (int)sc : 0;
        uint8_t repeat = ona__rec_get_u8(r);
        e->as.key.repeat = repeat != 0;
        return sc < 4096 && repeat <= 1;
    }
    case ONA_EVENT_TEXT:
        ona__rec_get_str(r, e->as.text.text, sizeof e->as.text.text);
        return true;
    case ONA_EVENT_MOUSE_MOVE:
    case ONA_EVENT_MOUSE_DOWN:
    case ONA_EVENT_MOUSE_UP:
        e->as.mouse.x = ona__rec_get_f32(r);
        e->as.mouse.y = ona__rec_get_f32(r);
        e->as.mouse.dx = ona__rec_get_f32(r);
        e->as.mouse.dy = ona__rec_get_f32(r);
        e->as.mouse.button = ona__rec_get_u8(r);
        return true;
    case ONA_EVENT_MOUSE_WHEEL:
        e->as.wheel.dx = ona__rec_get_f32(r);
        e->as.wheel.dy = ona__rec_get_f32(r);
        return true;
    case ONA_EVENT_WINDOW_RESIZED: {
        uint64_t w = ona__rec_get_varint(r), h = ona__rec_get_varint(r);
        e->as.window.width = (int)(w & 0xffff);
        e->as.window.height = (int)(h & 0xffff);
        return w > 0 && w <= 65535 && h > 0 && h <= 65535;
    }
    case ONA_EVENT_GAMEPAD_ADDED:
    case ONA_EVENT_GAMEPAD_REMOVED:
    case ONA_EVENT_GAMEPAD_BUTTON_DOWN:
    case ONA_EVENT_GAMEPAD_BUTTON_UP:
    case ONA_EVENT_GAMEPAD_AXIS:
        e->as.gamepad.index = ona__rec_get_u8(r);
        ona__rec_get_str(r, e->as.gamepad.name, sizeof e->as.gamepad.name);
        e->as.gamepad.value = ona__rec_get_f32(r);
        return true;
    default:
        return true;
    }
}

static int parse_header(ona__rec_reader *r, ona__recording *out) {
    ona__rec_get_str(r, out->runtime_version, sizeof out->runtime_version);
    ona__rec_get_str(r, out->game, sizeof out->game);
    out->delivery = ona__rec_get_u8(r);
    uint64_t threads = ona__rec_get_varint(r), n = ona__rec_get_varint(r);
    if (r->bad || out->delivery > ONA_DELIVERY_IMMEDIATE || threads > 1024 ||
        n > (uint64_t)(r->end - r->p))
        return -1;
    out->threads = (uint32_t)threads;
    size_t used = 0;
    for (uint64_t i = 0; i < n; i++) {
        char arg[4096];
        ona__rec_get_str(r, arg, sizeof arg);
        size_t len = strlen(arg);
        if (r->bad || used + len + 1 > sizeof out->args || !strchr(arg, '='))
            return -1;
        memcpy(out->args + used, arg, len + 1);
        used += len + 1;
        out->arg_count++;
    }
    if (out->version >= 2) {
        uint64_t seed = ona__rec_get_varint(r), w = ona__rec_get_varint(r),
                 h = ona__rec_get_varint(r);
        if (r->bad || seed >= (1ull << 53) || w > 65535 || h > 65535)
            return -1;
        out->seed = seed;
        out->width = (uint32_t)w;
        out->height = (uint32_t)h;
    }
    return 0;
}

/* A 'G' (frame 0) or 'R' chunk's path, size and digest. */
static int parse_file(ona__rec_reader *r, ona__recording *out, uint64_t frame) {
    char path[ONA__RECORD_PATH_BYTES];
    ona__rec_get_str(r, path, sizeof path);
    uint64_t size = ona__rec_get_varint(r);
    uint64_t lo = ona__rec_get_u32(r), hi = ona__rec_get_u32(r);
    if (r->bad || !path[0])
        return -1;
    size_t len = strlen(path) + 1;
    if (out->names_size + len > out->names_cap) {
        size_t cap = out->names_cap ? out->names_cap : 1024;
        while (cap < out->names_size + len)
            cap *= 2;
        if (cap > UINT32_MAX)
            return -1;
        char *grown = ona__realloc(out->names, cap);
        if (!grown)
            return ONA_ENOMEM;
        out->names = grown;
        out->names_cap = (uint32_t)cap;
    }
    if (!ona__rec_grow((void **)&out->files, &out->file_cap, out->file_count, sizeof *out->files))
        return ONA_ENOMEM;
    memcpy(out->names + out->names_size, path, len);
    out->files[out->file_count++] = (ona__rec_file){
        .name = out->names_size, .frame = frame, .size = size, .digest = lo | hi << 32};
    out->names_size += (uint32_t)len;
    return 0;
}

/* Appends `n` bytes to the recording's `contents` at *offset: 0, -1 past 4 GiB, ONA_ENOMEM. */
static int keep(ona__recording *out, const uint8_t *bytes, size_t n, uint32_t *offset) {
    if ((uint64_t)out->contents_size + n > UINT32_MAX)
        return -1;
    if (!out->contents || out->contents_size + n > out->contents_cap) { /* never NULL after */
        size_t cap = out->contents_cap ? out->contents_cap : 1024;
        while (cap < out->contents_size + n)
            cap *= 2;
        uint8_t *grown = cap <= UINT32_MAX ? ona__realloc(out->contents, cap) : NULL;
        if (!grown)
            return ONA_ENOMEM;
        out->contents = grown;
        out->contents_cap = (uint32_t)cap;
    }
    if (n)
        memcpy(out->contents + out->contents_size, bytes, n);
    *offset = out->contents_size;
    out->contents_size += (uint32_t)n;
    return 0;
}

/* A 'C' chunk: the content of the reload just before it (the last file read, an 'R' of the same
 * frame and path without content yet). */
static int parse_content(ona__rec_reader *r, ona__recording *out) {
    uint64_t frame = ona__rec_get_varint(r);
    char path[ONA__RECORD_PATH_BYTES];
    ona__rec_get_str(r, path, sizeof path);
    if (r->bad || !out->file_count)
        return -1;
    ona__rec_file *f = &out->files[out->file_count - 1];
    if (f->frame == 0 || f->frame != frame || f->has_content ||
        strcmp(out->names + f->name, path) != 0)
        return -1;
    size_t n = (size_t)(r->end - r->p);
    int rc = keep(out, r->p, n, &f->content);
    if (rc)
        return rc;
    r->p = r->end;
    f->has_content = true;
    f->content_size = (uint32_t)n;
    return 0;
}

/* An 'L' chunk: a save loaded, and what the load returned. */
static int parse_load(ona__rec_reader *r, ona__recording *out) {
    ona__rec_load l = {0};
    l.frame = ona__rec_get_varint(r);
    uint64_t loader = ona__rec_get_varint(r);
    ona__rec_get_str(r, l.name, ONA__SAVE_MAX_NAME + 1);
    uint64_t code = ona__rec_get_varint(r);
    if (r->bad || loader > UINT32_MAX || code > 1000 || ona__save_check_name(l.name, NULL, 0))
        return -1;
    l.loader = (uint32_t)loader;
    l.rc = -(int)code;
    int rc;
    if (l.rc == 0) {
        uint8_t kept = ona__rec_get_u8(r);
        if (r->bad || kept > 1)
            return -1;
        l.kept = kept == 1;
        size_t n = (size_t)(r->end - r->p);
        uint32_t values = 0;
        if (l.kept ? ona_message_validate(r->p, n, &values) != 0 || values != 1 : n != 0)
            return -1;
        rc = keep(out, r->p, n, &l.offset);
        l.size = (uint32_t)n;
        r->p = r->end;
    } else {
        char text[ONA__RECORD_ERROR_BYTES];
        ona__rec_get_str(r, text, sizeof text);
        if (r->bad)
            return -1;
        l.size = (uint32_t)strlen(text);
        rc = keep(out, (const uint8_t *)text, l.size, &l.offset);
    }
    if (rc)
        return rc;
    if (!ona__rec_grow((void **)&out->loads, &out->load_cap, out->load_count, sizeof *out->loads))
        return ONA_ENOMEM;
    out->loads[out->load_count++] = l;
    if (l.rc == 0 && !l.kept)
        out->left_out++;
    return 0;
}

static int parse_frame(ona__rec_reader *r, ona__recording *out, char *err, size_t errsize) {
    if (!ona__rec_grow((void **)&out->frames, &out->frame_cap, out->frame_count,
                       sizeof *out->frames))
        return ONA_ENOMEM;
    ona__rec_frame *f = &out->frames[out->frame_count];
    memset(f, 0, sizeof *f);
    f->first_interrupted = out->interrupted_count;
    f->frame = ona__rec_get_varint(r);
    f->dt = ona__rec_get_f64(r);
    uint64_t events = ona__rec_get_varint(r);
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
        if (!ona__rec_grow((void **)&out->events, &out->event_cap, out->event_count,
                           sizeof *out->events))
            return ONA_ENOMEM;
        if (!get_event(r, &out->events[out->event_count]) || r->bad)
            return -1;
        out->event_count++;
    }
    uint64_t digests = ona__rec_get_varint(r);
    if (r->bad || digests > (uint64_t)(r->end - r->p))
        return -1;
    f->first_digest = out->digest_count;
    f->digest_count = (uint32_t)digests;
    for (uint64_t i = 0; i < digests; i++) {
        if (!ona__rec_grow((void **)&out->digests, &out->digest_cap, out->digest_count,
                           sizeof *out->digests))
            return ONA_ENOMEM;
        ona__rec_digest *d = &out->digests[out->digest_count];
        memset(d, 0, sizeof *d);
        uint64_t order = ona__rec_get_varint(r);
        d->mask = ona__rec_get_u8(r);
        if (r->bad || order > UINT32_MAX || d->mask == 0 || d->mask >> ONA__DIGEST_KINDS ||
            (i > 0 && order <= out->digests[out->digest_count - 1].order))
            return -1;
        d->order = (uint32_t)order;
        for (int k = 0; k < ONA__DIGEST_KINDS; k++)
            if (d->mask & (1u << k)) {
                uint64_t count = ona__rec_get_varint(r);
                if (count > UINT32_MAX)
                    return -1;
                d->count[k] = (uint32_t)count;
                d->hash[k] = ona__rec_get_u32(r);
                if (k != ONA__DIGEST_RECEIVED || out->version < 2)
                    continue;
                d->detail_count = (uint32_t)ONA_MIN(count, ONA__DETAIL_MESSAGES);
                for (uint32_t m = 0; m < d->detail_count; m++) {
                    uint64_t from = ona__rec_get_varint(r);
                    d->detail_from[m] = from <= UINT32_MAX ? (uint32_t)from : 0;
                    d->detail_hash[m] = ona__rec_get_u32(r);
                    if (from > UINT32_MAX)
                        return -1;
                }
            }
        if (r->bad)
            return -1;
        out->digest_count++;
    }
    if (out->version >= 2) {
        uint64_t n = ona__rec_get_varint(r), last = 0;
        if (r->bad || n > (uint64_t)(r->end - r->p))
            return -1;
        f->first_interrupted = out->interrupted_count;
        f->interrupted_count = (uint32_t)n;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t order = ona__rec_get_varint(r);
            if (r->bad || order > UINT32_MAX || (i > 0 && order <= last))
                return -1;
            if (!ona__rec_grow((void **)&out->interrupted, &out->interrupted_cap,
                               out->interrupted_count, sizeof *out->interrupted))
                return ONA_ENOMEM;
            out->interrupted[out->interrupted_count++] = (uint32_t)order;
            last = order;
        }
    }
    out->frame_count++;
    return 0;
}

int ona__recording_parse(const uint8_t *bytes, size_t size, ona__recording *out, char *err,
                         size_t errsize) {
    memset(out, 0, sizeof *out);
    if (size < 12 || memcmp(bytes, ONA__RECORD_MAGIC, 8) != 0)
        return fail(err, errsize, "not an Ona recording (no ONAREC header)");
    ona__rec_reader file = {bytes + 8, bytes + size, false};
    out->version = ona__rec_get_u32(&file);
    if (out->version < 1 || out->version > ONA__RECORD_VERSION)
        return fail(err, errsize,
                    "recording format version %u; this runtime reads versions 1 to %d",
                    out->version, ONA__RECORD_VERSION);
    bool header = false;
    while (file.p < file.end) {
        size_t at = (size_t)(file.p - bytes);
        if (file.end - file.p < 9 ||
            (uint64_t)(file.end - file.p) <
                9 + (uint64_t)(file.p[1] | file.p[2] << 8 | file.p[3] << 16 |
                               (uint32_t)file.p[4] << 24)) {
            out->truncated = true; /* a chunk cut short: what a crash leaves */
            break;
        }
        char tag = (char)ona__rec_get_u8(&file);
        uint32_t len = ona__rec_get_u32(&file);
        const uint8_t *payload = file.p;
        file.p += len;
        uint32_t crc = ona__rec_get_u32(&file);
        if (crc != ona__crc32(0, bytes + at, 5 + (size_t)len))
            return fail(err, errsize, "corrupt chunk at byte %zu (its checksum does not match)",
                        at);
        if (out->ended)
            return fail(err, errsize, "a chunk after the end chunk, at byte %zu", at);
        if (!header && tag != 'H')
            return fail(err, errsize, "the first chunk is not the header");
        ona__rec_reader r = {payload, payload + len, false};
        int rc = 0;
        switch (tag) {
        case 'H':
            if (header)
                return fail(err, errsize, "a second header at byte %zu", at);
            header = true;
            rc = parse_header(&r, out);
            break;
        case 'S': {
            if (!ona__rec_grow((void **)&out->systems, &out->system_cap, out->system_count,
                               sizeof *out->systems))
                return ONA_ENOMEM;
            ona__rec_system *s = &out->systems[out->system_count];
            uint64_t order = ona__rec_get_varint(&r);
            ona__rec_get_str(&r, s->name, sizeof s->name);
            s->order = (uint32_t)order;
            rc = order > UINT32_MAX ? -1 : 0;
            if (rc == 0 && !r.bad)
                out->system_count++;
            break;
        }
        case 'F':
            rc = parse_frame(&r, out, err, errsize);
            break;
        case 'M':
            if (out->version < 2)
                return fail(err, errsize, "a 'M' chunk in a version 1 recording, at byte %zu", at);
            rc = ona__rec_parse_send(&r, out);
            break;
        case 'G':
        case 'R': {
            if (out->version < 2)
                return fail(err, errsize, "a '%c' chunk in a version 1 recording, at byte %zu", tag,
                            at);
            uint64_t frame = tag == 'R' ? ona__rec_get_varint(&r) : 0;
            rc = r.bad || (tag == 'R' && frame == 0) ? -1 : parse_file(&r, out, frame);
            break;
        }
        case 'C':
        case 'L':
            if (out->version < 3)
                return fail(err, errsize, "a '%c' chunk in a version %u recording, at byte %zu",
                            tag, out->version, at);
            rc = tag == 'C' ? parse_content(&r, out) : parse_load(&r, out);
            break;
        case 'A': {
            if (out->version < 3)
                return fail(err, errsize, "an 'A' chunk in a version %u recording, at byte %zu",
                            out->version, at);
            if (!ona__rec_grow((void **)&out->steps, &out->steps_cap, out->steps_count,
                               sizeof *out->steps))
                return ONA_ENOMEM;
            ona__rec_steps *st = &out->steps[out->steps_count];
            st->frame = ona__rec_get_varint(&r);
            uint64_t count = ona__rec_get_varint(&r);
            st->alpha = ona__rec_get_f64(&r);
            st->count = (uint32_t)ONA_MIN(count, 1001);
            uint64_t after = out->steps_count ? out->steps[out->steps_count - 1].frame : 0;
            rc = r.bad || st->frame <= after || count == 0 || count > 1000 ||
                         !(st->alpha >= 0 && st->alpha < 1)
                     ? -1
                     : 0;
            out->steps_count += rc == 0;
            break;
        }
        case 'E': {
            uint64_t frames = ona__rec_get_varint(&r);
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
    ona__free(r->interrupted);
    ona__free(r->sends);
    ona__free(r->steps);
    ona__free(r->send_bytes);
    ona__free(r->files);
    ona__free(r->names);
    ona__free(r->loads);
    ona__free(r->contents);
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
