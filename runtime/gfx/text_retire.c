/*
 * text_retire.c: freeing the fonts a reload replaced (text.h: ona__fonts_collect), and the count
 * of measures that makes it safe (text_internal.h: ona__text_enter, ona__text_leave).
 *
 * Design note. A reload (text.c, main at the frame boundary) publishes fresh fonts under the old
 * handles and puts the old fonts and file on the registry's retired lists. Prints run only inside
 * turns, so after the turns none holds an old font; measures may run on any thread at any time,
 * so each counts itself in and out, and the collector (main, after the turns) frees the retired
 * fonts, their atlas pages' textures (GL included) and the old file only while the count is 0.
 * The count and the font pointers are ordered Dekker-style with seq_cst on every side, in place
 * of fences, so TSan can follow it: a measure either sees the fresh font, or is seen by the
 * collector, which then tries again at its next call.
 */
#include "text_internal.h"

#include "common.h"

/* Dekker-style, seq_cst in place of fences (so TSan can follow it): a reader counts itself, then
 * loads a font pointer (ona__text_font_of); a reload stores the new pointers, and the collector
 * then reads the count; all four are seq_cst, so either the reader sees the new font or the
 * collector sees the reader and keeps the old one. */
void ona__text_enter(ona__fonts *f) {
    atomic_fetch_add_explicit(&f->measuring, 1, memory_order_seq_cst);
}

void ona__text_leave(ona__fonts *f) {
    /* release: the reader's reads of the font happen before a collector that sees the count. */
    atomic_fetch_sub_explicit(&f->measuring, 1, memory_order_release);
}

void ona__fonts_collect(ona__fonts *f, ona__gfx *gfx) {
    uv_mutex_lock(&f->lock);
    ona__text_evict(f, gfx);
    /* relaxed: the next turns synchronise with main. */
    atomic_fetch_add_explicit(&f->frame, 1, memory_order_relaxed);
    bool any = f->retired_fonts_count || f->retired_files_count;
    uv_mutex_unlock(&f->lock);
    if (!any)
        return;
    /* seq_cst: see ona__text_enter; and it pairs with ona__text_leave's release, so a measure that
     * left is done with the old fonts. */
    if (atomic_load_explicit(&f->measuring, memory_order_seq_cst) != 0)
        return; /* a measure runs: the next call tries again */
    uv_mutex_lock(&f->lock);
    for (uint32_t i = 0; i < f->retired_fonts_count; i++) {
        ona__font *ft = f->retired_fonts[i];
        for (uint32_t p = 0; p < MAX_PAGES; p++) /* acquire: a page made is complete (get_page) */
            if (atomic_load_explicit(&ft->pages[p].state, memory_order_acquire) == PAGE_READY)
                ona__text_free_page(f, gfx, ft, p);
        ona__text_free_font(ft);
    }
    for (uint32_t i = 0; i < f->retired_files_count; i++)
        ona__text_free_file(f->retired_files[i]);
    f->retired_fonts_count = f->retired_files_count = 0;
    uv_mutex_unlock(&f->lock);
}
