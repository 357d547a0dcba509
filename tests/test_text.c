/*
 * test_text.c: text with real fonts: UTF-8 decoding, measure, font loading
 * errors, golden images of printed text (offscreen SDL + Mesa llvmpipe), the same pixels on 1
 * and 2 threads with text printed from several Lua systems and a native one, and Lua misuse.
 *
 * Goldens live in tests/golden/text_<scene>.png. ONA_UPDATE_GOLDEN=1 rewrites them from this
 * code's output instead of comparing (look at them before committing).
 */
#include "test_support.h"

#include "text.h"

#include <stb_image.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

enum { W = 240, H = 120 };

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("text");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
}

static ona_runtime *make_runtime(uint32_t threads, ona_video video) {
    static const char *roots[2];
    roots[0] = game_dir();
    roots[1] = NULL;
    ona_runtime_desc desc = {
        .threads = threads,
        .script_roots = roots,
        .video = video,
        .window = {.width = W, .height = H, .vsync = ONA_VSYNC_OFF},
    };
    return create_runtime(&desc);
}

/* --- UTF-8 ---------------------------------------------------------------------------------- */

/* Decodes all of `s` into out; returns the count. */
static int decode(const char *s, size_t n, uint32_t *out) {
    int count = 0;
    for (size_t i = 0; i < n;)
        out[count++] = ona__utf8_next(s, n, &i);
    return count;
}

START_TEST(test_text_utf8_decodes_and_replaces_invalid_bytes) {
    uint32_t cp[16];
    /* A, é (2 bytes), € (3), 😀 (4). */
    const char ok[] = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
    ck_assert_int_eq(decode(ok, sizeof ok - 1, cp), 4);
    ck_assert_uint_eq(cp[0], 'A');
    ck_assert_uint_eq(cp[1], 0xE9);
    ck_assert_uint_eq(cp[2], 0x20AC);
    ck_assert_uint_eq(cp[3], 0x1F600);
    /* Stray continuation, invalid lead, overlong '/', surrogate, above U+10FFFF: one U+FFFD per
     * maximal invalid part, and the byte after a cut sequence starts the next character. */
    struct {
        const char *bytes;
        int count;
        uint32_t expect[4];
    } cases[] = {
        {"\x80"
         "a",
         2,
         {0xFFFD, 'a'}},
        {"\xFF", 1, {0xFFFD}},
        {"\xC0\xAF", 2, {0xFFFD, 0xFFFD}},
        {"\xED\xA0\x80", 3, {0xFFFD, 0xFFFD, 0xFFFD}},
        {"\xF4\x90\x80\x80", 4, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD}},
        {"\xE2\x82"
         "b",
         2,
         {0xFFFD, 'b'}},
        {"\xE2\x82", 1, {0xFFFD}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = decode(cases[c].bytes, strlen(cases[c].bytes), cp);
        ck_assert_msg(n == cases[c].count, "case %zu: %d code points", c, n);
        for (int i = 0; i < n; i++)
            ck_assert_msg(cp[i] == cases[c].expect[i], "case %zu [%d]: U+%04X", c, i, cp[i]);
    }
}
END_TEST

/* --- Measure and loading --------------------------------------------------------------------- */

static void measure(ona_runtime *rt, ona_font f, const char *s, const ona_text_desc *d, float *w,
                    float *h) {
    ck_assert_int_eq(ona_font_measure(rt, f, s, strlen(s), d, w, h), 0);
}

START_TEST(test_text_measure_lines_wrap_scale_and_kerning) {
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    ona_font f;
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, 16, &f), 0);
    ona_font again;
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, 16, &again), 0);
    ck_assert_uint_eq(f.id, again.id); /* the same file and size: the same font */
    float lh = ona_font_line_height(rt, f);
    /* The size is the ascender-to-descender height, and DejaVu Sans has no extra line gap. */
    ck_assert_float_eq(lh, 16);
    float w, h, w2, h2;
    measure(rt, f, "", NULL, &w, &h);
    ck_assert_float_eq(w, 0);
    ck_assert_float_eq(h, 0);
    measure(rt, f, "Hello", NULL, &w, &h);
    ck_assert(w > 30 && w < 60);
    ck_assert_float_eq(h, lh);
    measure(rt, f, "Hello\nHello, world", NULL, &w2, &h2);
    ck_assert(w2 > w);
    ck_assert_float_eq(h2, 2 * lh);
    measure(rt, f, "Hello\n", NULL, &w2, &h2);
    ck_assert_float_eq(w2, w);
    ck_assert_float_eq(h2, 2 * lh); /* a final newline starts an empty line */
    ona_text_desc twice = {.scale = 2};
    measure(rt, f, "Hello", &twice, &w2, &h2);
    ck_assert_float_eq(w2, 2 * w);
    ck_assert_float_eq(h2, 2 * lh);
    /* Wrapping "Hello Hello Hello" in a box just wider than one word: three lines, each no
     * wider than the box. */
    ona_text_desc box = {.width = w + 4, .wrap = true};
    measure(rt, f, "Hello Hello Hello", &box, &w2, &h2);
    ck_assert_float_eq(h2, 3 * lh);
    ck_assert_float_eq(w2, w);
    /* A word longer than its box breaks between characters. */
    ona_text_desc narrow = {.width = 20, .wrap = true};
    measure(rt, f, "Hello", &narrow, &w2, &h2);
    ck_assert_msg(h2 >= 2 * lh, "h2 %f w2 %f", h2, w2);
    ck_assert(w2 <= 20);
    /* Kerning: "AV" is narrower than "A" and "V" apart. */
    float wa, wv, wav;
    measure(rt, f, "A", NULL, &wa, &h);
    measure(rt, f, "V", NULL, &wv, &h);
    measure(rt, f, "AV", NULL, &wav, &h);
    ck_assert_msg(wav < wa + wv, "AV %f, A %f + V %f", wav, wa, wv);
    /* Invalid bytes measure as U+FFFD. */
    measure(rt, f, "\xFF", NULL, &w, &h);
    measure(rt, f, "\xEF\xBF\xBD", NULL, &w2, &h2);
    ck_assert_float_eq(w, w2);
    ck_assert(w > 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_text_load_errors_name_the_file_and_give_the_default_font) {
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    ona_font def, f;
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, 20, &def), 0);
    ck_assert_int_eq(ona_runtime_font_load(rt, "/nonexistent/font.ttf", 20, &f), ONA_ENOENT);
    ck_assert_uint_eq(f.id, def.id);
    ck_assert_msg(captured_logs_contain("font /nonexistent/font.ttf: no such file"), "%s",
                  captured_logs_text());
    char bad[1024];
    snprintf(bad, sizeof bad, "%s/bad.ttf", game_dir());
    game_write("bad.ttf", "this is not a TrueType font, only text pretending to be one");
    ck_assert_int_eq(ona_runtime_font_load(rt, bad, 20, &f), ONA_EFORMAT);
    ck_assert_uint_eq(f.id, def.id);
    ck_assert(captured_logs_contain("not a TrueType font"));
    /* A truncated real font: its table directory points past the end. */
    FILE *in = fopen("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "rb");
    ck_assert_ptr_nonnull(in);
    char head[4096];
    size_t got = fread(head, 1, sizeof head, in);
    fclose(in);
    snprintf(bad, sizeof bad, "%s/cut.ttf", game_dir());
    FILE *out = fopen(bad, "wb");
    ck_assert_ptr_nonnull(out);
    fwrite(head, 1, got, out);
    fclose(out);
    ck_assert_int_eq(ona_runtime_font_load(rt, bad, 20, &f), ONA_EFORMAT);
    ck_assert_uint_eq(f.id, def.id);
    /* Bad arguments. */
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, 0, &f), ONA_EINVAL);
    ck_assert_uint_eq(f.id, 0);
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, ONA_FONT_MAX_SIZE + 1, &f), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_font_load(NULL, NULL, 12, &f), ONA_EINVAL);
    float w, h;
    ck_assert_int_eq(ona_font_measure(rt, (ona_font){999}, "x", 1, NULL, &w, &h), ONA_ESTALE);
    ck_assert_int_eq(ona_font_measure(rt, (ona_font){0}, "x", 1, NULL, &w, &h), ONA_ESTALE);
    ona_text_desc odd = {.align = (ona_text_align)7};
    ck_assert_int_eq(ona_font_measure(rt, def, "x", 1, &odd, &w, &h), ONA_EINVAL);
    ona_text_desc negative = {.width = -1};
    ck_assert_int_eq(ona_font_measure(rt, def, "x", 1, &negative, &w, &h), ONA_EINVAL);
    ck_assert_int_eq(ona_font_measure(rt, def, NULL, 1, NULL, &w, &h), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

/* A default font that cannot be read: text is drawn with the debug font scaled to the size. */
START_TEST(test_text_unreadable_default_font_falls_back_to_the_debug_font) {
    game_write("DejaVuSans.ttf", "not a font");
    setenv("ONA_FONT_DIR", game_dir(), 1);
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    ona_font f;
    ck_assert_int_eq(ona_runtime_font_load(rt, NULL, 16, &f), ONA_EFORMAT);
    ck_assert_uint_ne(f.id, 0);
    ck_assert_msg(captured_logs_contain("not a TrueType font; using the built-in 8x8 font"), "%s",
                  captured_logs_text());
    float w, h;
    measure(rt, f, "abc\nd", NULL, &w, &h);
    ck_assert_float_eq(w, 48); /* 16-pixel cells */
    ck_assert_float_eq(h, 32);
    ona_runtime_destroy(rt);
    unsetenv("ONA_FONT_DIR");
}
END_TEST

/* --- The glyph cache under contention ------------------------------------------------------- */

enum { RACE_CHARS = 1200, RACE_SPRITES = 4096 };

typedef struct race {
    ona__fonts *fonts;
    ona_font font;
    char text[RACE_CHARS * 2 + 1]; /* 2-byte UTF-8 characters */
    size_t length;
    ona_sprite sprites[RACE_SPRITES];
    uint32_t textures[RACE_SPRITES];
    uint32_t count;
    int rc;
} race;

static int race_emit(void *user, uint32_t texture, const ona_sprite *sprites, uint32_t count) {
    race *r = user;
    for (uint32_t i = 0; i < count && r->count < RACE_SPRITES; i++) {
        r->textures[r->count] = texture;
        r->sprites[r->count++] = sprites[i];
    }
    return 0;
}

static void race_run(void *arg) {
    race *r = arg;
    ona_text_desc d = {.width = 600, .wrap = true};
    r->rc = ona__text_print(r->fonts, r->font, r->text, r->length, 0, 0, &d, race_emit, r);
}

/* The code points U+0100.. as UTF-8 (Latin Extended, IPA, Greek, Cyrillic: all 2 bytes), with a
 * space every 8 so the text wraps. */
static void race_text(race *r) {
    r->length = 0;
    for (uint32_t i = 0; i < RACE_CHARS; i++) {
        uint32_t cp = i % 8 == 7 ? 0x20 : 0x100 + i;
        if (cp < 0x80) {
            r->text[r->length++] = (char)cp;
        } else {
            r->text[r->length++] = (char)(0xC0 | cp >> 6);
            r->text[r->length++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    r->text[r->length] = '\0';
}

/* The coverage of a sprite's source rect, copied from its atlas page. */
static void glyph_pixels(ona__textures *t, uint32_t texture, const ona_sprite *s, uint8_t *out) {
    const ona__texture *tex = &t->slots[(texture & 0xFFFFu) - 1];
    ck_assert_ptr_nonnull(tex->alpha);
    for (int y = 0; y < (int)s->src_h; y++)
        memcpy(out + y * (int)s->src_w,
               tex->alpha + ((int)s->src_y + y) * tex->width + (int)s->src_x, (size_t)s->src_w);
}

/* Two threads print the same new text at once: they get the same glyphs (one slot per
 * character), the same layout, and every glyph's bitmap equals the one a lone thread makes in a
 * fresh atlas (where it lands elsewhere). */
START_TEST(test_text_glyph_cache_is_shared_and_position_independent_under_contention) {
    static ona__textures textures, alone_textures;
    ck_assert_int_eq(ona__textures_init(&textures), 0);
    ck_assert_int_eq(ona__textures_init(&alone_textures), 0);
    ona__fonts *fonts, *alone_fonts;
    ck_assert_int_eq(ona__fonts_create(&textures, &fonts), 0);
    ck_assert_int_eq(ona__fonts_create(&alone_textures, &alone_fonts), 0);
    static race a, b, alone;
    a.fonts = b.fonts = fonts;
    alone.fonts = alone_fonts;
    /* The lone atlas first gets other glyphs, so the race's glyphs land in other cells. */
    ck_assert_int_eq(ona__fonts_load(alone_fonts, NULL, 14, "test", &alone.font), 0);
    ck_assert_int_eq(ona__fonts_load(fonts, NULL, 14, "test", &a.font), 0);
    b.font = a.font;
    race_text(&a);
    race_text(&b);
    race_text(&alone);
    static race warm;
    warm.fonts = alone_fonts;
    warm.font = alone.font;
    snprintf(warm.text, sizeof warm.text, "%s", "The quick brown fox jumps over the lazy dog");
    warm.length = strlen(warm.text);
    race_run(&warm);
    uv_thread_t ta, tb;
    ck_assert_int_eq(uv_thread_create(&ta, race_run, &a), 0);
    ck_assert_int_eq(uv_thread_create(&tb, race_run, &b), 0);
    uv_thread_join(&ta);
    uv_thread_join(&tb);
    race_run(&alone);
    ck_assert_int_eq(a.rc, 0);
    ck_assert_int_eq(b.rc, 0);
    ck_assert_int_eq(alone.rc, 0);
    ck_assert_uint_gt(a.count, RACE_CHARS / 2);
    ck_assert_uint_eq(a.count, b.count);
    ck_assert_uint_eq(a.count, alone.count);
    ck_assert(memcmp(a.sprites, b.sprites, a.count * sizeof a.sprites[0]) == 0);
    ck_assert(memcmp(a.textures, b.textures, a.count * sizeof a.textures[0]) == 0);
    int moved = 0;
    static uint8_t pa[64 * 64], pb[64 * 64];
    for (uint32_t i = 0; i < a.count; i++) {
        const ona_sprite *sa = &a.sprites[i], *sb = &alone.sprites[i];
        ck_assert_float_eq(sa->x, sb->x);
        ck_assert_float_eq(sa->y, sb->y);
        ck_assert_float_eq(sa->src_w, sb->src_w);
        ck_assert_float_eq(sa->src_h, sb->src_h);
        ck_assert(sa->src_w * sa->src_h <= sizeof pa);
        moved += sa->src_x != sb->src_x || sa->src_y != sb->src_y;
        glyph_pixels(&textures, a.textures[i], sa, pa);
        glyph_pixels(&alone_textures, alone.textures[i], sb, pb);
        ck_assert_msg(memcmp(pa, pb, (size_t)(sa->src_w * sa->src_h)) == 0,
                      "glyph %u differs between atlases", i);
    }
    ck_assert_int_gt(moved, 0); /* the comparison was between different places */
    ona__textures_free(&textures, NULL);
    ona__textures_free(&alone_textures, NULL);
    ona__fonts_destroy(fonts);
    ona__fonts_destroy(alone_fonts);
}
END_TEST

/* --- Pictures -------------------------------------------------------------------------------- */

/* The scenes: each printed every frame by scene.lua's `process`. */
static const char scene_lua[] =
    "local scenes = {}\n"
    "function scenes.plain(s)\n"
    "  ona.gfx.print(s.f16, 'Hello, Ona! 0123', 8, 6)\n"
    "  ona.gfx.print(s.f24, 'The quick brown fox', 8, 30)\n"
    "  ona.gfx.print(s.f24, 'AVATAR Wolf yak', 8, 66)\n"
    "end\n"
    "function scenes.layout(s)\n"
    "  ona.gfx.print(s.f12, 'left', 8, 4, {width = 224})\n"
    "  ona.gfx.print(s.f12, 'center', 8, 4, {width = 224, align = 'center'})\n"
    "  ona.gfx.print(s.f12, 'right', 8, 4, {width = 224, align = 'right'})\n"
    "  ona.gfx.print(s.f12, 'Word wrap keeps long lines inside their box.', 8, 24,\n"
    "                {width = 100, wrap = true})\n"
    "  ona.gfx.print(s.f12, 'centred lines\\nof text', 180, 24, {align = 'center'})\n"
    "  ona.gfx.print(s.f12, 'Wrapped and right aligned here.', 132, 60,\n"
    "                {width = 100, wrap = true, align = 'right'})\n"
    "end\n"
    "function scenes.tint_scale(s)\n"
    "  ona.gfx.print(s.f12, 'Big red', 8, 4, {scale = 3, tint = 0xFF4040FF})\n"
    "  ona.gfx.print(s.f12, 'half green', 8, 56, {tint = {0, 1, 0, 0.5}})\n"
    "  ona.gfx.print(s.f24, 'front', 120, 84, {layer = 2, tint = 0x3080FFFF})\n"
    "  ona.gfx.print(s.f24, 'back', 126, 76, {layer = 1, tint = 0xFFFF00FF})\n"
    "end\n"
    "function scenes.utf8(s)\n"
    "  ona.gfx.print(s.f16, 'Gr\\195\\188\\195\\159e, na\\195\\175ve caf\\195\\169', 6, 4)\n"
    "  ona.gfx.print(s.f16, '\\206\\169\\206\\188\\206\\173\\206\\179\\206\\177 "
    "\\208\\159\\209\\128\\208\\184\\208\\178\\208\\181\\209\\130 \\194\\189 \\226\\130\\172', 6, "
    "30)\n"
    "  ona.gfx.print(s.f16, 'bad: \\255\\254 cut: \\226\\130 ok', 6, 56)\n"
    "  ona.gfx.print(s.f16, 'no glyph: \\230\\188\\162', 6, 82)\n"
    "end\n"
    "function scenes.threads(s)\n"
    "  local f = ({s.f12, s.f16, s.f24})[s.args.line]\n"
    "  ona.gfx.print(f, s.args.text, 6, s.args.y, {tint = s.args.tint})\n"
    "end\n"
    "return {\n"
    "  init = function(s, args)\n"
    "    s.args = args\n"
    "    s.f12 = ona.gfx.font(12)\n"
    "    s.f16 = ona.gfx.font(nil, 16)\n"
    "    s.f24 = ona.gfx.font(24)\n"
    "  end,\n"
    "  process = function(s)\n"
    "    ona.gfx.clear(0.08, 0.08, 0.12)\n"
    "    scenes[s.args.scene](s)\n"
    "  end,\n"
    "}\n";

typedef struct printer_state {
    ona_font font;
} printer_state;

/* A native system that prints a line with the C API. */
static int printer_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    printer_state *s = state;
    if (!s->font.id) {
        int rc = ona_runtime_font_load(ona_ctx_runtime(ctx), NULL, 20, &s->font);
        if (rc)
            return rc;
    }
    static const char line[] = "native: \xC3\x85ngstr\xC3\xB6m";
    ona_text_desc d = {.tint = ONA_RGBA(255, 160, 64, 255), .layer = 3};
    return ona_ctx_print(ctx, s->font, line, sizeof line - 1, 6, 92, &d);
}

/* Renders `frames` frames of `scene` on `threads` threads and returns the last frame's RGBA
 * pixels (malloc'd). The threads scene spawns three Lua systems and a native one. */
static uint8_t *render(const char *scene, uint32_t threads, int frames) {
    game_write("scene.lua", scene_lua);
    ona_runtime *rt = make_runtime(threads, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    if (strcmp(scene, "threads") == 0) {
        spawn_lua(rt, "scene.lua", "one", none,
                  "scene=threads line=1 y=4 tint=4294967295 text=small_twelve_pixels", 0, 0);
        spawn_lua(rt, "scene.lua", "two", none,
                  "scene=threads line=2 y=24 tint=2164195327 text=sixteen,_kerned:_AVAWAY", 0, 0);
        spawn_lua(rt, "scene.lua", "three", none,
                  "scene=threads line=3 y=52 tint=1090519039 text=Twenty-four_px", 0, 0);
        ona_system_desc d = {
            .name = "printer", .size = sizeof(printer_state), .process = printer_process};
        ona_system h;
        ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
    } else {
        char args[64];
        snprintf(args, sizeof args, "scene=%s", scene);
        spawn_lua(rt, "scene.lua", "scene", none, args, 0, 0);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/shot.png", game_dir());
    uint8_t *px = shoot_frames(rt, frames, 1.0 / 60, path, W, H);
    ona_runtime_destroy(rt);
    ck_assert_msg(!captured_logs_contain("error"), "errors logged:\n%s", captured_logs_text());
    return px;
}

/* Compares with tests/golden/text_<scene>.png: every channel within `tolerance`, except at most
 * `outliers` pixels (rasterisers may differ by a rounding at an edge), a stricter rule than
 * expect_golden's mean, since text is thin. ONA_UPDATE_GOLDEN=1 writes the golden first. */
static void assert_golden(const char *scene, const uint8_t *px) {
    char name[64];
    snprintf(name, sizeof name, "text_%s", scene);
    uint8_t *want = golden_load(name, px, W, H);
    enum { TOLERANCE = 24, OUTLIERS = 24 };
    int bad = 0, lit = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *a = px + i * 4, *b = want + i * 4;
        int worst = 0;
        for (int c = 0; c < 3; c++)
            worst = abs(a[c] - b[c]) > worst ? abs(a[c] - b[c]) : worst;
        bad += worst > TOLERANCE;
        lit += a[0] + a[1] + a[2] > 160;
    }
    stbi_image_free(want);
    if (bad > OUTLIERS)
        ck_abort_msg("%s: %d pixels differ from its golden (the picture drawn is %s)", scene, bad,
                     golden_write_actual(name, px, W, H));
    ck_assert_msg(lit > 200, "%s: only %d lit pixels: no text drawn", scene, lit);
}

static void golden_scene(const char *scene) {
    uint8_t *px = render(scene, 2, 2);
    assert_golden(scene, px);
    stbi_image_free(px);
}

START_TEST(test_text_golden_plain) {
    golden_scene("plain");
}
END_TEST

START_TEST(test_text_golden_layout) {
    golden_scene("layout");
}
END_TEST

START_TEST(test_text_golden_tint_scale) {
    golden_scene("tint_scale");
}
END_TEST

START_TEST(test_text_golden_utf8) {
    golden_scene("utf8");
}
END_TEST

/* Text printed from several systems is the same picture on 1 and 2 threads, on the first frame
 * (every glyph new, rasterised by whichever thread met it first) and later. */
START_TEST(test_text_same_pixels_on_one_and_two_threads) {
    for (int frames = 1; frames <= 3; frames += 2) {
        uint8_t *one = render("threads", 1, frames);
        uint8_t *two = render("threads", 2, frames);
        int differ = 0;
        for (int i = 0; i < W * H * 4; i++)
            differ += one[i] != two[i];
        ck_assert_msg(differ == 0, "%d bytes differ between 1 and 2 threads (frame %d)", differ,
                      frames);
        if (frames == 3)
            assert_golden("threads", two);
        stbi_image_free(one);
        stbi_image_free(two);
    }
}
END_TEST

/* --- Lua misuse ------------------------------------------------------------------------------ */

static const char misuse_lua[] =
    "local chunk_ok, chunk_err = pcall(function() ona.gfx.print(ona.gfx.font(12), 'x', 0, 0) end)\n"
    "local function try(f) local ok, e = pcall(f) return ok and 'no error' or tostring(e) end\n"
    "return {\n"
    "  init = function(s, args)\n"
    "    local r = args.report\n"
    "    ona.send(r, chunk_err)\n"
    "    local f, err = ona.gfx.font('missing.ttf', 16)\n"
    "    ona.send(r, err)\n"
    "    ona.send(r, f == ona.gfx.font(16) and 'default' or 'other')\n"
    "    ona.send(r, try(function() ona.gfx.print(nil, 'x', 0, 0) end))\n" /* line 10 */
    "    ona.send(r, try(function() ona.gfx.print(f, 'x', 0, 0, {align = 'middle'}) end))\n"
    "    ona.send(r, try(function() ona.gfx.font(0) end))\n"
    "    ona.send(r, try(function() ona.gfx.measure(f, 'x', {wrap = true}) end))\n"
    "    ona.send(r, try(function() ona.gfx.print(f, {}, 0, 0) end))\n"
    "    local w, h = ona.gfx.measure(f, 'bad \\255 bytes')\n"
    "    ona.send(r, (w > 0 and h > 0) and 'measured' or 'empty')\n"
    "    ona.gfx.print(f, 'bad \\255 bytes', 0, 0)\n"
    "    ona.send(r, 'printed')\n"
    "  end,\n"
    "}\n";

START_TEST(test_text_lua_misuse_raises_at_the_authors_line) {
    game_write("misuse.lua", misuse_lua);
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "misuse.lua", "misuse", report, "", 0, ONA_POLICY_STOP);
    for (int f = 0; f < 3; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    const char *expect[] = {
        "misuse.lua:1: ona.gfx.print: can only draw during a turn",
        "font ", /* followed by the resolved path */
        "default",
        "misuse.lua:10: ona.gfx.print: bad argument #1 (not a font handle: got nil",
        "misuse.lua:11: ona.gfx.print: bad argument #5 (opts.align must be",
        "misuse.lua:12: ona.gfx.font: bad argument #1 (size must be a whole number",
        "misuse.lua:13: ona.gfx.measure: bad argument #3 (opts.wrap needs opts.width)",
        "misuse.lua:14: ona.gfx.print: bad argument #2",
        "measured",
        "printed",
    };
    int count = (int)(sizeof expect / sizeof expect[0]);
    ck_assert_msg(coll->count == count, "%d messages; log:\n%s", coll->count, captured_logs_text());
    for (int i = 0; i < count; i++)
        ck_assert_msg(strstr(coll->items[i].text, expect[i]) != NULL, "[%d] \"%s\" lacks \"%s\"", i,
                      coll->items[i].text, expect[i]);
    ck_assert(strstr(coll->items[1].text, "missing.ttf: no such file") != NULL);
    ck_assert(captured_logs_contain("missing.ttf: no such file; using the default font"));
    collector_free();
}
END_TEST

static Suite *text_suite(void) {
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("text");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_text_utf8_decodes_and_replaces_invalid_bytes);
    tcase_add_test(tc, test_text_measure_lines_wrap_scale_and_kerning);
    tcase_add_test(tc, test_text_load_errors_name_the_file_and_give_the_default_font);
    tcase_add_test(tc, test_text_unreadable_default_font_falls_back_to_the_debug_font);
    tcase_add_test(tc, test_text_glyph_cache_is_shared_and_position_independent_under_contention);
    tcase_add_test(tc, test_text_golden_plain);
    tcase_add_test(tc, test_text_golden_layout);
    tcase_add_test(tc, test_text_golden_tint_scale);
    tcase_add_test(tc, test_text_golden_utf8);
    tcase_add_test(tc, test_text_same_pixels_on_one_and_two_threads);
    tcase_add_test(tc, test_text_lua_misuse_raises_at_the_authors_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(text_suite());
}
