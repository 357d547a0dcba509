/*
 * text_layout.c: UTF-8 decoding and text layout: the lines of a text, their width and height
 * (ona__text_measure), and the sprites that draw them from the glyph atlas (ona__text_print).
 * Fonts and the glyph cache it reads are text.c's (text_internal.h).
 *
 * Design note.
 * - No lock and no state of its own: a print or a measure works on its own stack (the emitter
 *   batches up to 256 sprites per texture run), so any number of threads lay out at once. Glyphs
 *   come from text.c's cache; a print makes the missing ones (so it runs only inside a turn),
 *   a measure never touches the atlas and runs anywhere. A sprite is pushed only for a glyph
 *   whose page is READY (acquire, pairing with text.c's release).
 * - UTF-8 is decoded WHATWG-style: one U+FFFD per maximal invalid part, never a read past
 *   `length`.
 * - Layout: lines end at '\n' and, with wrap and a width, at the last space that fits (a word
 *   longer than the box breaks between characters); pen positions are snapped to whole pixels of
 *   the font before scaling; kerning comes from the font's kern table (FreeType's
 *   FT_Get_Kerning; GPOS is not read). Pairs met are remembered per font in `kerns` (see
 *   ona__font), a plain word each, relaxed.
 * - The built-in debug font (no font file) lays out in fixed cells of the size, from the
 *   renderer's debug font texture.
 */
#include "text_internal.h"

#include "common.h"

#include <math.h>

enum { REPLACEMENT = 0xFFFD };

/* --- UTF-8 ---------------------------------------------------------------------------------- */

uint32_t ona__utf8_next(const char *text, size_t length, size_t *i) {
    const unsigned char *s = (const unsigned char *)text;
    unsigned char c = s[*i];
    (*i)++;
    if (c < 0x80)
        return c;
    int need;
    uint32_t cp;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's valid range */
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        cp = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        cp = c & 0x07;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        return REPLACEMENT; /* a continuation byte, C0, C1 or F5..FF */
    }
    for (int k = 0; k < need; k++) {
        if (*i >= length)
            return REPLACEMENT;
        unsigned char b = s[*i];
        if (b < (k == 0 ? lo : 0x80) || b > (k == 0 ? hi : 0xBF))
            return REPLACEMENT; /* the invalid byte starts the next sequence */
        cp = (cp << 6) | (b & 0x3F);
        (*i)++;
    }
    return cp;
}

/* --- Layout ----------------------------------------------------------------------------------*/

/* The kerning between two glyphs in pixels, remembered in `kerns` (each lookup otherwise takes
 * the file's lock and searches its kern table). */
static float kern(ona__font *ft, int prev, int index) {
    if (prev < 0 || index < 0 || !ft->file->kerning)
        return 0;
    uint32_t pair = ((uint32_t)prev << 16 | ((uint32_t)index & 0xFFFFu)) + 1;
    _Atomic uint64_t *slot = &ft->kerns[(pair * 2654435761u) >> 20 & (KERN_SIZE - 1)];
    /* relaxed: the entry is self-contained (see ona__font.kerns). */
    uint64_t entry = atomic_load_explicit(slot, memory_order_relaxed);
    int32_t units;
    if ((uint32_t)(entry >> 32) == pair && prev < 0x10000 && index < 0x10000) {
        units = (int32_t)(uint32_t)entry;
    } else {
        units = ona__text_kern_units(ft->file, prev, index);
        atomic_store_explicit(slot, (uint64_t)pair << 32 | (uint32_t)units, memory_order_relaxed);
    }
    return (float)units * ft->px;
}

const char *ona__text_check_desc(const ona_text_desc *d) {
    if (!d)
        return NULL;
    if (d->align != ONA_ALIGN_LEFT && d->align != ONA_ALIGN_CENTER && d->align != ONA_ALIGN_RIGHT)
        return "align must be left, center or right";
    if (!isfinite(d->width) || d->width < 0 || d->width > 1e7f)
        return "width must be a number from 0 to 1e7";
    if (!isfinite(d->scale) || d->scale < 0 || d->scale > 1000)
        return "scale must be a number from 0 (meaning 1) to 1000";
    return NULL;
}

/* One laid-out line: bytes [start, end) drawn, then `next` starts the following line. */
typedef struct line {
    size_t start, end, next;
    float width; /* pixels at scale 1, pen positions snapped */
} line;

/* Finds the line starting at `start`. `limit`: the box's width in font pixels, 0 for none. */
static line next_line(ona__font *ft, const char *text, size_t length, size_t start, float limit,
                      bool make) {
    line ln = {.start = start, .end = length, .next = length};
    float pen = 0;
    int prev = -1;
    bool any = false;
    size_t space = SIZE_MAX; /* the last space's byte offset in this line */
    float space_width = 0;   /* the line's width before it */
    for (size_t i = start; i < length;) {
        size_t at = i;
        uint32_t cp = ona__utf8_next(text, length, &i);
        if (cp == '\n') {
            ln.end = at;
            ln.next = i;
            ln.width = pen;
            return ln;
        }
        ona__text_metrics m = ona__text_measure_cp(ft, cp, make);
        float x = pen + (ft->file ? kern(ft, prev, m.index) : 0);
        float after = roundf(x) + m.advance;
        if (limit > 0 && any && after > limit + 0.01f && cp != ' ') {
            if (space != SIZE_MAX) {
                ln.end = space;
                ln.next = space + 1;
                ln.width = space_width;
            } else {
                ln.end = at;
                ln.next = at;
                ln.width = pen;
            }
            return ln;
        }
        if (cp == ' ') {
            space = at;
            space_width = pen;
        }
        pen = after;
        prev = m.index;
        any = true;
    }
    ln.width = pen;
    return ln;
}

typedef struct emitter {
    ona__text_emit emit;
    void *user;
    uint32_t texture;
    uint32_t count;
    int rc;
    ona_sprite sprites[256];
} emitter;

static void flush(emitter *e) {
    if (e->count && e->rc == 0)
        e->rc = e->emit(e->user, e->texture, e->sprites, e->count);
    e->count = 0;
}

static void push(emitter *e, uint32_t texture, const ona_sprite *s) {
    if (e->count && (texture != e->texture || e->count == ONA_ARRAY_COUNT(e->sprites)))
        flush(e);
    e->texture = texture;
    e->sprites[e->count++] = *s;
}

/* Walks the lines of `text`; with `e`, draws them (making glyphs), else only measures. */
static int layout(ona__fonts *f, ona__font *ft, const char *text, size_t length, float x, float y,
                  const ona_text_desc *desc, emitter *e, float *width, float *height) {
    ona_text_desc d = desc ? *desc : (ona_text_desc){0};
    float scale = d.scale > 0 ? d.scale : 1;
    float limit = d.wrap && d.width > 0 ? d.width / scale : 0;
    uint32_t tint = d.tint ? d.tint : 0xFFFFFFFFu;
    float widest = 0;
    uint32_t lines = 0;
    size_t start = 0;
    bool make = e != NULL;
    uint32_t debug_font = f->textures->font.id;
    while (start < length) {
        line ln = next_line(ft, text, length, start, limit, make);
        lines++;
        widest = ONA_MAX(widest, ln.width);
        if (e) {
            float w = ln.width * scale;
            float left = x;
            if (d.align == ONA_ALIGN_CENTER)
                left = d.width > 0 ? x + (d.width - w) / 2 : x - w / 2;
            else if (d.align == ONA_ALIGN_RIGHT)
                left = d.width > 0 ? x + d.width - w : x - w;
            left = roundf(left);
            float top = y + (float)(lines - 1) * ft->line_height * scale;
            float pen = 0;
            int prev = -1;
            for (size_t i = ln.start; i < ln.end;) {
                uint32_t cp = ona__utf8_next(text, ln.end, &i);
                ona__text_metrics m = ona__text_measure_cp(ft, cp, true);
                ona_sprite s = {.tint = tint};
                if (!ft->file) {
                    if (cp != ' ') {
                        s.x = left + pen * scale;
                        s.y = top;
                        s.scale_x = s.scale_y = scale * ft->px;
                        ona__font_glyph(cp < 128 ? (unsigned char)cp : '?', &s.src_x, &s.src_y);
                        s.src_w = s.src_h = ONA__FONT_GLYPH;
                        push(e, debug_font, &s);
                    }
                    pen += m.advance;
                    continue;
                }
                float at = roundf(pen + kern(ft, prev, m.index));
                glyph *g = m.g;
                ona__text_spot spot;
                if (g && g->w && ona__text_place(f, ft, g, &spot)) {
                    s.x = left + (at + g->x0) * scale;
                    s.y = top + (ft->ascent + g->y0) * scale;
                    s.scale_x = s.scale_y = scale;
                    s.src_x = spot.x;
                    s.src_y = spot.y;
                    s.src_w = g->w;
                    s.src_h = g->h;
                    push(e, spot.texture, &s);
                }
                pen = at + m.advance;
                prev = m.index;
            }
        }
        bool newline = ln.next > ln.end && text[ln.end] == '\n';
        start = ln.next;
        if (start >= length && newline)
            lines++; /* the text ends with '\n': an empty last line */
    }
    if (e)
        flush(e);
    if (width)
        *width = widest * scale;
    if (height)
        *height = (float)lines * ft->line_height * scale;
    return e ? e->rc : 0;
}

int ona__text_print(ona__fonts *f, ona_font font, const char *text, size_t length, float x, float y,
                    const ona_text_desc *desc, ona__text_emit emit, void *user) {
    ona__font *ft = ona__text_font_of(f, font);
    if (!ft)
        return ONA_ESTALE;
    if (!emit || (!text && length) || ona__text_check_desc(desc) || !isfinite(x) || !isfinite(y))
        return ONA_EINVAL;
    emitter e = {.emit = emit, .user = user};
    return layout(f, ft, text, length, x, y, desc, &e, NULL, NULL);
}

int ona__text_measure(ona__fonts *f, ona_font font, const char *text, size_t length,
                      const ona_text_desc *desc, float *width, float *height) {
    if (!f)
        return ONA_ESTALE;
    ona__text_enter(f);
    ona__font *ft = ona__text_font_of(f, font);
    int rc = !ft ? ONA_ESTALE
             : (!text && length) || ona__text_check_desc(desc)
                 ? ONA_EINVAL
                 : layout(f, ft, text, length, 0, 0, desc, NULL, width, height);
    ona__text_leave(f);
    return rc;
}
