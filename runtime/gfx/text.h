/*
 * text.h: TrueType fonts, UTF-8 layout and the glyph atlas (text.c: the font registry;
 * text_file.c: font files; text_glyphs.c: the glyph cache and atlas; text_layout.c: UTF-8 and
 * layout; text_internal.h: what they share). Internal; no Lua.
 */
#ifndef ONA_GFX_TEXT_H
#define ONA_GFX_TEXT_H

#include "ona/text.h"

#include "texture.h"

#define ONA__MAX_FONTS 256

typedef struct ona__fonts ona__fonts;

/* Makes the font registry of a video; atlas pages become textures of `textures`, which borrow
 * the pages' pixels: free the textures first, then the fonts. Main thread. Errors: ONA_ENOMEM. */
int ona__fonts_create(ona__textures *textures, ona__fonts **out);
void ona__fonts_destroy(ona__fonts *f);

/* The bound on all fonts' glyph atlas pages, in bytes of coverage (0: ONA_ATLAS_MEMORY_DEFAULT);
 * main thread, before any print. The bytes the pages hold now; main, between frames. */
void ona__fonts_set_atlas_memory(ona__fonts *f, uint64_t bytes);
uint64_t ona__fonts_atlas_bytes(ona__fonts *f);

/* ona_runtime_font_load's work (see ona/text.h): `path` is a file path (NULL = the default
 * font); errors are logged under `who`. Any thread. */
int ona__fonts_load(ona__fonts *f, const char *path, int size, const char *who, ona_font *out);

/* Main thread, at the frame boundary (no turn runs): reads the font file `path` again; every
 * font made from it is replaced by one of the new file under the same handle (new metrics, an
 * empty glyph cache, new atlas pages). ONA_ENOENT when no font came from that file, or the
 * read error (the old fonts stay). */
int ona__fonts_reload(ona__fonts *f, const char *path);

/* Main thread, after the turns (no print runs), once a frame: evicts least recently used atlas
 * pages that this frame did not draw from where the frame was refused pages for the bound; frees
 * the fonts, atlas pages (their textures, GL included: gfx may be NULL) and files that reloads
 * replaced, once no measure is reading a font (otherwise they wait for a later call); then
 * starts the next frame's count. */
void ona__fonts_collect(ona__fonts *f, ona__gfx *gfx);

/* Receives the sprites of a print, in drawing order, in runs sharing one texture. Returns 0 or
 * an error, which stops the print and is returned by it. */
typedef int (*ona__text_emit)(void *user, uint32_t texture, const ona_sprite *sprites,
                              uint32_t count);

/* Lays out and emits `text` (see ona_ctx_print). Rasterises glyphs seen for the first time into
 * the atlas: call it only inside a turn (the atlas is uploaded by main after the turns), from
 * any thread, with no lock. Errors: ONA_ESTALE (font), ONA_EINVAL (desc), the emitter's. */
int ona__text_print(ona__fonts *f, ona_font font, const char *text, size_t length, float x, float y,
                    const ona_text_desc *desc, ona__text_emit emit, void *user);

/* ona_font_measure's work; never touches the atlas, so any thread at any time. */
int ona__text_measure(ona__fonts *f, ona_font font, const char *text, size_t length,
                      const ona_text_desc *desc, float *width, float *height);

/* The line height in pixels at scale 1, 0 for a stale handle. */
float ona__text_line_height(ona__fonts *f, ona_font font);

/* Checks desc's fields; NULL when fine, else what is wrong. */
const char *ona__text_check_desc(const ona_text_desc *desc);

/* Decodes one code point of UTF-8 at text[*i] (i < length) and advances *i past it. A byte
 * sequence that is not UTF-8 (stray continuation byte, overlong form, surrogate, above U+10FFFF,
 * cut short) gives U+FFFD for each maximal invalid part, as the WHATWG decoder does. */
uint32_t ona__utf8_next(const char *text, size_t length, size_t *i);

#endif
