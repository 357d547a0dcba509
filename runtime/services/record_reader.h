/*
 * record_reader.h: the bounded reader over a recording's untrusted bytes, which record_read.c
 * (the file) and record_send.c (a C send's values) share. Internal to the services.
 *
 * Each read checks the bytes left, so none goes past `end`: a short or malformed value sets `bad`
 * and reads as 0 (an empty string), and the callers check `bad` after a run of reads.
 */
#ifndef ONA_RECORD_READER_H
#define ONA_RECORD_READER_H

#include "record.h"

#include <string.h>

typedef struct ona__rec_reader {
    const uint8_t *p, *end;
    bool bad;
} ona__rec_reader;

static inline uint8_t ona__rec_get_u8(ona__rec_reader *r) {
    if (r->p >= r->end) {
        r->bad = true;
        return 0;
    }
    return *r->p++;
}

static inline uint32_t ona__rec_get_u32(ona__rec_reader *r) {
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

static inline uint64_t ona__rec_get_varint(ona__rec_reader *r) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t c = ona__rec_get_u8(r);
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
static inline void ona__rec_get_str(ona__rec_reader *r, char *out, size_t size) {
    uint64_t n = ona__rec_get_varint(r);
    if (r->bad || n >= size || n > (uint64_t)(r->end - r->p) || memchr(r->p, 0, (size_t)n)) {
        r->bad = true;
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p, (size_t)n);
    out[n] = '\0';
    r->p += n;
}

static inline float ona__rec_get_f32(ona__rec_reader *r) {
    uint32_t bits = ona__rec_get_u32(r);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline double ona__rec_get_f64(ona__rec_reader *r) {
    uint64_t lo = ona__rec_get_u32(r), hi = ona__rec_get_u32(r);
    uint64_t bits = lo | hi << 32;
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* record_send.c. Checks a send chunk's values and keeps their bytes in `out` (the recording's
 * sends): 0, -1 for a malformed chunk, ONA_ENOMEM. */
int ona__rec_parse_send(ona__rec_reader *r, ona__recording *out);

#endif
