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
 *   slot. The first thread to need a glyph claims the empty slot with a CAS of its key, loads
 *   the glyph under the file's lock and publishes its metrics (advance, bitmap box) with a
 *   release store of `ready`; another thread that meets the key before `ready` spins for that
 *   while. Metrics stay for the font's life, so layout and measures never depend on the atlas.
 * - Placement: where a glyph's bitmap lies is one atomic word (`spot`: page, texel, the page's
 *   epoch). The first print that finds it unplaced, or placed in an evicted page (an older
 *   epoch), takes it with a CAS to BUSY (others spin), claims cells, rasterises into its cells
 *   of the page's CPU copy (which no other thread writes: cells are exclusive) and publishes the
 *   spot with a release store. The page's pixels are uploaded by main after the frame's turns
 *   (ona__textures_touch marks the page), when every worker has synchronised with it, so no
 *   glyph is drawn before its pixels are up. A print stamps each page it draws from with the
 *   frame (`used`).
 * - Atlas: per font, up to MAX_PAGES page slots of fixed cells, a cell about half an em wide and
 *   a line high; a wider glyph claims several adjacent cells of one row with one fetch_add on
 *   the page's counter (a claim that would cross a row's end is abandoned and claimed again).
 *   New glyphs go to the font's `fill` page; a full one moves it to an empty slot. A page is
 *   made by the first thread that needs it (CAS on the page's state; others spin until it is
 *   made), outside the file's lock.
 * - The bound: all fonts' pages hold at most atlas_limit bytes, reserved by a CAS loop before a
 *   page is made. A refused page is counted (atlas_refused) and its glyphs marked refused for
 *   the frame (no retry until the next). Main, after the turns and before the upload and draw
 *   (ona__fonts_collect, no print running), evicts the least recently used pages whose `used`
 *   is not this frame until the refused bytes fit, and gives a font whose slots were all taken
 *   its oldest one back. Evicting frees the page's texture and buffer, bumps its epoch and
 *   empties its slot; measures, which may run then, read only metrics. Pages the frame drew from
 *   are never evicted, so its render queue never samples a freed texture.
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

/* A glyph's spot: what the top two bits say, and for a placed one its page (bits 0-2), texel
 * (3-15, 16-28) and the page's epoch (29-60); for a refused one the frame (low 62 bits). One word,
 * so a reader sees a whole placement or none. */
#define SPOT_KIND(s) ((s) >> 62)
#define SPOT_LOW 0x3FFFFFFFFFFFFFFFull
enum { SPOT_NONE = 0, SPOT_PLACED = 1, SPOT_REFUSED = 2, SPOT_BUSY = 3 };

static uint64_t spot_placed(uint32_t p, uint32_t x, uint32_t y, uint32_t epoch) {
    return (uint64_t)SPOT_PLACED << 62 | (uint64_t)epoch << 29 | (uint64_t)y << 16 |
           (uint64_t)x << 3 | p;
}

static uint64_t spot_refused(uint64_t frame) {
    return (uint64_t)SPOT_REFUSED << 62 | (frame & SPOT_LOW);
}

static void spin(void) {
    sched_yield();
}

static uint64_t page_bytes(const ona__font *ft) {
    return (uint64_t)ft->side * (uint64_t)ft->side;
}

/* Takes a page's bytes from the bound: false when they do not fit. */
static bool reserve_bytes(ona__fonts *f, uint64_t bytes) {
    /* relaxed: a counter compared with the bound; the pages are published by their state. */
    uint64_t held = atomic_load_explicit(&f->atlas_bytes, memory_order_relaxed);
    while (held + bytes <= f->atlas_limit)
        if (atomic_compare_exchange_weak_explicit(&f->atlas_bytes, &held, held + bytes,
                                                  memory_order_relaxed, memory_order_relaxed))
            return true;
    return false;
}

static void log_over(ona__fonts *f, ona__font *ft) {
    /* relaxed: only says whether this message was written already. */
    if (!atomic_exchange_explicit(&f->over_logged, true, memory_order_relaxed))
        ona_log(ONA_LOG_WARN, "text",
                "glyph atlases are at their bound (%llu MiB, ona_runtime_desc.atlas_memory): a "
                "page for a %d px font waits for pages not drawn from this frame to be evicted; "
                "characters it holds are not drawn until then",
                (unsigned long long)(f->atlas_limit >> 20), ft->size);
}

/* The page `p` of a font, made by the first thread that needs it, within the bound; NULL when it
 * cannot be (this frame, for the bound). */
static page *get_page(ona__fonts *f, ona__font *ft, uint32_t p) {
    page *pg = &ft->pages[p];
    uint32_t state = PAGE_NONE;
    /* acq_rel on success: we own making it; acquire on failure: see a made page's fields. */
    if (atomic_compare_exchange_strong_explicit(&pg->state, &state, PAGE_MAKING,
                                                memory_order_acq_rel, memory_order_acquire)) {
        if (!reserve_bytes(f, page_bytes(ft))) {
            /* relaxed: read by main after the turns, which synchronise with it. */
            atomic_fetch_add_explicit(&f->atlas_refused, page_bytes(ft), memory_order_relaxed);
            log_over(f, ft);
            /* release: pairs with the waiters' acquire below; the page stays to be made. */
            atomic_store_explicit(&pg->state, PAGE_NONE, memory_order_release);
            return NULL;
        }
        pg->alpha = ona__calloc((size_t)page_bytes(ft), 1);
        int rc = pg->alpha ? ona__textures_create_alpha(f->textures, ft->side, ft->side, pg->alpha,
                                                        &pg->texture)
                           : ONA_ENOMEM;
        if (rc) {
            ona_log(ONA_LOG_ERROR, "text", "glyph atlas page for a %d px font: %s", ft->size,
                    ona_strerror(rc));
            ona__free(pg->alpha);
            pg->alpha = NULL;
            atomic_fetch_sub_explicit(&f->atlas_bytes, page_bytes(ft), memory_order_relaxed);
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
                "the glyph atlas of a %d px font has all its %d pages in use this frame: new "
                "characters wait for a page it does not draw from to be evicted",
                ft->size, MAX_PAGES);
}

static void log_table_full(ona__font *ft) {
    /* relaxed: only says whether this message was written already. */
    if (!atomic_exchange_explicit(&ft->table_logged, true, memory_order_relaxed))
        ona_log(ONA_LOG_WARN, "text",
                "a %d px font has met %d distinct characters, all it keeps: new ones are not drawn",
                ft->size, MAX_GLYPHS);
}

/* A page slot of `ft` other than `p` that holds no page, or MAX_PAGES. */
static uint32_t empty_page(ona__font *ft, uint32_t p) {
    for (uint32_t q = 0; q < MAX_PAGES; q++)
        /* relaxed: a hint; get_page's CAS decides who makes it. */
        if (q != p && atomic_load_explicit(&ft->pages[q].state, memory_order_relaxed) == PAGE_NONE)
            return q;
    return MAX_PAGES;
}

/* Claims `k` adjacent cells of one row of one page, moving the font's fill to an empty page slot
 * when its page is full: false when none can be had this frame. */
static bool claim_cells(ona__fonts *f, ona__font *ft, uint32_t k, uint32_t *page_out, uint32_t *col,
                        uint32_t *row) {
    for (;;) {
        /* relaxed: which page to fill is a hint; get_page publishes the page. */
        uint32_t p = atomic_load_explicit(&ft->fill, memory_order_relaxed);
        page *pg = get_page(f, ft, p);
        if (!pg)
            return false;
        /* relaxed: the counters only hand out distinct cells; nothing is published by them. The
         * load keeps a full page's counter from growing without end. */
        uint32_t n = atomic_load_explicit(&pg->next_cell, memory_order_relaxed);
        if (n + k <= ft->cells) {
            n = atomic_fetch_add_explicit(&pg->next_cell, k, memory_order_relaxed);
            if (n + k <= ft->cells) {
                uint32_t c = n % (uint32_t)ft->cols;
                if (c + k > (uint32_t)ft->cols)
                    continue; /* would cross the row's end: these cells stay unused */
                *page_out = p;
                *col = c;
                *row = n / (uint32_t)ft->cols;
                return true;
            }
        }
        uint32_t q = empty_page(ft, p);
        if (q == MAX_PAGES) {
            atomic_store_explicit(&ft->wants_page, true, memory_order_relaxed); /* main reads */
            log_full(ft);
            return false;
        }
        /* relaxed: as above; a lost race means another thread moved it. */
        atomic_compare_exchange_strong_explicit(&ft->fill, &p, q, memory_order_relaxed,
                                                memory_order_relaxed);
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

/* Loads glyph `index` of the font's file into its face's slot. File lock held. */
static FT_Error load_outline(font_file *file, FT_UInt index) {
    FT_Error err = FT_Load_Glyph(file->face, index, ONA__FT_LOAD_FLAGS);
    if (err == 0 && file->face->glyph->format != FT_GLYPH_FORMAT_OUTLINE)
        err = FT_Err_Invalid_Glyph_Format;
    return err;
}

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

/* Cells a glyph `w` texels wide claims (with its border), at most a row's. */
static uint32_t cells_of(const ona__font *ft, int w) {
    uint32_t k = (uint32_t)((w + 2 + ft->cell_w - 1) / ft->cell_w);
    return ONA_MIN(k, (uint32_t)ft->cols);
}

/* Fills a claimed slot with the glyph's metrics and bitmap box, then publishes it. The bitmap is
 * drawn into the atlas when first printed (place). FreeType calls hold the file's lock. */
static void make_glyph(ona__font *ft, glyph *g, uint32_t cp) {
    font_file *file = ft->file;
    uv_mutex_lock(&file->lock);
    FT_UInt index = FT_Get_Char_Index(file->face, cp);
    g->index = (int)index;
    g->advance = advance_of(ft, index);
    g->w = g->h = 0;
    g->x0 = g->y0 = 0;
    FT_Error err = load_outline(file, index);
    if (err == 0) {
        /* The box stb_truetype and FreeType's own renderer give: floor and ceiling of the
         * scaled control box. */
        FT_BBox box;
        FT_Outline_Get_CBox(&file->face->glyph->outline, &box);
        float l = floorf((float)box.xMin * ft->px), r = ceilf((float)box.xMax * ft->px);
        float t = ceilf((float)box.yMax * ft->px), b = floorf((float)box.yMin * ft->px);
        if (fabsf(l) < MAX_EXTENT && fabsf(r) < MAX_EXTENT && fabsf(t) < MAX_EXTENT &&
            fabsf(b) < MAX_EXTENT && r > l && t > b) {
            /* A glyph taller than the line (rare) is cut to the cell; one wider than a page's
             * row to the row. */
            g->x0 = (int16_t)l;
            g->y0 = (int16_t)-t;
            g->w = (uint16_t)ONA_MIN((int)(r - l), ft->cols * ft->cell_w - 2);
            g->h = (uint16_t)ONA_MIN((int)(t - b), ft->cell_h - 2);
        }
    } else {
        log_broken(file, cp, err);
    }
    uv_mutex_unlock(&file->lock);
    atomic_init(&g->spot, SPOT_NONE); /* before `ready`, which publishes it */
    /* release: a thread that sees ready reads the fields above. */
    atomic_store_explicit(&g->ready, 1, memory_order_release);
}

/* Claims cells for `g` and rasterises it into them: the spot to publish (placed, or refused this
 * frame). The caller holds the glyph (SPOT_BUSY). */
static uint64_t place_glyph(ona__fonts *f, ona__font *ft, glyph *g, uint64_t frame) {
    uint32_t p, col, row;
    if (!claim_cells(f, ft, cells_of(ft, g->w), &p, &col, &row))
        return spot_refused(frame);
    page *pg = &ft->pages[p];
    uint32_t x = col * (uint32_t)ft->cell_w + 1, y = row * (uint32_t)ft->cell_h + 1;
    font_file *file = ft->file;
    uv_mutex_lock(&file->lock);
    FT_Error err = load_outline(file, (FT_UInt)g->index);
    /* The cells are this thread's alone; main reads them only after the frame. */
    if (err == 0)
        err = rasterise(f, ft, g->x0, -g->y0, pg->alpha + (size_t)y * (size_t)ft->side + x, g->w,
                        g->h, ft->side);
    uv_mutex_unlock(&file->lock);
    if (err) {
        /* relaxed: the key was published before the glyph was made. */
        log_broken(file, atomic_load_explicit(&g->key, memory_order_relaxed) - 1, err);
        return spot_refused(frame);
    }
    ona__textures_touch(f->textures, pg->texture);
    /* relaxed: main reads it after the turns, which synchronise with it. */
    atomic_store_explicit(&pg->used, frame, memory_order_relaxed);
    return spot_placed(p, x, y, atomic_load_explicit(&pg->epoch, memory_order_relaxed));
}

bool ona__text_place(ona__fonts *f, ona__font *ft, glyph *g, ona__text_spot *out) {
    /* relaxed: main changes it between frames only (the turns synchronise with main). */
    uint64_t frame = atomic_load_explicit(&f->frame, memory_order_relaxed);
    for (;;) {
        /* acquire: pairs with the release below (the page's fields behind a placement). */
        uint64_t s = atomic_load_explicit(&g->spot, memory_order_acquire);
        if (SPOT_KIND(s) == SPOT_PLACED) {
            page *pg = &ft->pages[s & 7];
            /* relaxed: epochs change on main between frames only. */
            if ((uint32_t)(s >> 29) == atomic_load_explicit(&pg->epoch, memory_order_relaxed)) {
                /* relaxed: read by main after the turns; the load spares the cache line. */
                if (atomic_load_explicit(&pg->used, memory_order_relaxed) != frame)
                    atomic_store_explicit(&pg->used, frame, memory_order_relaxed);
                out->texture = pg->texture.id;
                out->x = (uint16_t)(s >> 3 & 0x1FFF);
                out->y = (uint16_t)(s >> 16 & 0x1FFF);
                return true;
            }
        } else if (SPOT_KIND(s) == SPOT_REFUSED && (s & SPOT_LOW) == (frame & SPOT_LOW)) {
            return false; /* tried this frame already */
        } else if (SPOT_KIND(s) == SPOT_BUSY) {
            spin();
            continue;
        }
        /* Not placed, placed on an evicted page, or refused in an earlier frame: the thread that
         * takes it places it. acquire on failure: see what the winner published. */
        if (!atomic_compare_exchange_strong_explicit(&g->spot, &s, (uint64_t)SPOT_BUSY << 62,
                                                     memory_order_acquire, memory_order_acquire))
            continue;
        uint64_t placed = place_glyph(f, ft, g, frame);
        /* release: a thread that sees the placement sees the page's fields and texture. */
        atomic_store_explicit(&g->spot, placed, memory_order_release);
        if (SPOT_KIND(placed) != SPOT_PLACED)
            return false;
    }
}

void ona__text_free_page(ona__fonts *f, ona__gfx *gfx, ona__font *ft, uint32_t p) {
    page *pg = &ft->pages[p];
    ona__textures_free_alpha(f->textures, gfx, pg->texture);
    ona__free(pg->alpha);
    pg->alpha = NULL;
    pg->texture.id = 0;
    /* relaxed: no print runs; the next turns synchronise with main. */
    atomic_store_explicit(&pg->next_cell, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&pg->epoch, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&f->atlas_bytes, page_bytes(ft), memory_order_relaxed);
    atomic_store_explicit(&pg->state, PAGE_NONE, memory_order_release);
}

/* The least recently used page of `only` (NULL: of every live font) not drawn from in `frame`:
 * false when every page was. */
static bool lru_page(ona__fonts *f, ona__font *only, uint64_t frame, ona__font **ft_out,
                     uint32_t *p_out) {
    uint64_t oldest = UINT64_MAX;
    for (uint32_t i = 0; i < f->font_count; i++) {
        ona__font *ft = atomic_load_explicit(&f->fonts[i], memory_order_relaxed); /* main's */
        if (only && ft != only)
            continue;
        for (uint32_t p = 0; p < MAX_PAGES; p++) {
            page *pg = &ft->pages[p];
            /* relaxed: main, after the turns; they synchronised with it. */
            uint64_t used = atomic_load_explicit(&pg->used, memory_order_relaxed);
            if (atomic_load_explicit(&pg->state, memory_order_relaxed) == PAGE_READY &&
                used < frame && used < oldest) {
                oldest = used;
                *ft_out = ft;
                *p_out = p;
            }
        }
    }
    return oldest != UINT64_MAX;
}

void ona__text_evict(ona__fonts *f, ona__gfx *gfx) {
    uint64_t frame = atomic_load_explicit(&f->frame, memory_order_relaxed);
    uint64_t want = atomic_exchange_explicit(&f->atlas_refused, 0, memory_order_relaxed);
    ona__font *ft;
    uint32_t p;
    /* Room for what this frame was refused, taken from pages no print drew from this frame. */
    while (want > 0 &&
           atomic_load_explicit(&f->atlas_bytes, memory_order_relaxed) + want > f->atlas_limit &&
           lru_page(f, NULL, frame, &ft, &p))
        ona__text_free_page(f, gfx, ft, p);
    /* A font whose page slots were all in use gets back its least recently used one. */
    for (uint32_t i = 0; i < f->font_count; i++) {
        ona__font *font = atomic_load_explicit(&f->fonts[i], memory_order_relaxed);
        if (atomic_exchange_explicit(&font->wants_page, false, memory_order_relaxed) &&
            lru_page(f, font, frame, &ft, &p))
            ona__text_free_page(f, gfx, ft, p);
    }
}

static uint32_t hash(uint32_t cp) {
    return (cp * 2654435761u) >> 20; /* Knuth's multiplicative hash, top 12 bits */
}

/* The glyph of `cp`, made on first use when `make`; NULL when not cached (and not made). */
static glyph *get_glyph(ona__font *ft, uint32_t cp, bool make) {
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
                    log_table_full(ft);
                return NULL;
            }
            uint32_t expected = 0;
            /* acq_rel: the winner owns the slot; a loser reads the key that won. */
            if (atomic_compare_exchange_strong_explicit(
                    &g->key, &expected, key, memory_order_acq_rel, memory_order_acquire)) {
                atomic_fetch_add_explicit(&ft->glyph_count, 1, memory_order_relaxed);
                make_glyph(ft, g, cp);
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
ona__text_metrics ona__text_measure_cp(ona__font *ft, uint32_t cp, bool make) {
    ona__text_metrics m = {.index = -1};
    if (!ft->file) {
        m.advance = (float)ft->size;
        return m;
    }
    m.g = get_glyph(ft, cp, make);
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
