/*
 * text_glyphs.c: the glyph cache and its atlas pages, which text is drawn from through the sprite
 * path. Layout (text_layout.c) asks here for a character's advance and glyph; the fonts and files
 * it reads are text.c's and text_file.c's; what they share is in text_internal.h.
 *
 * Design note.
 * - Threads: a face is not thread-safe, so every call on a file's face (char index, advance,
 *   kerning, load, rasterise from its glyph slot) holds that file's lock, shared by all the
 *   file's sizes. Glyphs are loaded unscaled and scaled here by size / (ascender - descender),
 *   so a size is the line's pixel height; the outline is rasterised by FT_Outline_Get_Bitmap
 *   straight into its atlas cells, clipped to them, whatever extent a forged outline claims.
 * - Glyph cache: per font, an open-addressed table (linear probing) from code point to glyph
 *   slot. The first thread to need a glyph claims the empty slot with a CAS of its key; it then,
 *   under the file's lock, loads the glyph, claims atlas cells with an atomic counter,
 *   rasterises into its cells of the page's CPU copy (which no other thread writes: cells are
 *   exclusive), and publishes the slot's fields with a release store of `ready`. Another
 *   thread that meets the key before `ready` spins for that while; after, it pushes sprites
 *   with the cell's source rect at once. The page's pixels are uploaded by main after the
 *   frame's turns (ona__textures_touch marks the page), when every worker has synchronised with
 *   it, so no glyph is drawn before its pixels are up.
 * - Atlas: per font, up to MAX_PAGES pages of fixed cells, a cell about half an em wide and a
 *   line high; a wider glyph claims several adjacent cells of one row with one fetch_add (a claim
 *   that would cross a row's end is abandoned and claimed again). A page is created by the first
 *   thread whose cell falls in it (CAS on the page's state; others spin until it is made), under
 *   the file's lock, so the texture registry's lock nests inside it (never the reverse), once
 *   per page in a font's life.
 * - Determinism: a glyph's bitmap is the same wherever it lands, it sits at its cell's corner
 *   plus a transparent 1-texel border, and textures are sampled nearest: the picture does not
 *   depend on which thread rasterised what, or where, whatever the number of threads.
 */
#include "text_internal.h"

#include "common.h"

#include FT_ADVANCES_H
#include FT_OUTLINE_H
#include <math.h>
#include <sched.h>

enum { MAX_GLYPHS = 3072 }; /* at most 3/4 full, so probes stay short */

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

/* Says once per file that a glyph could not be loaded or drawn (the glyph is then not drawn). */
static void log_broken(font_file *file, uint32_t cp, FT_Error err) {
    /* relaxed: only says whether this message was written already. */
    if (!atomic_exchange_explicit(&file->broken_logged, true, memory_order_relaxed))
        ona_log(ONA_LOG_ERROR, "text", "font %s: the glyph of U+%04X is broken (%s); not drawn",
                file->path, (unsigned)cp, ona__text_ft_error(err));
}

/* The advance of glyph `index` in pixels. File lock held. */
static float advance_of(ona__font *ft, FT_UInt index) {
    FT_Fixed units = 0;
    if (FT_Get_Advance(ft->file->face, index, ONA__FT_LOAD_FLAGS, &units) != 0)
        return 0;
    return (float)units * ft->px;
}

/* Pixel coordinates past these are not drawn: a forged outline may claim any extent, and the
 * glyph's fields hold 16 bits. */
#define MAX_EXTENT 16384.0f

/* Rasterises the loaded glyph's outline (font units, in the face's slot) into the `w` x `h`
 * texels at `dst` (rows `pitch` apart), its left edge at pixel `x0` and its top at `top`:
 * scaled to 26.6 pixels, moved so that the box's top-left is the bitmap's, and clipped to the
 * bitmap by FreeType's rasteriser, so nothing is written outside the cells. File lock held. */
static FT_Error rasterise(ona__fonts *f, ona__font *ft, int x0, int top, uint8_t *dst, int w, int h,
                          int pitch) {
    FT_Outline *outline = &ft->file->face->glyph->outline;
    FT_Fixed scale = (FT_Fixed)lroundf(ft->px * 64.0f * 65536.0f);
    FT_Matrix m = {scale, 0, 0, scale};
    FT_Outline_Transform(outline, &m);
    FT_Outline_Translate(outline, -(FT_Pos)x0 * 64, (FT_Pos)(h - top) * 64);
    FT_Bitmap bitmap = {.rows = (unsigned)h,
                        .width = (unsigned)w,
                        .pitch = pitch,
                        .buffer = dst,
                        .num_grays = 256,
                        .pixel_mode = FT_PIXEL_MODE_GRAY};
    return FT_Outline_Get_Bitmap(f->library, outline, &bitmap);
}

/* Fills a claimed slot: loads the glyph, claims its cells, rasterises it into them, then
 * publishes the slot. All FreeType calls hold the file's lock (the face's glyph slot is shared
 * by every size of the file). */
static void make_glyph(ona__fonts *f, ona__font *ft, glyph *g, uint32_t cp) {
    font_file *file = ft->file;
    uv_mutex_lock(&file->lock);
    FT_UInt index = FT_Get_Char_Index(file->face, cp);
    g->index = (int)index;
    g->advance = advance_of(ft, index);
    g->w = g->h = 0;
    FT_Error err = FT_Load_Glyph(file->face, index, ONA__FT_LOAD_FLAGS);
    if (err == 0 && file->face->glyph->format != FT_GLYPH_FORMAT_OUTLINE)
        err = FT_Err_Invalid_Glyph_Format;
    int x0 = 0, top = 0, w = 0, h = 0;
    if (err == 0) {
        /* The box stb_truetype and FreeType's own renderer give: floor and ceiling of the
         * scaled control box. */
        FT_BBox box;
        FT_Outline_Get_CBox(&file->face->glyph->outline, &box);
        float l = floorf((float)box.xMin * ft->px), r = ceilf((float)box.xMax * ft->px);
        float t = ceilf((float)box.yMax * ft->px), b = floorf((float)box.yMin * ft->px);
        if (fabsf(l) < MAX_EXTENT && fabsf(r) < MAX_EXTENT && fabsf(t) < MAX_EXTENT &&
            fabsf(b) < MAX_EXTENT) {
            x0 = (int)l;
            top = (int)t;
            w = (int)(r - l);
            h = (int)(t - b);
        }
    } else {
        log_broken(file, cp, err);
    }
    page *pg = NULL;
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
            g->x0 = (int16_t)x0;
            g->y0 = (int16_t)-top;
            /* The cells are this thread's alone; main reads them only after the frame. */
            uint8_t *dst = pg->alpha + (size_t)g->cy * (size_t)ft->side + g->cx;
            err = rasterise(f, ft, x0, top, dst, w, h, ft->side);
            if (err) {
                log_broken(file, cp, err);
                pg = NULL;
            } else {
                g->w = (uint16_t)w;
                g->h = (uint16_t)h;
            }
        }
    }
    uv_mutex_unlock(&file->lock);
    /* release: a thread that sees ready reads the fields above. */
    atomic_store_explicit(&g->ready, 1, memory_order_release);
    if (pg)
        ona__textures_touch(f->textures, pg->texture);
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
    uv_mutex_lock(&ft->file->lock);
    FT_UInt index = FT_Get_Char_Index(ft->file->face, cp);
    m.index = (int)index;
    m.advance = advance_of(ft, index);
    uv_mutex_unlock(&ft->file->lock);
    return m;
}

int ona__text_kern_units(font_file *file, int left, int right) {
    if (!file->kerning || left < 0 || right < 0)
        return 0;
    FT_Vector v = {0, 0};
    uv_mutex_lock(&file->lock);
    FT_Error err =
        FT_Get_Kerning(file->face, (FT_UInt)left, (FT_UInt)right, FT_KERNING_UNSCALED, &v);
    uv_mutex_unlock(&file->lock);
    return err ? 0 : (int)v.x;
}
