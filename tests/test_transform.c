/*
 * test_transform.c: the draw-state stack (ona.gfx.push/pop/translate/rotate/scale/origin,
 * set_target; ona_ctx_gfx_* in C), rendered for real offscreen on Mesa llvmpipe: push and pop
 * over sprites, shapes, text and a tile map; a transform under a layer camera; a sprite turned by
 * the transform against the same sprite turned by its own rotation; a square scaled after a
 * rotation (a parallelogram, which only the affine instance draws); set_target and push("all");
 * each turn starting afresh; the C API; misuse raising at the author's line. Every picture is byte-identical on 1 and 2 worker
 * threads, and the scenes are compared with committed golden images.
 *
 * Set ONA_UPDATE_GOLDEN=1 to rewrite tests/golden/transform_*.png from this machine's rendering
 * (then look at them before committing).
 */
#include "test_support.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 128, H = 128 };

static const char *roots[2];
static char checker_path[512], white_path[512];

static void write_png(const char *name, int w, int h, const uint8_t *rgba, char *path,
                      size_t size) {
    snprintf(path, size, "%s/%s", game_dir(), name);
    ck_assert(stbi_write_png(path, w, h, 4, rgba, w * 4));
}

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("transform");
    roots[0] = game_dir();
    roots[1] = NULL;
    /* An 8x8 red/white checker of 2x2 squares, and a 1x1 white. */
    uint8_t checker[8 * 8 * 4], white[4] = {255, 255, 255, 255};
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            uint8_t *p = checker + (y * 8 + x) * 4;
            bool on = ((x / 2) + (y / 2)) % 2 == 0;
            p[0] = 255, p[1] = on ? 255 : 0, p[2] = on ? 255 : 0, p[3] = 255;
        }
    write_png("checker.png", 8, 8, checker, checker_path, sizeof checker_path);
    write_png("white.png", 1, 1, white, white_path, sizeof white_path);
    char cmd[1200];
    const char *scripts[] = {"scene", "misuse"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s/tests/lua/transform/%s.lua' '%s/'", ONA_SOURCE_DIR,
                 scripts[i], game_dir());
        ck_assert_int_eq(system(cmd), 0);
    }
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads, ona_video video) {
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .video = video,
                             .window = {.width = W, .height = H}};
    return create_runtime(&desc);
}

static uint8_t *render(ona_runtime *rt, int frames) {
    char path[600];
    snprintf(path, sizeof path, "%s/shot.png", game_dir());
    return shoot_frames(rt, frames, 1.0 / 60, path, W, H);
}

static bool near(const uint8_t *p, int x, int y, int r, int g, int b, int tol) {
    const uint8_t *q = p + (y * W + x) * 4;
    return abs(q[0] - r) <= tol && abs(q[1] - g) <= tol && abs(q[2] - b) <= tol;
}

#define EXPECT_NEAR(p, x, y, r, g, b)                                                              \
    do {                                                                                           \
        const uint8_t *q_ = (p) + ((y)*W + (x)) * 4;                                               \
        ck_assert_msg(near(p, x, y, r, g, b, 3), "pixel (%d, %d) is %d %d %d, expected %d %d %d",  \
                      x, y, q_[0], q_[1], q_[2], r, g, b);                                         \
    } while (0)

static char args_buf[1400];
static const char *args(const char *part) {
    snprintf(args_buf, sizeof args_buf, "part=%s checker=%s white=%s", part, checker_path,
             white_path);
    return args_buf;
}

/* The scene `part` on `threads` threads, 3 frames; fails on any check the script raised. */
static uint8_t *scene(const char *part, uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_VIDEO_OFFSCREEN);
    spawn_lua(rt, "scene.lua", part, (ona_system){0}, args(part), 0, ONA_POLICY_STOP);
    uint8_t *pixels = render(rt, 3);
    ck_assert_msg(!captured_logs_contain("scene.lua:"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
    return pixels;
}

/* The scene on 1 and 2 threads (the same bytes), then against its golden image. */
static uint8_t *render_checked(const char *part, const char *golden) {
    uint8_t *one = scene(part, 1);
    uint8_t *two = scene(part, 2);
    ck_assert_msg(memcmp(one, two, (size_t)W * H * 4) == 0,
                  "%s: 1 and 2 threads draw different pictures", golden);
    stbi_image_free(two);
    expect_golden(one, W, H, golden);
    return one;
}

START_TEST(test_transform_push_pop_translate_scale) {
    uint8_t *p = render_checked("stack", "transform_stack");
    EXPECT_NEAR(p, 17, 17, 255, 0, 0);     /* the sprite, translated */
    EXPECT_NEAR(p, 22, 22, 255, 0, 0);     /* ... 8 pixels a side */
    EXPECT_NEAR(p, 25, 20, 0, 0, 0);       /* ... and no more */
    EXPECT_NEAR(p, 33, 17, 0, 255, 0);     /* the rect, translated and scaled 2 */
    EXPECT_NEAR(p, 38, 22, 0, 255, 0);     /* ... 8 pixels a side */
    EXPECT_NEAR(p, 41, 20, 0, 0, 0);       /* ... and no more */
    EXPECT_NEAR(p, 57, 17, 0, 0, 255);     /* after one pop: the translation alone */
    EXPECT_NEAR(p, 62, 22, 0, 0, 255);     /* ... unscaled */
    EXPECT_NEAR(p, 1, 101, 255, 255, 0);   /* after both pops: untransformed */
    EXPECT_NEAR(p, 101, 1, 255, 255, 255); /* origin() dropped the translation */
    /* The tile map at (64, 64) scaled 2: tile 1 (the checker's top-left 4x4: white, red...) at
     * 64..71, each 2x2 texel square 4x4 pixels. */
    EXPECT_NEAR(p, 65, 65, 255, 255, 255);
    EXPECT_NEAR(p, 69, 65, 255, 0, 0);
    bool glyph = false; /* "T" at (4, 60), scale 2: 16x16 pixels */
    for (int y = 60; y < 76 && !glyph; y++)
        for (int x = 4; x < 20 && !glyph; x++)
            glyph = near(p, x, y, 255, 255, 255, 3);
    ck_assert_msg(glyph, "no glyph of the translated, scaled text");
    EXPECT_NEAR(p, 2, 70, 0, 0, 0); /* ... left of it: nothing */
    stbi_image_free(p);
}
END_TEST

START_TEST(test_transform_composes_with_the_camera) {
    uint8_t *one = scene("camera", 1), *two = scene("camera", 2);
    ck_assert(memcmp(one, two, (size_t)W * H * 4) == 0);
    /* The camera's view comes from the previous present, so the last frame shows it. */
    EXPECT_NEAR(one, 65, 65, 255, 255, 255);
    EXPECT_NEAR(one, 70, 70, 255, 255, 255);
    EXPECT_NEAR(one, 62, 62, 0, 0, 0);
    EXPECT_NEAR(one, 73, 73, 0, 0, 0);
    stbi_image_free(one);
    stbi_image_free(two);
}
END_TEST

/* How many of two pictures' channel values differ by more than 24 (the golden tolerance's). */
static long differing(const uint8_t *a, const uint8_t *b) {
    long n = 0;
    for (long i = 0; i < (long)W * H * 4; i++)
        n += abs((int)a[i] - (int)b[i]) > 24;
    return n;
}

START_TEST(test_transform_rotate_matches_sprite_rotation) {
    uint8_t *turned = render_checked("turned", "transform_turned");
    uint8_t *ref = scene("turned_ref", 1);
    long d = differing(turned, ref);
    /* The same sprite: at most an edge pixel's rounding here and there. */
    ck_assert_msg(d <= W * H * 4 / 400, "%ld channel values differ from opts.rotation's", d);
    /* And it is turned: the unturned checker's top-left texel square (white) would cover
     * (41..52, 41..52); turned by 30 degrees about (64, 64), (44, 44) falls outside the sprite. */
    EXPECT_NEAR(turned, 44, 44, 0, 0, 0);
    EXPECT_NEAR(turned, 66, 66, 255, 255, 255);
    stbi_image_free(turned);
    stbi_image_free(ref);
}
END_TEST

START_TEST(test_transform_rotated_shapes_and_skewed_sprites) {
    uint8_t *p = render_checked("skew", "transform_skew");
    /* The rect turned 45 degrees about (64, 40) is a diamond: its corners' places are empty. */
    EXPECT_NEAR(p, 64, 40 - 13, 255, 255, 255);
    EXPECT_NEAR(p, 64 + 12, 40, 255, 255, 255);
    EXPECT_NEAR(p, 64 + 8, 40 + 8, 0, 0, 0);
    EXPECT_NEAR(p, 64 - 8, 40 - 8, 0, 0, 0);
    /* The square turned then doubled in x, about (64, 96): a wide diamond, no rectangle. */
    EXPECT_NEAR(p, 64 + 25, 96, 0, 255, 255);
    EXPECT_NEAR(p, 64 - 25, 96, 0, 255, 255);
    EXPECT_NEAR(p, 64, 96 + 12, 0, 255, 255);
    EXPECT_NEAR(p, 64, 96 - 12, 0, 255, 255);
    EXPECT_NEAR(p, 64 + 20, 96 + 7, 0, 0, 0);
    EXPECT_NEAR(p, 64 - 20, 96 - 7, 0, 0, 0);
    stbi_image_free(p);
}
END_TEST

START_TEST(test_transform_set_target_and_push_all) {
    uint8_t *p = render_checked("target", "transform_target");
    /* The 32x32 canvas (blue, a red square at 0..7, a white one at 8..15) at scale 2. */
    EXPECT_NEAR(p, 2, 2, 255, 0, 0);
    EXPECT_NEAR(p, 14, 14, 255, 0, 0);
    EXPECT_NEAR(p, 18, 18, 255, 255, 255);
    EXPECT_NEAR(p, 30, 30, 255, 255, 255);
    EXPECT_NEAR(p, 40, 40, 0, 0, 255);
    EXPECT_NEAR(p, 60, 4, 0, 0, 255);
    EXPECT_NEAR(p, 70, 4, 0, 0, 0); /* past the canvas: the screen */
    /* The green square drawn to the screen between push("all") and pop. */
    EXPECT_NEAR(p, 104, 104, 0, 255, 0);
    stbi_image_free(p);
}
END_TEST

START_TEST(test_transform_each_turn_starts_afresh) {
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "scene.lua", "reset", report, args("reset"), 0, ONA_POLICY_STOP);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(!captured_logs_contain("transform check failed"), "%s", captured_logs_text());
    ASSERT_COLLECTED("reset ok");
    ona_runtime_destroy(rt);
}
END_TEST

/* --- The C API ------------------------------------------------------------------------------ */

typedef struct native_scene {
    ona_texture white, canvas;
    int empty_pop, bad_push, zero_scale, nan_translate, not_canvas, self_draw;
    int overflow_at;
    float px, py, bx, by;
    ona_texture target_after_all, target_after_plain;
} native_scene;

static native_scene native;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    native.empty_pop = ona_ctx_gfx_pop(ctx);
    native.bad_push = ona_ctx_gfx_push(ctx, (ona_gfx_push_what)7);
    native.zero_scale = ona_ctx_gfx_scale(ctx, 0, 1);
    native.nan_translate = ona_ctx_gfx_translate(ctx, NAN, 0);
    native.not_canvas = ona_ctx_gfx_set_target(ctx, native.white);
    native.overflow_at = 0;
    for (int i = 1; i <= 65 && !native.overflow_at; i++)
        if (ona_ctx_gfx_push(ctx, ONA_GFX_PUSH_TRANSFORM) == ONA_ELIMIT)
            native.overflow_at = i;
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(ona_ctx_gfx_pop(ctx), 0);
    /* Into the canvas by default, translated: a 4x4 white square at canvas (4, 4). */
    ck_assert_int_eq(ona_ctx_gfx_set_target(ctx, native.canvas), 0);
    native.self_draw = ona_ctx_draw(ctx, native.canvas, 0,
                                    &(ona_sprite){.scale_x = 1, .scale_y = 1, .tint = ~0u}, 1);
    ck_assert_int_eq(ona_ctx_gfx_push(ctx, ONA_GFX_PUSH_ALL), 0);
    ck_assert_int_eq(ona_ctx_gfx_translate(ctx, 4, 4), 0);
    ona_sprite s = {.scale_x = 4, .scale_y = 4, .tint = 0xFFFFFFFFu};
    ck_assert_int_eq(ona_ctx_draw(ctx, native.white, 0, &s, 1), 0);
    ck_assert_int_eq(ona_ctx_gfx_set_target(ctx, (ona_texture){0}), 0);
    ck_assert_int_eq(ona_ctx_gfx_pop(ctx), 0);
    native.target_after_all = ona_ctx_gfx_target(ctx);
    ck_assert_int_eq(ona_ctx_gfx_push(ctx, ONA_GFX_PUSH_TRANSFORM), 0);
    ck_assert_int_eq(ona_ctx_gfx_set_target(ctx, (ona_texture){0}), 0);
    ck_assert_int_eq(ona_ctx_gfx_pop(ctx), 0);
    native.target_after_plain = ona_ctx_gfx_target(ctx);
    /* The canvas on the screen at (64, 0), turned a quarter turn clockwise about its top-left
     * and scaled 2: it covers pixels 0..63 to the left of x = 64. */
    ck_assert_int_eq(ona_ctx_gfx_translate(ctx, 64, 0), 0);
    ck_assert_int_eq(ona_ctx_gfx_rotate(ctx, 1.5707963267948966f), 0);
    ck_assert_int_eq(ona_ctx_gfx_scale(ctx, 2, 2), 0);
    ck_assert_int_eq(ona_ctx_gfx_transform_point(ctx, false, 1, 0, &native.px, &native.py), 0);
    ck_assert_int_eq(
        ona_ctx_gfx_transform_point(ctx, true, native.px, native.py, &native.bx, &native.by), 0);
    ona_sprite c = {.scale_x = 1, .scale_y = 1, .tint = 0xFFFFFFFFu};
    return ona_ctx_draw(ctx, native.canvas, 1, &c, 1);
}

START_TEST(test_transform_c_api) {
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_OFFSCREEN);
    memset(&native, 0, sizeof native);
    ck_assert_int_eq(ona_runtime_texture_load(rt, white_path, &native.white), 0);
    ck_assert_int_eq(ona_runtime_canvas(rt, 32, 32, &native.canvas), 0);
    ona_system sys;
    ck_assert_int_eq(ona_runtime_spawn_native(
                         rt, &(ona_system_desc){.name = "native", .process = native_process}, &sys),
                     0);
    uint8_t *p = render(rt, 3);
    ck_assert_int_eq(native.empty_pop, ONA_EEMPTY);
    ck_assert_int_eq(native.bad_push, ONA_EINVAL);
    ck_assert_int_eq(native.zero_scale, ONA_EINVAL);
    ck_assert_int_eq(native.nan_translate, ONA_EINVAL);
    ck_assert_int_eq(native.not_canvas, ONA_EINVAL);
    ck_assert_int_eq(native.self_draw, ONA_EINVAL);
    ck_assert(captured_logs_contain("ona_ctx_gfx_scale: sx and sy must be finite and not 0"));
    ck_assert_int_eq(native.overflow_at, 65);
    ck_assert_uint_eq(native.target_after_all.id, native.canvas.id);
    ck_assert_uint_eq(native.target_after_plain.id, 0);
    /* (1, 0) scaled 2, turned a quarter (x -> y), moved to (64, 0): (64, 2). And back. */
    ck_assert_msg(fabsf(native.px - 64) < 1e-4f && fabsf(native.py - 2) < 1e-4f, "(%g, %g)",
                  native.px, native.py);
    ck_assert_msg(fabsf(native.bx - 1) < 1e-4f && fabsf(native.by) < 1e-4f, "(%g, %g)", native.bx,
                  native.by);
    /* The canvas's white square (canvas 4..7 both ways) lands at x 64 - 2 (4..7) = 50..56,
     * y 2 (4..7) = 8..14. */
    EXPECT_NEAR(p, 53, 11, 255, 255, 255);
    EXPECT_NEAR(p, 53, 20, 0, 0, 0);
    EXPECT_NEAR(p, 70, 11, 0, 0, 0);
    stbi_image_free(p);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Misuse names the author's line --------------------------------------------------------- */

START_TEST(test_transform_misuse_names_the_line) {
    static const struct {
        const char *mark, *message;
    } cases[] = {
        {"pop", "ona.gfx.pop: no push to pop (the stack starts empty each turn)"},
        {"overflow", "ona.gfx.push: more than 64 pushes without a pop in one turn"},
        {"push", "ona.gfx.push: bad argument #1 (\"all\" or \"transform\" expected)"},
        {"translate", "ona.gfx.translate: bad argument #1 (number expected, got string)"},
        {"scale", "ona.gfx.scale: bad argument #2 (a scale of 0 draws nothing"},
        {"rotate", "ona.gfx.rotate: bad argument #1 (a finite number expected)"},
        {"set_target", "ona.gfx.set_target: bad argument #1 (a canvas (ona.gfx.canvas) or nil"},
        {"itself", "ona.gfx.draw: a canvas cannot be drawn into itself (it is the target"},
        {"key", "ona.input.key_down: bad argument #1 (unknown key name \"leftshift\" (SDL's or "
                "LÖVE's names: see \"Key names\" in the README))"},
        {"character", "ona.input.key_down: bad argument #1 (\"!\" is a character typed with shift"},
    };
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    char pairs[64], name[16];
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        snprintf(pairs, sizeof pairs, "case=%d", i + 1);
        snprintf(name, sizeof name, "misuse%d", i + 1);
        spawn_lua(rt, "misuse.lua", name, (ona_system){0}, pairs, 0, ONA_POLICY_STOP);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        char want[400];
        snprintf(want, sizeof want, "misuse.lua:%d: %s",
                 lua_marked_line("transform/misuse.lua", cases[i].mark), cases[i].message);
        ck_assert_msg(captured_logs_contain(want), "no \"%s\" in the log:\n%s", want,
                      captured_logs_text());
    }
    ona_runtime_destroy(rt);
}
END_TEST

/* The bunnymark drawn three ways: from sprite buffers, one ona.gfx.draw a bunny, and each draw
 * inside push / translate / pop. The bunnies are the same, so the pictures are, byte for byte,
 * below the HUD's line (which names the mode). */
START_TEST(test_transform_bunnymark_modes_draw_alike) {
    char root[600];
    snprintf(root, sizeof root, "%s/samples/bunnymark", ONA_SOURCE_DIR);
    const char *modes[] = {"mode=parallel bunnies=400", "mode=draw bunnies=400",
                           "mode=transform bunnies=400"};
    uint8_t *pictures[3];
    for (int i = 0; i < 3; i++) {
        game_session s = {.root = root,
                          .args = modes[i],
                          .threads = 2,
                          .video = ONA_VIDEO_OFFSCREEN,
                          .frames = 8,
                          .dt = 1.0 / 60};
        uint64_t diverged = 0;
        char why[256] = "";
        pictures[i] = run_session(&s, &diverged, why, sizeof why);
        ck_assert_msg(pictures[i] != NULL, "%s: no picture; log:\n%s", modes[i],
                      captured_logs_text());
    }
    const size_t row = 320 * 4, skip = 40 * row, size = 240 * row;
    size_t lit = 0; /* bunny pixels in view: the comparison compares something */
    for (size_t k = skip; k < size; k += 4)
        lit += pictures[0][k] > 128 || pictures[0][k + 1] > 128 || pictures[0][k + 2] > 128;
    ck_assert_uint_gt(lit, 1000);
    for (int i = 1; i < 3; i++)
        ck_assert_msg(memcmp(pictures[0] + skip, pictures[i] + skip, size - skip) == 0,
                      "%s draws another picture than %s", modes[i], modes[0]);
    for (int i = 0; i < 3; i++)
        stbi_image_free(pictures[i]);
}
END_TEST

static Suite *transform_suite(void) {
    Suite *s = suite_create("transform");
    TCase *tc = tcase_create("transform");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_transform_push_pop_translate_scale);
    tcase_add_test(tc, test_transform_composes_with_the_camera);
    tcase_add_test(tc, test_transform_rotate_matches_sprite_rotation);
    tcase_add_test(tc, test_transform_rotated_shapes_and_skewed_sprites);
    tcase_add_test(tc, test_transform_set_target_and_push_all);
    tcase_add_test(tc, test_transform_each_turn_starts_afresh);
    tcase_add_test(tc, test_transform_c_api);
    tcase_add_test(tc, test_transform_misuse_names_the_line);
    tcase_add_test(tc, test_transform_bunnymark_modes_draw_alike);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(transform_suite());
}
