/*
 * text.c: TrueType fonts (stb_truetype), their files and the glyph atlas that text is drawn from
 * through the sprite path (text.h, ona/text.h). UTF-8 decoding and layout, which read the fonts
 * and the cache built here, are in text_layout.c; what the two share is in text_internal.h.
 *
 * Design note.
 * - A font is a file at a pixel size. Files are read once and their bytes shared by every size
 *   (stbtt_fontinfo only reads them); fonts are not unloaded before the runtime goes. A reload
 *   (main, between frames) replaces a file's fonts by fresh ones under the same handles; the old
 *   fonts, their atlas pages and their file are freed later (text_retire.c), once no measure
 *   reads a font. Loading takes
 * the registry's mutex; printing takes none. A font is published in `fonts[]` with a release store,
 * so a thread that sees a handle sees the whole font.
 * - Glyph cache: per font, an open-addressed table (linear probing) from code point to glyph
 *   slot. The first thread to need a glyph claims the empty slot with a CAS of its key; it then
 *   measures the glyph, claims atlas cells with an atomic counter, fills the slot's fields and
 *   publishes them with a release store of `ready`; only then does it rasterise into its cells
 *   of the page's CPU copy, which no other thread writes (cells are exclusive). Another thread
 *   that meets the key before `ready` spins for that short while (metrics and one fetch_add, no
 *   rasterising); after, it pushes sprites with the cell's source rect at once. The page's
 *   pixels are uploaded by main after the frame's turns (ona__textures_touch marks the page),
 *   when every worker has synchronised with it, so no glyph is drawn before its pixels are up.
 * - Atlas: per font, up to MAX_PAGES pages of fixed cells, a cell about half an em wide and a
 *   line high; a wider glyph claims several adjacent cells of one row with one fetch_add (a claim
 *   that would cross a row's end is abandoned and claimed again). A page is created by the first
 *   thread whose cell falls in it (CAS on the page's state; others spin until it is made): the
 *   only lock on the print path is the texture registry's, once per page in a font's life.
 * - Determinism: a glyph's bitmap is the same wherever it lands, it sits at its cell's corner
 *   plus a transparent 1-texel border, and textures are sampled nearest: the picture does not
 *   depend on which thread rasterised what, or where, whatever the number of threads.
 * - The font used when even the default file cannot be read is the built-in 8x8 debug font
 *   (font.c), scaled to the size: text never disappears for a missing file.
 */
#include "text_internal.h"

#include "common.h"
#include "paths.h"

#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#ifndef ONA_INSTALL_FONT_DIR
#define ONA_INSTALL_FONT_DIR "/usr/local/share/ona/fonts"
#endif
#ifndef ONA_BUILD_FONT_DIR
#define ONA_BUILD_FONT_DIR "share/ona/fonts"
#endif
#define DEFAULT_FONT_FILE "DejaVuSans.ttf"
#define DEBIAN_FONT_DIR "/usr/share/fonts/truetype/dejavu"

enum {
    MAX_GLYPHS = 3072,        /* at most 3/4 full, so probes stay short */
    MAX_FILE_SIZE = 64 << 20, /* the largest font file read */
};

/* --- Files and fonts ------------------------------------------------------------------------ */

/* Checks that the tables stb_truetype reads lie inside the file, which stbtt_InitFont does not
 * do for every one: a truncated or forged file must not make it read past the end. */
static bool tables_inside(const uint8_t *data, size_t size) {
    if (size < 12)
        return false;
    uint32_t count = (uint32_t)data[4] << 8 | data[5];
    if (12 + (size_t)count * 16 > size)
        return false;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *rec = data + 12 + i * 16;
        uint64_t offset = (uint32_t)rec[8] << 24 | (uint32_t)rec[9] << 16 | rec[10] << 8 | rec[11];
        uint64_t length =
            (uint32_t)rec[12] << 24 | (uint32_t)rec[13] << 16 | rec[14] << 8 | rec[15];
        if (offset + length > size)
            return false;
    }
    return true;
}

/* Reads the font file at `path` into `file` (data and info). */
static int read_font(const char *path, font_file *file) {
    size_t size = 0;
    int rc = ona__read_file(path, MAX_FILE_SIZE, &file->data, &size);
    if (rc == 0) {
        int offset = stbtt_GetFontOffsetForIndex(file->data, 0);
        if (offset != 0 || !tables_inside(file->data, size) ||
            !stbtt_InitFont(&file->info, file->data, 0))
            rc = ONA_EFORMAT;
    }
    if (rc) {
        ona__free(file->data);
        file->data = NULL;
    }
    return rc;
}

void ona__text_free_font(ona__font *ft) {
    for (int p = 0; p < MAX_PAGES; p++)
        ona__free(ft->pages[p].alpha);
    ona__free(ft);
}

void ona__text_free_file(font_file *file) {
    ona__free(file->data);
    ona__free(file->path);
    ona__free(file);
}

/* Finds or reads a file. Called with the lock held. */
static int get_file(ona__fonts *f, const char *path, font_file **out) {
    for (uint32_t i = 0; i < f->file_count; i++) {
        if (strcmp(f->files[i]->path, path) == 0) {
            *out = f->files[i];
            return 0;
        }
    }
    if (f->file_count >= MAX_FILES)
        return ONA_ELIMIT;
    font_file *file = ona__calloc(1, sizeof *file);
    char *copy = ona__malloc(strlen(path) + 1);
    if (!file || !copy) {
        ona__free(file);
        ona__free(copy);
        return ONA_ENOMEM;
    }
    strcpy(copy, path);
    int rc = read_font(path, file);
    if (rc) {
        ona__free(file);
        ona__free(copy);
        return rc;
    }
    file->path = copy;
    f->files[f->file_count++] = file;
    *out = file;
    return 0;
}

/* Finds DejaVuSans.ttf: $ONA_FONT_DIR; <folder of the binary holding this code>/../share/ona/
 * fonts (like the shaders, video.c); the install prefix's; the build tree's copy; Debian's
 * fonts-dejavu-core. Writes the first that exists to `buf`; false (buf: the last tried) if none. */
static bool find_default(char *buf, size_t size) {
    char dirs[5][PATH_MAX];
    int count = 0;
    const char *env = getenv("ONA_FONT_DIR");
    if (env && *env)
        snprintf(dirs[count++], PATH_MAX, "%s", env);
    union {
        int (*fn)(ona__textures *, ona__fonts **);
        void *address;
    } self = {.fn = ona__fonts_create};
    Dl_info info;
    char binary[PATH_MAX];
    if (dladdr(self.address, &info) && info.dli_fname && realpath(info.dli_fname, binary)) {
        char *slash = strrchr(binary, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dirs[count++], PATH_MAX, "%.*s/../share/ona/fonts", PATH_MAX - 32, binary);
        }
    }
    snprintf(dirs[count++], PATH_MAX, "%s", ONA_INSTALL_FONT_DIR);
    snprintf(dirs[count++], PATH_MAX, "%s", ONA_BUILD_FONT_DIR);
    snprintf(dirs[count++], PATH_MAX, "%s", DEBIAN_FONT_DIR);
    for (int i = 0; i < count; i++) {
        snprintf(buf, size, "%.*s/%s", PATH_MAX - 32, dirs[i], DEFAULT_FONT_FILE);
        if (access(buf, R_OK) == 0) {
            ona_log(ONA_LOG_DEBUG, "text", "default font %s", buf);
            return true;
        }
    }
    return false;
}

ona__font *ona__text_font_of(ona__fonts *f, ona_font font) {
    if (!f || font.id == 0 || font.id > ONA__MAX_FONTS)
        return NULL;
    /* seq_cst: acquire for the release in make_font (the font's fields are complete), and part
     * of ona__text_enter's order with a reload's stores. */
    return atomic_load_explicit(&f->fonts[font.id - 1], memory_order_seq_cst);
}

/* A new font of `file` (NULL: the debug font) at `size`, not yet published; NULL when out of
 * memory. */
static ona__font *new_font(font_file *file, int size) {
    ona__font *ft = ona__calloc(1, sizeof *ft);
    if (!ft)
        return NULL;
    ft->file = file;
    ft->size = size;
    if (file) {
        int ascent, descent, gap;
        stbtt_GetFontVMetrics(&file->info, &ascent, &descent, &gap);
        ft->px = stbtt_ScaleForPixelHeight(&file->info, (float)size);
        ft->ascent = roundf((float)ascent * ft->px);
        ft->line_height = roundf((float)(ascent - descent + gap) * ft->px);
        ft->cell_w = (int)ceilf((float)size * 0.5f) + 2;
        ft->cell_h = (int)ceilf((float)(ascent - descent) * ft->px) + 3;
    } else {
        ft->px = (float)size / ONA__FONT_GLYPH;
        ft->ascent = (float)size;
        ft->line_height = (float)size;
    }
    if (ft->line_height < 1)
        ft->line_height = 1;
    if (file) {
        /* The smallest square page (256..4096 a side) holding 256 cells. */
        ft->side = 256;
        while (ft->side < 4096 && (ft->side / ft->cell_w) * (ft->side / ft->cell_h) < 256)
            ft->side *= 2;
        ft->cols = ft->side / ft->cell_w;
        ft->rows = ft->side / ft->cell_h;
        ft->cells = (uint32_t)(ft->cols * ft->rows);
    }
    atomic_init(&ft->next_cell, 0);
    atomic_init(&ft->glyph_count, 0);
    atomic_init(&ft->full_logged, false);
    for (int i = 0; i < MAX_PAGES; i++)
        atomic_init(&ft->pages[i].state, PAGE_NONE);
    for (int i = 0; i < TABLE_SIZE; i++) {
        atomic_init(&ft->table[i].key, 0);
        atomic_init(&ft->table[i].ready, 0);
    }
    for (int i = 0; i < KERN_SIZE; i++)
        atomic_init(&ft->kerns[i], 0);
    return ft;
}

/* Makes the font of `file` (NULL: the debug font) at `size`, or finds it. Lock held. */
static int make_font(ona__fonts *f, font_file *file, int size, ona_font *out) {
    for (uint32_t i = 0; i < f->font_count; i++) {
        ona__font *ft = atomic_load_explicit(&f->fonts[i], memory_order_relaxed); /* ours */
        if (ft->file == file && ft->size == size) {
            *out = ft->handle;
            return 0;
        }
    }
    if (f->font_count >= ONA__MAX_FONTS)
        return ONA_ELIMIT;
    ona__font *ft = new_font(file, size);
    if (!ft)
        return ONA_ENOMEM;
    ft->handle.id = f->font_count + 1;
    /* release: a thread that reads this pointer sees the font's fields. */
    atomic_store_explicit(&f->fonts[f->font_count], ft, memory_order_release);
    f->font_count++;
    *out = ft->handle;
    return 0;
}

int ona__fonts_create(ona__textures *textures, ona__fonts **out) {
    ona__fonts *f = ona__calloc(1, sizeof *f);
    if (!f)
        return ONA_ENOMEM;
    if (uv_mutex_init(&f->lock)) {
        ona__free(f);
        return ONA_ENOMEM;
    }
    f->textures = textures;
    for (int i = 0; i < ONA__MAX_FONTS; i++)
        atomic_init(&f->fonts[i], NULL);
    atomic_init(&f->measuring, 0);
    *out = f;
    return 0;
}

void ona__fonts_destroy(ona__fonts *f) {
    if (!f)
        return;
    for (uint32_t i = 0; i < f->font_count; i++) /* main, last */
        ona__text_free_font(atomic_load_explicit(&f->fonts[i], memory_order_relaxed));
    for (uint32_t i = 0; i < f->file_count; i++)
        ona__text_free_file(f->files[i]);
    for (uint32_t i = 0; i < f->retired_fonts_count; i++)
        ona__text_free_font(f->retired_fonts[i]);
    for (uint32_t i = 0; i < f->retired_files_count; i++)
        ona__text_free_file(f->retired_files[i]);
    ona__free(f->retired_fonts);
    ona__free(f->retired_files);
    uv_mutex_destroy(&f->lock);
    ona__free(f);
}

static const char *file_error(int rc) {
    switch (rc) {
    case ONA_ENOENT:
        return "no such file";
    case ONA_EFORMAT:
        return "not a TrueType font";
    case ONA_ELIMIT:
        return "too large, or too many font files";
    default:
        return ona_strerror(rc);
    }
}

int ona__fonts_load(ona__fonts *f, const char *path, int size, const char *who, ona_font *out) {
    if (out)
        out->id = 0;
    if (!f || !out || size < 1 || size > ONA_FONT_MAX_SIZE)
        return ONA_EINVAL;
    uv_mutex_lock(&f->lock);
    if (!f->default_path[0] && !find_default(f->default_path, sizeof f->default_path))
        ona_log(ONA_LOG_ERROR, who,
                "default font %s not found (install fonts-dejavu-core or set ONA_FONT_DIR); "
                "text uses the built-in 8x8 font instead",
                DEFAULT_FONT_FILE);
    font_file *file = NULL;
    int rc = get_file(f, path ? path : f->default_path, &file);
    if (rc) {
        int fallback = path ? get_file(f, f->default_path, &file) : rc;
        if (fallback)
            file = NULL;
        ona_log(ONA_LOG_ERROR, who, "font %s: %s; using %s instead", path ? path : f->default_path,
                file_error(rc), file ? "the default font" : "the built-in 8x8 font");
    }
    int made = make_font(f, file, size, out);
    uv_mutex_unlock(&f->lock);
    if (made)
        ona_log(ONA_LOG_ERROR, who, "font %s at %d px: %s (at most %d fonts)",
                path ? path : "(default)", size, ona_strerror(made), ONA__MAX_FONTS);
    return rc ? rc : made;
}

/* Makes room for `need` pointers in a retired list. */
static int reserve(void *list, uint32_t *capacity, uint32_t need) {
    void **items = *(void ***)list;
    if (need <= *capacity)
        return 0;
    uint32_t cap = need + 8;
    void **grown = ona__realloc(items, cap * sizeof *grown);
    if (!grown)
        return ONA_ENOMEM;
    *(void ***)list = grown;
    *capacity = cap;
    return 0;
}

int ona__fonts_reload(ona__fonts *f, const char *path) {
    uv_mutex_lock(&f->lock);
    font_file *old = NULL;
    uint32_t which = 0;
    for (uint32_t i = 0; i < f->file_count && !old; i++)
        if (strcmp(f->files[i]->path, path) == 0) {
            old = f->files[i];
            which = i;
        }
    int rc = old ? 0 : ONA_ENOENT;
    font_file *file = old ? ona__calloc(1, sizeof *file) : NULL;
    char *copy = file ? ona__malloc(strlen(path) + 1) : NULL;
    if (old && !copy)
        rc = ONA_ENOMEM;
    if (rc == 0) {
        strcpy(copy, path);
        file->path = copy;
        rc = read_font(path, file);
    }
    /* Room on the retired lists first, so that nothing below fails half way. */
    uint32_t uses = 0;
    for (uint32_t i = 0; rc == 0 && i < f->font_count; i++)
        uses += atomic_load_explicit(&f->fonts[i], memory_order_relaxed)->file == old; /* ours */
    ona__font *made[ONA__MAX_FONTS];
    uint32_t made_count = 0;
    for (uint32_t i = 0; rc == 0 && i < f->font_count; i++) {
        ona__font *ft = atomic_load_explicit(&f->fonts[i], memory_order_relaxed);
        if (ft->file != old)
            continue;
        ona__font *fresh = new_font(file, ft->size);
        if (!fresh)
            rc = ONA_ENOMEM;
        else
            made[made_count++] = fresh;
    }
    if (rc == 0 &&
        (reserve(&f->retired_files, &f->retired_files_capacity, f->retired_files_count + 1) != 0 ||
         reserve(&f->retired_fonts, &f->retired_fonts_capacity, f->retired_fonts_count + uses) !=
             0))
        rc = ONA_ENOMEM;
    if (rc) {
        for (uint32_t i = 0; i < made_count; i++)
            ona__text_free_font(made[i]);
        if (file) {
            ona__free(file->data);
            ona__free(file);
        }
        ona__free(copy);
        uv_mutex_unlock(&f->lock);
        return rc;
    }
    /* Each font of the file is replaced by a fresh one under the same handle: new metrics, an
     * empty glyph cache and new atlas pages. The old font and file stay allocated until
     * ona__fonts_collect sees no measure running, so a thread still holding them reads valid
     * memory. */
    f->files[which] = file;
    f->retired_files[f->retired_files_count++] = old;
    made_count = 0;
    for (uint32_t i = 0; i < f->font_count; i++) {
        ona__font *ft = atomic_load_explicit(&f->fonts[i], memory_order_relaxed);
        if (ft->file != old)
            continue;
        ona__font *fresh = made[made_count++];
        fresh->handle = ft->handle;
        f->retired_fonts[f->retired_fonts_count++] = ft;
        /* seq_cst: a release for the fresh font's fields, and ordered before the collector's
         * read of the measure count (ona__text_enter). */
        atomic_store_explicit(&f->fonts[i], fresh, memory_order_seq_cst);
    }
    uv_mutex_unlock(&f->lock);
    return 0;
}

float ona__text_line_height(ona__fonts *f, ona_font font) {
    if (!f)
        return 0;
    ona__text_enter(f);
    ona__font *ft = ona__text_font_of(f, font);
    float h = ft ? ft->line_height : 0;
    ona__text_leave(f);
    return h;
}

/* --- The glyph cache --------------------------------------------------------------------------*/

static void spin(void) {
    sched_yield();
}

/* The page `p` of a font, made by the first thread that needs it; NULL when it cannot be. */
static page *get_page(ona__fonts *f, ona__font *ft, uint32_t p) {
    page *pg = &ft->pages[p];
    uint32_t state = PAGE_NONE;
    /* acq_rel on success: we own making it; acquire on failure: see a made page's fields. */
    if (atomic_compare_exchange_strong_explicit(&pg->state, &state, PAGE_MAKING,
                                                memory_order_acq_rel, memory_order_acquire)) {
        pg->alpha = ona__calloc((size_t)ft->side * (size_t)ft->side, 1);
        int rc = pg->alpha ? ona__textures_create_alpha(f->textures, ft->side, ft->side, pg->alpha,
                                                        &pg->texture)
                           : ONA_ENOMEM;
        if (rc) {
            ona_log(ONA_LOG_ERROR, "text", "glyph atlas page for a %d px font: %s", ft->size,
                    ona_strerror(rc));
            ona__free(pg->alpha);
            pg->alpha = NULL;
        }
        state = rc ? PAGE_FAILED : PAGE_READY;
        /* release: threads that see READY see alpha and texture. */
        atomic_store_explicit(&pg->state, state, memory_order_release);
    }
    while (state == PAGE_MAKING) {
        spin();
        /* acquire: pairs with the release above. */
        state = atomic_load_explicit(&pg->state, memory_order_acquire);
    }
    return state == PAGE_READY ? pg : NULL;
}

static void log_full(ona__font *ft) {
    /* relaxed: only says whether this message was written already. */
    if (!atomic_exchange_explicit(&ft->full_logged, true, memory_order_relaxed))
        ona_log(ONA_LOG_WARN, "text",
                "the glyph atlas of a %d px font is full: new characters are not drawn", ft->size);
}

/* Claims `k` adjacent cells of one row: false when the atlas is full. */
static bool claim_cells(ona__font *ft, uint32_t k, uint32_t *page_out, uint32_t *col,
                        uint32_t *row) {
    uint32_t total = ft->cells * MAX_PAGES;
    for (;;) {
        /* relaxed: the counter only hands out distinct cells; nothing is published by it. */
        uint32_t n = atomic_fetch_add_explicit(&ft->next_cell, k, memory_order_relaxed);
        if (n >= total || n + k > total)
            return false;
        uint32_t in_page = n % ft->cells;
        uint32_t c = in_page % (uint32_t)ft->cols;
        if (c + k > (uint32_t)ft->cols)
            continue; /* would cross the row's end: these cells stay unused */
        *page_out = n / ft->cells;
        *col = c;
        *row = in_page / (uint32_t)ft->cols;
        return true;
    }
}

/* Fills a claimed slot, publishes it, then rasterises the bitmap into its cells. */
static void make_glyph(ona__fonts *f, ona__font *ft, glyph *g, uint32_t cp) {
    const stbtt_fontinfo *info = &ft->file->info;
    g->index = stbtt_FindGlyphIndex(info, (int)cp);
    int advance, lsb, x0, y0, x1, y1;
    stbtt_GetGlyphHMetrics(info, g->index, &advance, &lsb);
    g->advance = (float)advance * ft->px;
    stbtt_GetGlyphBitmapBox(info, g->index, ft->px, ft->px, &x0, &y0, &x1, &y1);
    int w = x1 - x0, h = y1 - y0;
    page *pg = NULL;
    g->w = g->h = 0;
    if (w > 0 && h > 0) {
        /* A glyph taller than the line (rare) is cut to the cell; one wider than a page's row
         * to the row. */
        h = ONA_MIN(h, ft->cell_h - 2);
        uint32_t k = (uint32_t)((w + 2 + ft->cell_w - 1) / ft->cell_w);
        if (k > (uint32_t)ft->cols) {
            k = (uint32_t)ft->cols;
            w = ft->cols * ft->cell_w - 2;
        }
        uint32_t p, col, row;
        if (!claim_cells(ft, k, &p, &col, &row))
            log_full(ft);
        else if ((pg = get_page(f, ft, p)) != NULL) {
            g->page = (uint16_t)p;
            g->cx = (uint16_t)(col * (uint32_t)ft->cell_w + 1);
            g->cy = (uint16_t)(row * (uint32_t)ft->cell_h + 1);
            g->w = (uint16_t)w;
            g->h = (uint16_t)h;
            g->x0 = (int16_t)x0;
            g->y0 = (int16_t)y0;
        }
    }
    /* release: a thread that sees ready reads the fields above. The bitmap below is read only
     * by main after the frame, which synchronises with this thread. */
    atomic_store_explicit(&g->ready, 1, memory_order_release);
    if (pg && g->w) {
        uint8_t *dst = pg->alpha + (size_t)g->cy * (size_t)ft->side + g->cx;
        stbtt_MakeGlyphBitmap(info, dst, g->w, g->h, ft->side, ft->px, ft->px, g->index);
        ona__textures_touch(f->textures, pg->texture);
    }
}

static uint32_t hash(uint32_t cp) {
    return (cp * 2654435761u) >> 20; /* Knuth's multiplicative hash, top 12 bits */
}

/* The glyph of `cp`, made on first use when `make`; NULL when not cached (and not made). */
static const glyph *get_glyph(ona__fonts *f, ona__font *ft, uint32_t cp, bool make) {
    uint32_t key = cp + 1;
    for (uint32_t probe = 0, h = hash(cp); probe < TABLE_SIZE; probe++) {
        glyph *g = &ft->table[(h + probe) & (TABLE_SIZE - 1)];
        /* acquire: pairs with the CAS below (the key is only ever set once). */
        uint32_t k = atomic_load_explicit(&g->key, memory_order_acquire);
        if (k == 0) {
            /* relaxed: a bound on the table's load, not a publication. */
            if (!make ||
                atomic_load_explicit(&ft->glyph_count, memory_order_relaxed) >= MAX_GLYPHS) {
                if (make)
                    log_full(ft);
                return NULL;
            }
            uint32_t expected = 0;
            /* acq_rel: the winner owns the slot; a loser reads the key that won. */
            if (atomic_compare_exchange_strong_explicit(
                    &g->key, &expected, key, memory_order_acq_rel, memory_order_acquire)) {
                atomic_fetch_add_explicit(&ft->glyph_count, 1, memory_order_relaxed);
                make_glyph(f, ft, g, cp);
                return g;
            }
            k = expected;
        }
        if (k == key) {
            /* acquire: pairs with make_glyph's release; the wait is the maker's metrics only. */
            while (!atomic_load_explicit(&g->ready, memory_order_acquire)) {
                if (!make)
                    return NULL;
                spin();
            }
            return g;
        }
    }
    return NULL;
}

/* What layout needs of one character (text_internal.h). */
ona__text_metrics ona__text_measure_cp(ona__fonts *f, ona__font *ft, uint32_t cp, bool make) {
    ona__text_metrics m = {.index = -1};
    if (!ft->file) {
        m.advance = (float)ft->size;
        return m;
    }
    m.g = get_glyph(f, ft, cp, make);
    if (m.g) {
        m.advance = m.g->advance;
        m.index = m.g->index;
        return m;
    }
    m.index = stbtt_FindGlyphIndex(&ft->file->info, (int)cp);
    int advance, lsb;
    stbtt_GetGlyphHMetrics(&ft->file->info, m.index, &advance, &lsb);
    m.advance = (float)advance * ft->px;
    return m;
}
