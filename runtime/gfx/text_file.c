/*
 * text_file.c: font files: reading one, opening it with FreeType and checking what FreeType
 * opened, before any font of the registry (text.c) shares its face; and finding the default
 * font. What text.c and the glyph cache (text_glyphs.c) call here is in text_internal.h.
 *
 * Design note. Font files are untrusted: FreeType opens them (FT_New_Memory_Face over bytes read
 * once) and check_face refuses, with the reason, one without a Unicode cmap, without height, or
 * with a glyph the cmap reaches that does not load, so a broken file is named at load rather than
 * half way through a frame. Faces are made and freed under the registry's mutex (FreeType's rule
 * for a library shared by threads); every call here runs with it held, before the face is shared.
 */
#include "text_internal.h"

#include "common.h"
#include "paths.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

#ifndef ONA_INSTALL_FONT_DIR
#define ONA_INSTALL_FONT_DIR "/usr/local/share/ona/fonts"
#endif
#ifndef ONA_BUILD_FONT_DIR
#define ONA_BUILD_FONT_DIR "share/ona/fonts"
#endif
#define DEBIAN_FONT_DIR "/usr/share/fonts/truetype/dejavu"

enum { MAX_FILE_SIZE = 64 << 20 }; /* the largest font file read */

/* FreeType's error texts (FT_Error_String is compiled out of Debian's build): the table its
 * header builds when asked to. */
/* clang-format off */
#undef FTERRORS_H_
#define FT_ERRORDEF(e, v, s) {v, s},
#define FT_ERROR_START_LIST {
#define FT_ERROR_END_LIST {0, NULL}};
static const struct {
    int code;
    const char *text;
} ft_errors[] =
#include FT_ERRORS_H

const char *ona__text_ft_error(FT_Error err) {
    for (int i = 0; ft_errors[i].text; i++)
        if (ft_errors[i].code == err)
            return ft_errors[i].text;
    return "unknown FreeType error";
}

/* Checks what FreeType opened: a scalable face with a Unicode char map, a height, and glyphs that
 * all load. Writes what is wrong to `why`; false then. Called before the face is shared. */
static bool check_face(font_file *file, char *why, size_t size) {
    FT_Face face = file->face;
    if (!FT_IS_SCALABLE(face) || face->units_per_EM == 0) {
        snprintf(why, size, "has no outlines (a bitmap-only font)");
        return false;
    }
    if (FT_Select_Charmap(face, FT_ENCODING_UNICODE) != 0) {
        snprintf(why, size, "its character map (cmap) is broken or has no Unicode table");
        return false;
    }
    file->ascent = face->ascender;
    file->descent = face->descender;
    file->gap = face->height - (face->ascender - face->descender);
    if (file->ascent - file->descent <= 0) {
        snprintf(why, size, "zero height: its ascender (%d) is not above its descender (%d)",
                 file->ascent, file->descent);
        return false;
    }
    /* Every glyph the char map reaches is loaded once, so that a broken outline, offset or
     * composite is found here, by name, rather than half way through a frame. Each glyph is
     * checked once however many characters map to it. */
    if (face->num_glyphs < 1 || face->num_glyphs > 65536) {
        snprintf(why, size, "it claims %ld glyphs (maxp)", (long)face->num_glyphs);
        return false;
    }
    uint8_t *seen = ona__calloc(((size_t)face->num_glyphs + 7) / 8, 1);
    if (!seen) {
        snprintf(why, size, "out of memory");
        return false;
    }
    FT_UInt index = 0;
    uint32_t mapped = 0, drawn = 0; /* characters mapped; glyphs with an outline */
    bool ok = true;
    /* Code points past U+10FFFF are never asked for, and a forged format 13 group may map all
     * 2^32 of them: the walk stops there (the char codes it yields only increase). */
    for (FT_ULong cp = FT_Get_First_Char(face, &index); ok && index != 0 && cp <= 0x10FFFF;
         cp = FT_Get_Next_Char(face, cp, &index)) {
        mapped++;
        if ((FT_Long)index < face->num_glyphs && (seen[index / 8] >> (index % 8) & 1))
            continue;
        FT_Error err = (FT_Long)index < face->num_glyphs ? FT_Load_Glyph(face, index, ONA__FT_LOAD_FLAGS)
                                                         : FT_Err_Invalid_Glyph_Index;
        if (err == 0 && face->glyph->format != FT_GLYPH_FORMAT_OUTLINE)
            err = FT_Err_Invalid_Glyph_Format;
        if (err) {
            snprintf(why, size, "the glyph of U+%04lX (glyph %u) is broken: %s", (unsigned long)cp,
                     index, ona__text_ft_error(err));
            ok = false;
        } else {
            seen[index / 8] |= (uint8_t)(1u << (index % 8));
            drawn += face->glyph->outline.n_points > 0;
        }
    }
    ona__free(seen);
    if (!ok)
        return false;
    /* FreeType reads a glyph whose offset lies outside the glyf table as empty: a font where
     * every glyph is empty has lost its outlines. */
    if (mapped > 0 && drawn == 0) {
        snprintf(why, size, "every glyph is empty (its loca or glyf table is broken)");
        return false;
    }
    FT_Error err = FT_Load_Glyph(face, 0, ONA__FT_LOAD_FLAGS); /* the missing-glyph box */
    if (err) {
        snprintf(why, size, "its missing-glyph box (glyph 0) is broken: %s", ona__text_ft_error(err));
        return false;
    }
    if (mapped == 0) {
        snprintf(why, size, "its character map (cmap) maps no character");
        return false;
    }
    file->kerning = FT_HAS_KERNING(face);
    return true;
}

/* Reads the font file at `path` into `file` (data, face, metrics). Called with the registry's
 * lock held (faces are made under it). On failure `why` says what is wrong. */
int ona__text_read_file(FT_Library library, const char *path, font_file *file, char *why,
                          size_t why_size) {
    size_t size = 0;
    snprintf(why, why_size, "not a TrueType font");
    int rc = ona__read_file(path, MAX_FILE_SIZE, &file->data, &size);
    if (rc == 0) {
        FT_Error err = FT_New_Memory_Face(library, file->data, (FT_Long)size, 0, &file->face);
        if (err) {
            file->face = NULL; /* `why` stays "not a TrueType font": FreeType found no font */
            rc = ONA_EFORMAT;
        } else if (!check_face(file, why, why_size)) {
            rc = ONA_EFORMAT;
        } else if (uv_mutex_init(&file->lock) != 0) {
            rc = ONA_ENOMEM;
        }
    }
    if (rc) {
        if (file->face)
            FT_Done_Face(file->face);
        file->face = NULL;
        ona__free(file->data);
        file->data = NULL;
    }
    atomic_init(&file->broken_logged, false);
    return rc;
}

/* Main, when the registry goes or a retired file is collected, with the registry's lock held
 * or no other thread left (faces are freed as FreeType's rule for a shared library says). */
void ona__text_free_file(font_file *file) {
    FT_Done_Face(file->face);
    uv_mutex_destroy(&file->lock);
    ona__free(file->data);
    ona__free(file->path);
    ona__free(file);
}

/* Finds or reads a file. Called with the lock held. `why` says what is wrong with a file that
 * cannot be used. */
int ona__text_get_file(ona__fonts *f, const char *path, font_file **out, char *why, size_t why_size) {
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
    int rc = ona__text_read_file(f->library, path, file, why, why_size);
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
bool ona__text_find_default(char *buf, size_t size) {
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
        snprintf(buf, size, "%.*s/%s", PATH_MAX - 32, dirs[i], ONA__DEFAULT_FONT_FILE);
        if (access(buf, R_OK) == 0) {
            ona_log(ONA_LOG_DEBUG, "text", "default font %s", buf);
            return true;
        }
    }
    return false;
}

/* What the log says of a file that could not be used: `why` for a format error (read_font's
 * reason). */
const char *ona__text_file_error(int rc, const char *why) {
    switch (rc) {
    case ONA_ENOENT:
        return "no such file";
    case ONA_EFORMAT:
        return why;
    case ONA_ELIMIT:
        return "too large, or too many font files";
    default:
        return ona_strerror(rc);
    }
}
