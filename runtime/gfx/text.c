/*
 * text.c: the font registry: TrueType fonts (a file at a pixel size) by handle, loaded, found
 * and replaced on reload (text.h, ona/text.h). Files are read and checked in text_file.c, glyphs
 * cached and rasterised into the atlas in text_glyphs.c, UTF-8 laid out in text_layout.c, and
 * replaced fonts freed in text_retire.c; what they share is in text_internal.h.
 *
 * Design note.
 * - A font is a file at a pixel size. Files are read once and their bytes and face shared by
 *   every size; fonts are not unloaded before the runtime goes. A reload (main, between frames)
 *   replaces a file's fonts by fresh ones under the same handles; the old fonts, their atlas
 *   pages and their file are freed later (text_retire.c), once no measure reads a font. Loading
 *   takes the registry's mutex; printing takes only the file's lock, for glyphs not cached yet.
 *   A font is published in `fonts[]` with a release store, so a thread that sees a handle sees
 *   the whole font.
 * - Threads: one FT_Library per registry. Faces are made and freed under the registry's mutex
 *   (FreeType's rule for a library shared by threads: text_retire.c frees a retired file under
 *   it too).
 * - The font used when even the default file cannot be read is the built-in 8x8 debug font
 *   (font.c), scaled to the size: text never disappears for a missing file.
 */
#include "text_internal.h"

#include "common.h"

#include <math.h>

void ona__text_free_font(ona__font *ft) {
    for (int p = 0; p < MAX_PAGES; p++)
        ona__free(ft->pages[p].alpha);
    ona__free(ft);
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
        int ascent = file->ascent, descent = file->descent, gap = file->gap;
        ft->px = (float)size / (float)(ascent - descent);
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
    atomic_init(&ft->fill, 0);
    atomic_init(&ft->glyph_count, 0);
    atomic_init(&ft->full_logged, false);
    atomic_init(&ft->table_logged, false);
    atomic_init(&ft->wants_page, false);
    for (int i = 0; i < MAX_PAGES; i++) {
        atomic_init(&ft->pages[i].state, PAGE_NONE);
        atomic_init(&ft->pages[i].epoch, 0);
        atomic_init(&ft->pages[i].next_cell, 0);
        atomic_init(&ft->pages[i].used, 0);
    }
    for (int i = 0; i < TABLE_SIZE; i++) {
        atomic_init(&ft->table[i].key, 0);
        atomic_init(&ft->table[i].ready, 0);
        atomic_init(&ft->table[i].spot, 0);
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
    if (FT_Init_FreeType(&f->library) != 0) {
        ona__free(f);
        return ONA_ENOMEM;
    }
    if (uv_mutex_init(&f->lock)) {
        FT_Done_FreeType(f->library);
        ona__free(f);
        return ONA_ENOMEM;
    }
    f->textures = textures;
    for (int i = 0; i < ONA__MAX_FONTS; i++)
        atomic_init(&f->fonts[i], NULL);
    atomic_init(&f->measuring, 0);
    f->atlas_limit = ONA_ATLAS_MEMORY_DEFAULT;
    atomic_init(&f->atlas_bytes, 0);
    atomic_init(&f->atlas_refused, 0);
    atomic_init(&f->over_logged, false);
    atomic_init(&f->frame, 1); /* pages start as last used in frame 0: before every frame */
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
    FT_Done_FreeType(f->library);
    uv_mutex_destroy(&f->lock);
    ona__free(f);
}

int ona__fonts_load(ona__fonts *f, const char *path, int size, const char *who, ona_font *out) {
    if (out)
        out->id = 0;
    if (!f || !out || size < 1 || size > ONA_FONT_MAX_SIZE)
        return ONA_EINVAL;
    uv_mutex_lock(&f->lock);
    if (!f->default_path[0] && !ona__text_find_default(f->default_path, sizeof f->default_path))
        ona_log(ONA_LOG_ERROR, who,
                "default font %s not found (install fonts-dejavu-core or set ONA_FONT_DIR); "
                "text uses the built-in 8x8 font instead",
                ONA__DEFAULT_FONT_FILE);
    font_file *file = NULL;
    char why[256], ignored[256];
    int rc = ona__text_get_file(f, path ? path : f->default_path, &file, why, sizeof why);
    if (rc) {
        int fallback =
            path ? ona__text_get_file(f, f->default_path, &file, ignored, sizeof ignored) : rc;
        if (fallback)
            file = NULL;
        ona_log(ONA_LOG_ERROR, who, "font %s: %s; using %s instead", path ? path : f->default_path,
                ona__text_file_error(rc, why), file ? "the default font" : "the built-in 8x8 font");
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
    char why[256];
    if (rc == 0) {
        strcpy(copy, path);
        file->path = copy;
        rc = ona__text_read_file(f->library, path, file, why, sizeof why);
        if (rc)
            ona_log(ONA_LOG_ERROR, "hot reload", "font %s: %s", path,
                    ona__text_file_error(rc, why));
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
        if (file && file->face) {
            file->path = NULL; /* `copy`, freed below */
            ona__text_free_file(file);
        } else if (file) {
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

void ona__fonts_set_atlas_memory(ona__fonts *f, uint64_t bytes) {
    f->atlas_limit = bytes ? bytes : ONA_ATLAS_MEMORY_DEFAULT;
}

uint64_t ona__fonts_atlas_bytes(ona__fonts *f) {
    /* relaxed: a figure for stats and tests, read between frames. */
    return f ? atomic_load_explicit(&f->atlas_bytes, memory_order_relaxed) : 0;
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
