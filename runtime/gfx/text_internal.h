/*
 * text_internal.h: what the text module's files share, and nothing else sees: the font, glyph
 * and atlas page types, the font registry, and the few calls layout makes into the fonts and
 * their glyph cache. text.c owns files, fonts and the cache (and says how its atomics pair);
 * text_layout.c decodes UTF-8 and lays out, prints and measures; text_retire.c frees the fonts
 * a reload replaced. The rest of the runtime knows the module through text.h.
 */
#ifndef ONA_GFX_TEXT_INTERNAL_H
#define ONA_GFX_TEXT_INTERNAL_H

#include "text.h"

#include <limits.h>
#include <stb_truetype.h>

enum {
    MAX_FILES = 64,
    MAX_PAGES = 8,
    TABLE_SIZE = 4096, /* glyph slots per font (a power of two) */
    KERN_SIZE = 4096,  /* kerning pairs remembered per font (a power of two) */
};

typedef struct font_file {
    char *path;
    uint8_t *data;
    stbtt_fontinfo info;
} font_file;

typedef struct glyph {
    _Atomic uint32_t key;   /* code point + 1; 0: empty */
    _Atomic uint32_t ready; /* 1 once the fields below are written */
    int index;              /* the glyph's index in the font (0: the missing-glyph box) */
    float advance;          /* pixels */
    int16_t x0, y0;         /* the bitmap's top-left from the pen on the baseline, pixels */
    uint16_t w, h;          /* the bitmap's size; 0: nothing to draw */
    uint16_t page, cx, cy;  /* the bitmap's top-left texel in its page */
} glyph;

typedef struct page {
    _Atomic uint32_t state; /* PAGE_* */
    ona_texture texture;
    uint8_t *alpha; /* side * side coverage bytes */
} page;

enum { PAGE_NONE = 0, PAGE_MAKING, PAGE_READY, PAGE_FAILED };

typedef struct ona__font {
    ona_font handle;
    font_file *file; /* NULL: the built-in debug font */
    int size;
    float px; /* stb_truetype's scale: pixels per font unit */
    float ascent, line_height;
    int cell_w, cell_h, cols, rows, side;
    uint32_t cells;               /* per page */
    _Atomic uint32_t next_cell;   /* cells claimed so far (may pass the end: full) */
    _Atomic uint32_t glyph_count; /* slots claimed */
    _Atomic bool full_logged;
    page pages[MAX_PAGES];
    glyph table[TABLE_SIZE];
    /* Kerning pairs met so far, direct-mapped: (pair + 1) << 32 | the kern in font units. Each
     * entry is one self-contained word, a pure function of its pair, so any thread may write it
     * and a reader either sees the whole pair or recomputes: no ordering needed. */
    _Atomic uint64_t kerns[KERN_SIZE];
} ona__font;

struct ona__fonts {
    ona__textures *textures;
    uv_mutex_t lock; /* guards loading: files, font_count */
    font_file *files[MAX_FILES];
    uint32_t file_count;
    _Atomic(ona__font *) fonts[ONA__MAX_FONTS];
    uint32_t font_count;
    char default_path[PATH_MAX]; /* found once, under the lock; "" before */
    /* Fonts and files a reload replaced, kept until the registry goes (a thread may still read
     * them); under the lock. */
    ona__font **retired_fonts;
    uint32_t retired_fonts_count, retired_fonts_capacity;
    font_file **retired_files;
    uint32_t retired_files_count, retired_files_capacity;
    /* Measures reading a font now (ona__text_enter/leave): they may run on any thread at any
     * time, so a replaced font is freed only while none runs (ona__fonts_collect). */
    _Atomic uint32_t measuring;
};

/* What layout needs of one character. */
typedef struct ona__text_metrics {
    float advance;  /* pixels at scale 1 */
    int index;      /* glyph index, for kerning; -1 without a font file */
    const glyph *g; /* NULL: measured without the cache */
} ona__text_metrics;

/* Frees a font (its atlas pages' buffers, not their textures) and a file. Lock held, or main. */
void ona__text_free_font(ona__font *ft);
void ona__text_free_file(font_file *file);

/* Around a read of fonts outside a turn (a measure): the replaced fonts stay allocated until
 * every such read that began before the replacement has left. */
void ona__text_enter(ona__fonts *f);
void ona__text_leave(ona__fonts *f);

/* The font of a handle; NULL for 0, out of range or not made. Any thread. */
ona__font *ona__text_font_of(ona__fonts *f, ona_font font);

/* The advance and glyph of `cp`: from the cache, made there first when `make` (call it only
 * inside a turn then, like ona__text_print), else straight from the font when not cached. */
ona__text_metrics ona__text_measure_cp(ona__fonts *f, ona__font *ft, uint32_t cp, bool make);

#endif
