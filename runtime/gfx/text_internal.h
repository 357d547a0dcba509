/*
 * text_internal.h: what the text module's files share, and nothing else sees: the font, glyph
 * and atlas page types, the font registry, and the calls its files make into one another.
 * text.c owns the registry and its fonts; text_file.c reads and checks font files; text_glyphs.c
 * owns the glyph cache and atlas (and says how its atomics pair); text_layout.c decodes UTF-8 and
 * lays out, prints and measures; text_retire.c frees the fonts a reload replaced. The rest of
 * the runtime knows the module through text.h.
 */
#ifndef ONA_GFX_TEXT_INTERNAL_H
#define ONA_GFX_TEXT_INTERNAL_H

#include "text.h"

#include <ft2build.h>
#include <limits.h>
#include FT_FREETYPE_H

#define ONA__DEFAULT_FONT_FILE "DejaVuSans.ttf"

/* Glyphs are loaded in font units: no hinting, no embedded bitmaps, and the scale is applied to
 * the outline by text_glyphs.c, so that a size means the ascender-to-descender height in pixels. */
#define ONA__FT_LOAD_FLAGS (FT_LOAD_NO_SCALE | FT_LOAD_NO_BITMAP | FT_LOAD_IGNORE_TRANSFORM)

enum {
    MAX_FILES = 64,
    MAX_PAGES = 8,
    TABLE_SIZE = 4096, /* glyph slots per font (a power of two) */
    KERN_SIZE = 4096,  /* kerning pairs remembered per font (a power of two) */
};

/* A font file: its bytes, read once, and the FreeType face over them. A face is not thread-safe:
 * every call on it (char map, advances, kerning, glyph loads, rasterising from its glyph slot)
 * holds `lock`. The metrics below are copied out at load and read freely. */
typedef struct font_file {
    char *path;
    uint8_t *data;
    FT_Face face;
    uv_mutex_t lock;
    int ascent, descent, gap; /* font units (hhea, as FreeType reads it) */
    bool kerning;             /* the face has a kern table */
    _Atomic bool broken_logged;
} font_file;

/* A character of a font: its metrics, made once (published by `ready`), and where its bitmap is
 * in the atlas (`spot`, text_glyphs.c), which changes when its page is evicted and it is drawn
 * again. */
typedef struct glyph {
    _Atomic uint32_t key;   /* code point + 1; 0: empty */
    _Atomic uint32_t ready; /* 1 once the fields below are written */
    int index;              /* the glyph's index in the font (0: the missing-glyph box) */
    float advance;          /* pixels */
    int16_t x0, y0;         /* the bitmap's top-left from the pen on the baseline, pixels */
    uint16_t w, h;          /* the bitmap's size (cut to its cells); 0: nothing to draw */
    _Atomic uint64_t spot;  /* SPOT_* with its page, texel and the page's epoch */
} glyph;

typedef struct page {
    _Atomic uint32_t state;     /* PAGE_* */
    _Atomic uint32_t epoch;     /* times evicted: a glyph placed in an older epoch is not here */
    _Atomic uint32_t next_cell; /* cells claimed so far (may pass the end: full) */
    _Atomic uint64_t used;      /* the last frame a print drew from it */
    ona_texture texture;
    uint8_t *alpha; /* side * side coverage bytes */
} page;

enum { PAGE_NONE = 0, PAGE_MAKING, PAGE_READY, PAGE_FAILED };

typedef struct ona__font {
    ona_font handle;
    font_file *file; /* NULL: the built-in debug font */
    int size;
    float px; /* pixels per font unit: the size over the ascender-to-descender height */
    float ascent, line_height;
    int cell_w, cell_h, cols, rows, side;
    uint32_t cells;               /* per page */
    _Atomic uint32_t fill;        /* the page new glyphs go to */
    _Atomic uint32_t glyph_count; /* slots claimed */
    _Atomic bool full_logged, table_logged;
    _Atomic bool wants_page; /* every page in use and full: main evicts its least recently used */
    page pages[MAX_PAGES];
    glyph table[TABLE_SIZE];
    /* Kerning pairs met so far, direct-mapped: (pair + 1) << 32 | the kern in font units. Each
     * entry is one self-contained word, a pure function of its pair, so any thread may write it
     * and a reader either sees the whole pair or recomputes: no ordering needed. */
    _Atomic uint64_t kerns[KERN_SIZE];
} ona__font;

struct ona__fonts {
    ona__textures *textures;
    uv_mutex_t lock;    /* guards loading: files, font_count */
    FT_Library library; /* faces are made and freed under `lock` (FreeType's rule for one
                           library shared by threads); each face is used under its file's lock */
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
    /* The atlas bound (text_glyphs.c): bytes of coverage all pages may hold, those held now
     * (retired fonts' included), and those refused this frame for the bound. */
    uint64_t atlas_limit;
    _Atomic uint64_t atlas_bytes;
    _Atomic uint64_t atlas_refused;
    _Atomic bool over_logged;
    /* The frame whose turns print now: main advances it after the turns (ona__fonts_collect);
     * pages record it when drawn from, so that eviction spares the frame's pages. */
    _Atomic uint64_t frame;
};

/* What layout needs of one character. */
typedef struct ona__text_metrics {
    float advance; /* pixels at scale 1 */
    int index;     /* glyph index, for kerning; -1 without a font file */
    glyph *g;      /* NULL: measured without the cache */
} ona__text_metrics;

/* Where a glyph's bitmap is drawn from: a page's texture and the bitmap's top-left texel. */
typedef struct ona__text_spot {
    uint32_t texture;
    uint16_t x, y;
} ona__text_spot;

/* FreeType's text for an error code (FT_Error_String is compiled out of Debian's build). */
const char *ona__text_ft_error(FT_Error err);

/* Reads the font file at `path` into `file` (data, face, metrics, lock) and checks it. Called
 * with the registry's lock held (faces are made under it). On failure `why` says what is wrong:
 * ONA_EFORMAT (not a font, or broken), the read's error. */
int ona__text_read_file(FT_Library library, const char *path, font_file *file, char *why,
                        size_t why_size);

/* Finds the file at `path` among the registry's, or reads it there. Registry lock held. */
int ona__text_get_file(ona__fonts *f, const char *path, font_file **out, char *why,
                       size_t why_size);

/* Writes the path of the default font file to `buf`: false (buf: the last tried) if none. */
bool ona__text_find_default(char *buf, size_t size);

/* What the log says of a file that could not be used (`why`: read_file's reason). */
const char *ona__text_file_error(int rc, const char *why);

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
ona__text_metrics ona__text_measure_cp(ona__font *ft, uint32_t cp, bool make);

/* Where glyph `g` of `ft` (from ona__text_measure_cp with `make`, w > 0) is drawn from, placed in
 * the atlas first when it is not there (new, or its page was evicted); marks its page used this
 * frame. Inside a turn only, like ona__text_print. False when it cannot be placed this frame
 * (the atlas bound, the font's pages all full and in use, logged once): not drawn this frame. */
bool ona__text_place(ona__fonts *f, ona__font *ft, glyph *g, ona__text_spot *out);

/* Main thread, after the turns (no print runs): frees the page `p` of `ft` (its texture, GL
 * included, gfx may be NULL) and takes it off the atlas bytes; the slot can be made again. */
void ona__text_free_page(ona__fonts *f, ona__gfx *gfx, ona__font *ft, uint32_t p);

/* Main thread, after the turns: evicts least recently used pages that this frame did not draw
 * from, so that the pages the frame was refused fit in the bound next frame. Registry lock held. */
void ona__text_evict(ona__fonts *f, ona__gfx *gfx);

/* The kerning between glyphs `left` and `right` of a font file, in font units (its kern table);
 * 0 without one. Any thread. */
int ona__text_kern_units(font_file *file, int left, int right);

#endif
