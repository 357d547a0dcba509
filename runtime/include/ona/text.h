/*
 * ona/text.h: text with real fonts: TrueType fonts at a pixel size, UTF-8
 * text laid out (alignment in a box, word wrap, newlines, kerning) and drawn through the sprite
 * path, and its measure.
 *
 * A font is a TTF file at a pixel size; the file's bytes are shared by every size loaded from it.
 * Glyphs are rasterised on first use, by whichever thread prints them, into atlas textures that
 * the main thread uploads after the frame's turns; printing takes no lock. The picture does not
 * depend on the number of threads. Fonts live as long as their runtime.
 */
#ifndef ONA_TEXT_H
#define ONA_TEXT_H

#include "ona/gfx.h"
#include "ona/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A font handle: a file at a pixel size. 0 is invalid. */
typedef struct ona_font {
    uint32_t id;
} ona_font;

typedef enum ona_text_align {
    ONA_ALIGN_LEFT = 0,
    ONA_ALIGN_CENTER,
    ONA_ALIGN_RIGHT,
} ona_text_align;

/* How a text is laid out and drawn. Every 0 means the default. */
typedef struct ona_text_desc {
    /* Each line's place: with width > 0, inside the box [x, x + width]; with width 0, x is the
     * line's left end, centre or right end. */
    ona_text_align align;
    float width;   /* the box's width in world units (scaled); 0: no box */
    bool wrap;     /* break lines at spaces (or inside a word longer than the box) to fit width */
    uint32_t tint; /* ona_sprite's 0xAABBGGRR; 0 = opaque white */
    int layer;
    float scale; /* 1 = the font's pixel size in world units; 0 = 1 */
} ona_text_desc;

/* The default bound on all fonts' glyph atlas pages (ona_runtime_desc.atlas_memory): 32 MiB of
 * coverage, two pages of a large font, 32 of a 48 px one. */
#define ONA_ATLAS_MEMORY_DEFAULT ((uint64_t)32 << 20)

/* The largest pixel size a font may have. */
#define ONA_FONT_MAX_SIZE 512

/* Loads the TTF at `path` (a file path, not resolved against the script roots; NULL = the
 * default font, DejaVu Sans, shipped with the runtime) at `size` pixels (the height from the
 * highest ascender to the lowest descender), or returns the handle it already has. Any thread
 * (a native system may call it from its callbacks with ona_ctx_runtime(ctx)).
 * Errors: ONA_EINVAL (no runtime or out, size outside 1..ONA_FONT_MAX_SIZE), ONA_ENOENT (no such
 * file), ONA_EFORMAT (not a TrueType font), ONA_EIO, ONA_ELIMIT (too many fonts), ONA_ENOMEM.
 * On a file error the file is named in the log and *out is still set to the default font at that
 * size, so text stays visible; when the default font itself cannot be read, to a font drawn with
 * the built-in 8x8 debug glyphs. */
ONA_API int ona_runtime_font_load(ona_runtime *rt, const char *path, int size, ona_font *out);

/* Draws UTF-8 `text` (`length` bytes; invalid bytes draw U+FFFD) with its top-left at (x, y)
 * (see ona_text_desc for the box), in the calling system's part of the frame, like ona_ctx_draw.
 * Callbacks of a native system only; no lock. Characters the font lacks draw its missing-glyph
 * box. Errors: ONA_EINVAL (NULL ctx, NULL text with a length, a desc field out of range, non-finite
 * x or y), ONA_ESTALE (not a font of this runtime), ONA_ETHREAD (outside a turn), ONA_ENOMEM. */
ONA_API int ona_ctx_print(ona_ctx *ctx, ona_font font, const char *text, size_t length, float x,
                          float y, const ona_text_desc *desc);

/* The size of the box `text` takes when printed with `desc` (align, tint and layer are ignored):
 * the widest line's width and the lines' total height, in world units. Any thread; desc may be
 * NULL, and so may width or height. Errors: ONA_EINVAL (NULL runtime, NULL text with a length, a
 * desc field out of range), ONA_ESTALE (not a font of this runtime). */
ONA_API int ona_font_measure(ona_runtime *rt, ona_font font, const char *text, size_t length,
                             const ona_text_desc *desc, float *width, float *height);

/* The font's line height (the distance between baselines) in pixels at scale 1, or 0 for a
 * stale handle. Any thread. */
ONA_API float ona_font_line_height(ona_runtime *rt, ona_font font);

#ifdef __cplusplus
}
#endif

#endif /* ONA_TEXT_H */
