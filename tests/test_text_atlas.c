/*
 * test_text_atlas.c: the glyph atlas bound: many font sizes printing many characters keep the
 * atlas pages under it, frame after frame; text printed again after its pages were evicted is
 * laid out and drawn the same (sprites, and the bitmaps they sample); a game printing like the
 * font_atlas_mem reproducer stays under the runtime's default bound (ona_runtime_stats).
 */
#include "test_support.h"

#include "common.h"
#include "text_internal.h"

#include <stdio.h>
#include <string.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("text_atlas");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
}

/* --- The registry alone ---------------------------------------------------------------------- */

enum { CHARS = 600, MAX_SPRITES = 1024 };

/* One print's sprites and the coverage each sampled, copied at the print (its page may be
 * evicted later). */
typedef struct shot {
    ona__textures *textures;
    ona_sprite sprites[MAX_SPRITES];
    uint32_t count;
    uint8_t coverage[1 << 20];
    size_t used;
} shot;

static int shot_emit(void *user, uint32_t texture, const ona_sprite *sprites, uint32_t count) {
    shot *s = user;
    const ona__texture *t = &s->textures->slots[(texture & 0xFFFFu) - 1];
    ck_assert_ptr_nonnull(t->alpha);
    for (uint32_t i = 0; i < count; i++) {
        const ona_sprite *sp = &sprites[i];
        size_t w = (size_t)sp->src_w, h = (size_t)sp->src_h;
        ck_assert_uint_lt(s->count, MAX_SPRITES);
        ck_assert_uint_le(s->used + w * h, sizeof s->coverage);
        for (size_t y = 0; y < h; y++)
            memcpy(s->coverage + s->used + y * w,
                   t->alpha + ((size_t)sp->src_y + y) * (size_t)t->width + (size_t)sp->src_x, w);
        s->used += w * h;
        s->sprites[s->count++] = *sp;
    }
    return 0;
}

/* CHARS code points from U+0100 (Latin Extended, IPA, Greek, Cyrillic: 2 bytes each) with a
 * space every 10, so the text wraps. */
static size_t make_text(char *out) {
    size_t n = 0;
    for (uint32_t i = 0; i < CHARS; i++) {
        uint32_t cp = i % 10 == 9 ? 0x20 : 0x100 + i;
        if (cp < 0x80) {
            out[n++] = (char)cp;
        } else {
            out[n++] = (char)(0xC0 | cp >> 6);
            out[n++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[n] = '\0';
    return n;
}

/* Prints `text` with `font` as one frame does: the print inside the "turns", then main's
 * collect after them. */
static void frame(ona__fonts *f, ona_font font, const char *text, size_t length, shot *out) {
    ona_text_desc d = {.width = 900, .wrap = true};
    out->count = 0;
    out->used = 0;
    ck_assert_int_eq(ona__text_print(f, font, text, length, 0, 0, &d, shot_emit, out), 0);
    ona__fonts_collect(f, NULL);
}

/* Whether two prints drew the same: the same sprites at the same places and sizes, each having
 * sampled the same coverage (wherever in which page it lay). */
static bool same_picture(const shot *a, const shot *b) {
    if (a->count != b->count || a->used != b->used)
        return false;
    for (uint32_t i = 0; i < a->count; i++) {
        const ona_sprite *sa = &a->sprites[i], *sb = &b->sprites[i];
        if (sa->x != sb->x || sa->y != sb->y || sa->src_w != sb->src_w || sa->src_h != sb->src_h)
            return false;
    }
    return memcmp(a->coverage, b->coverage, a->used) == 0;
}

/* Twelve sizes, each printing 600 distinct characters in its own frames, with a bound that holds
 * about two sizes' pages: the pages never pass it; each size draws all its characters by its
 * second frame (the first may wait for eviction); the first size, whose pages were all evicted
 * meanwhile, measures and draws exactly what it did before. */
START_TEST(test_text_atlas_bound_holds_and_evicted_text_comes_back_the_same) {
    enum { SIZES = 12, FIRST = 20 };
    const uint64_t bound = 2u << 20;
    static ona__textures textures;
    static shot before, again, now;
    static char text[CHARS * 2 + 1];
    size_t length = make_text(text);
    ck_assert_int_eq(ona__textures_init(&textures), 0);
    before.textures = again.textures = now.textures = &textures;
    ona__fonts *f;
    ck_assert_int_eq(ona__fonts_create(&textures, &f), 0);
    ona__fonts_set_atlas_memory(f, bound);
    ona_font fonts[SIZES];
    for (int i = 0; i < SIZES; i++)
        ck_assert_int_eq(ona__fonts_load(f, NULL, FIRST + i, "test", &fonts[i]), 0);
    float w0, h0, w1, h1;
    ona_text_desc d = {.width = 900, .wrap = true};
    ck_assert_int_eq(ona__text_measure(f, fonts[0], text, length, &d, &w0, &h0), 0);
    frame(f, fonts[0], text, length, &before);
    ck_assert_uint_gt(before.count, CHARS / 2);
    uint64_t most = 0;
    for (int round = 0; round < 2; round++) {
        for (int i = 1; i < SIZES; i++) {
            frame(f, fonts[i], text, length, &now);
            ck_assert_uint_le(ona__fonts_atlas_bytes(f), bound);
            frame(f, fonts[i], text, length, &now);
            ck_assert_uint_le(ona__fonts_atlas_bytes(f), bound);
            ck_assert_msg(now.count == before.count, "size %d drew %u of %u glyphs", FIRST + i,
                          now.count, before.count);
            most = ONA_MAX(most, ona__fonts_atlas_bytes(f));
        }
    }
    ck_assert_uint_gt(most, bound / 2); /* the bound was what limited the pages */
    ona__font *first = ona__text_font_of(f, fonts[0]);
    for (uint32_t p = 0; p < MAX_PAGES; p++)
        ck_assert_uint_ne(atomic_load(&first->pages[p].state), PAGE_READY); /* all evicted */
    ck_assert_int_eq(ona__text_measure(f, fonts[0], text, length, &d, &w1, &h1), 0);
    ck_assert_float_eq(w0, w1);
    ck_assert_float_eq(h0, h1);
    frame(f, fonts[0], text, length, &again);
    frame(f, fonts[0], text, length, &again);
    ck_assert_msg(same_picture(&before, &again),
                  "text drawn after eviction differs (%u sprites, %u before)", again.count,
                  before.count);
    ck_assert(captured_logs_contain("glyph atlases are at their bound (2 MiB"));
    ck_assert(!captured_logs_contain("error"));
    ona__textures_free(&textures, NULL);
    ona__fonts_destroy(f);
}
END_TEST

/* --- Through the runtime --------------------------------------------------------------------- */

/* The font_atlas_mem reproducer's pattern, smaller: one more size each frame, every size printing
 * 400 distinct characters every frame (from two systems at once). */
static const char sizes_lua[] =
    "local chars = {}\n"
    "for cp = 0x100, 0x100 + 400 do\n"
    "  chars[#chars + 1] = string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64)\n"
    "end\n"
    "local text = table.concat(chars)\n"
    "return {\n"
    "  init = function(s) s.fonts = {} end,\n"
    "  process = function(s)\n"
    "    local i = ona.frame()\n"
    "    if i <= 10 then s.fonts[i] = ona.gfx.font(106 - i) end\n"
    "    for _, f in ipairs(s.fonts) do ona.gfx.print(f, text, 0, 0) end\n"
    "  end,\n"
    "}\n";

START_TEST(test_text_atlas_many_large_sizes_stay_under_the_default_bound) {
    game_write("sizes.lua", sizes_lua);
    static const char *roots[2];
    roots[0] = game_dir();
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
    ona_runtime *rt = create_runtime(&desc);
    ona_system none = {0};
    /* Two systems printing the same fonts on two threads: glyphs placed and evicted under them. */
    spawn_lua(rt, "sizes.lua", "sizes", none, "", 0, 0);
    spawn_lua(rt, "sizes.lua", "sizes2", none, "", 0, 0);
    uint64_t most = 0;
    for (int i = 0; i < 14; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ona_runtime_stats st;
        ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
        ck_assert_uint_le(st.atlas_bytes, ONA_ATLAS_MEMORY_DEFAULT);
        most = ONA_MAX(most, st.atlas_bytes);
    }
    ck_assert_uint_gt(most, ONA_ATLAS_MEMORY_DEFAULT / 2);
    ck_assert(captured_logs_contain("glyph atlases are at their bound (32 MiB"));
    ck_assert_msg(!captured_logs_contain("error"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *text_atlas_suite(void) {
    Suite *s = suite_create("text_atlas");
    TCase *tc = tcase_create("text_atlas");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_text_atlas_bound_holds_and_evicted_text_comes_back_the_same);
    tcase_add_test(tc, test_text_atlas_many_large_sizes_stay_under_the_default_bound);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(text_atlas_suite());
}
