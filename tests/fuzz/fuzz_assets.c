/*
 * fuzz_assets.c: the asset-decoder fuzz entries (fuzz_assets.h): fonts (FreeType through
 * text.c), sounds and music (SDL's WAV reader, libvorbisfile through sound.c) and textures
 * (libpng through texture.c), fed untrusted bytes.
 *
 * Design note. One file, several builds, as fuzz_message.c: with ONA_BUILD_FUZZ and clang it is
 * compiled once per target with ONA_FUZZ_TARGET naming the entry that LLVMFuzzerTestOneInput
 * calls (fuzz_font, fuzz_sound, fuzz_music, fuzz_image); everywhere it is also compiled plainly
 * into test_fuzz_corpus, which replays tests/fuzz/corpus/<name>/ through the same entries. The
 * decoders read files, so each input is written to a scratch file first (a tmpfs when there
 * is one; see setup). Registries are made fresh per input (a registry never reuses slots, so one
 * kept across inputs would fill up). A refused font falls back to the default font, and loading
 * DejaVu Sans costs ~15 ms; so unless ONA_FONT_DIR is set, the default font is the corpus's
 * 4 KB square font, copied into the scratch folder under the default's name, which keeps a
 * refused input as cheap as an accepted one. FreeType, libvorbis and libpng are Debian's,
 * not instrumented: coverage guides the fuzzer through our code around them, and ASan sees
 * every read and write they make into our buffers.
 */
#include "fuzz_assets.h"

#include "ona/ona.h"
#include "sound.h"
#include "text.h"
#include "texture.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ONA_SOURCE_DIR
#define ONA_SOURCE_DIR "."
#endif

static char scratch[256];    /* the scratch folder */
static char input_path[300]; /* the scratch file */

static void fail(const char *what) {
    fprintf(stderr, "fuzz_assets: %s (input %s)\n", what, input_path);
    abort();
}

static void remove_input(void) {
    unlink(input_path);
}

static void copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[4096];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            break;
    if (out)
        fclose(out);
    if (in)
        fclose(in);
}

/* Finds the scratch folder once: one per user, reused by every run (libFuzzer ends with _Exit,
 * so a folder per run would stay behind), with the small default font unless ONA_FONT_DIR is
 * set; the font is copied under a name of this process's, then renamed into place, so runs at
 * once never read half a copy. Each process writes its inputs to files of its own. */
static void setup(void) {
    if (scratch[0])
        return;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/ona-fuzz-%u", base, (unsigned)getuid());
    if (mkdir(scratch, 0700) != 0 && errno != EEXIST)
        fail("cannot make a scratch folder");
    atexit(remove_input);
    if (!getenv("ONA_FONT_DIR")) {
        char font[320], part[340];
        snprintf(font, sizeof font, "%s/DejaVuSans.ttf", scratch);
        snprintf(part, sizeof part, "%s.%ld", font, (long)getpid());
        copy_file(ONA_SOURCE_DIR "/tests/fuzz/corpus/font/good-square.ttf", part);
        if (rename(part, font) != 0)
            unlink(part);
        setenv("ONA_FONT_DIR", scratch, 1);
    }
}

static const char *write_input(const char *name, const uint8_t *data, size_t size) {
    setup();
    snprintf(input_path, sizeof input_path, "%s/%ld-%s", scratch, (long)getpid(), name);
    FILE *f = fopen(input_path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fail("cannot write the scratch file");
    return input_path;
}

const char *ona_fuzz_input_path(void) {
    return input_path;
}

/* --- Fonts ----------------------------------------------------------------------------------- */

static const char sample[] = "Hello, World! 0123 AVAWToTy fi fl ~`{}|\n\xc3\xa9\xc3\xa0\xc3\xbc "
                             "\xe2\x82\xac \xce\xa9\xce\xbb \xd0\x96 \xff\xc0\xaf\xed\xa0\x80 end";

typedef struct sprites_seen {
    uint32_t count;
} sprites_seen;

static int check_sprites(void *user, uint32_t texture, const ona_sprite *s, uint32_t count) {
    (void)texture;
    sprites_seen *seen = user;
    for (uint32_t i = 0; i < count; i++) {
        if (!isfinite(s[i].x) || !isfinite(s[i].y) || s[i].src_w <= 0 || s[i].src_h <= 0 ||
            s[i].src_x < 0 || s[i].src_y < 0 || s[i].src_x + s[i].src_w > 4096 ||
            s[i].src_y + s[i].src_h > 4096)
            fail("a glyph sprite outside its atlas or at a non-finite place");
    }
    seen->count += count;
    return 0;
}

static void exercise_font(ona__fonts *fonts, ona_font font) {
    if (font.id == 0)
        fail("no font handed out");
    float lh = ona__text_line_height(fonts, font);
    if (!isfinite(lh) || lh < 1)
        fail("a line height below 1 or not finite");
    ona_text_desc wrap = {.width = 120, .wrap = true, .align = ONA_ALIGN_CENTER};
    const ona_text_desc *descs[] = {NULL, &wrap};
    for (int d = 0; d < 2; d++) {
        float w = -1, h = -1;
        if (ona__text_measure(fonts, font, sample, sizeof sample - 1, descs[d], &w, &h) != 0)
            fail("measure failed");
        if (!isfinite(w) || !isfinite(h) || w < 0 || h < lh)
            fail("a measure not finite, negative, or lower than a line");
        sprites_seen seen = {0};
        if (ona__text_print(fonts, font, sample, sizeof sample - 1, 10, 10, descs[d], check_sprites,
                            &seen) != 0)
            fail("print failed");
    }
}

int ona_fuzz_font(const uint8_t *data, size_t size) {
    const char *path = write_input("input.ttf", data, size);
    static ona__textures textures;
    ona__fonts *fonts = NULL;
    if (ona__textures_init(&textures) != 0 || ona__fonts_create(&textures, &fonts) != 0)
        fail("cannot make the registries");
    static const int sizes[] = {24, 7};
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        ona_font font = {0};
        int r = ona__fonts_load(fonts, path, sizes[i], "fuzz", &font);
        if (i == 0)
            rc = r;
        else if ((r == 0) != (rc == 0))
            fail("the same file loaded at one size and not at another");
        exercise_font(fonts, font);
    }
    if (rc == 0) {
        if (ona__fonts_reload(fonts, path) != 0)
            fail("a file that loaded did not reload");
        ona_font font = {0};
        ona__fonts_load(fonts, path, 24, "fuzz", &font);
        exercise_font(fonts, font);
    }
    ona__fonts_destroy(fonts);
    ona__textures_free(&textures, NULL);
    return rc;
}

/* --- Sounds and music ------------------------------------------------------------------------ */

static void check_samples(const float *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(s[i]) || s[i] < -1.0001f || s[i] > 1.0001f)
            fail("a sample not finite or outside -1..1");
}

int ona_fuzz_sound(const uint8_t *data, size_t size) {
    const char *path = write_input("input.snd", data, size);
    ona__pcm *pcm = NULL;
    int rc = ona__sound_decode(path, "fuzz", &pcm);
    if (rc != 0 && pcm)
        fail("a pcm handed out with an error");
    if (rc == 0) {
        if (!pcm || pcm->count > ONA__MAX_SOUND_FRAMES || (pcm->count && !pcm->frames))
            fail("a decoded sound without samples or over 10 minutes");
        check_samples(pcm->frames, (size_t)pcm->count * 2);
    }
    ona__pcm_free(pcm);
    return rc;
}

int ona_fuzz_music(const uint8_t *data, size_t size) {
    const char *path = write_input("input.mus", data, size);
    ona__stream *s = ona__music_open(path, true);
    if (!s)
        return ONA_EFORMAT;
    static float out[4096 * 2];
    for (int i = 0; i < 8; i++) {
        uint32_t got = s->read(s, out, 4096);
        if (got > 4096)
            fail("a read returned more frames than asked");
        check_samples(out, (size_t)got * 2);
    }
    s->close(s);
    return 0;
}

/* --- Images ---------------------------------------------------------------------------------- */

int ona_fuzz_image(const uint8_t *data, size_t size) {
    const char *path = write_input("input.png", data, size);
    static ona__textures textures;
    if (ona__textures_init(&textures) != 0)
        fail("cannot make the texture registry");
    ona_texture tex = {0};
    int rc = ona__textures_load(&textures, path, "fuzz", &tex);
    int w = 0, h = 0;
    if (!ona__textures_size(&textures, tex, &w, &h))
        fail("no texture handed out");
    if (rc == 0 && (w < 1 || h < 1 || w > 16384 || h > 16384))
        fail("an accepted image of an impossible size");
    ona__textures_free(&textures, NULL);
    return rc;
}

/* --- libFuzzer ------------------------------------------------------------------------------- */

#ifdef ONA_FUZZ_TARGET
static void quiet(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    (void)level;
    (void)where;
    (void)message;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int once;
    if (!once++ && !getenv("ONA_FUZZ_VERBOSE"))
        ona_log_set_sink(quiet, NULL, ONA_LOG_ERROR);
    ONA_FUZZ_TARGET(data, size);
    return 0;
}
#endif
