/*
 * test_gfx_gl.c: the GL sprite renderer, tested for real: a hidden 64x64 window on SDL's
 * offscreen driver (EGL, Mesa llvmpipe), a GL 4.6 core context (4.5 where that is all there
 * is), frames drawn through ona__gfx_* and read back pixel by pixel. Covers placement, scale,
 * tint, rotation, source rects, the camera, draw order, blending, the growing instance ring and
 * its reuse across frames, the debug font, shader errors and reloads, and screenshots.
 */
#include "test_support.h"
#include "gfx_gl.h"
#include "pin.h"

#include <GL/glew.h>
#include <SDL2/SDL.h>
#include <stb_image.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 64
#define H 64
#define SHADERS ONA_SOURCE_DIR "/shaders"

static SDL_Window *window;
static SDL_GLContext context;
static ona__gfx *gfx;
static uint8_t pixels[W * H * 4];

/* Colours in tests are 0xRRGGBB; sprite tints are 0xAABBGGRR like ona__sprite. */
#define RED 0xFF0000u
#define GREEN 0x00FF00u
#define BLUE 0x0000FFu
#define WHITE 0xFFFFFFu
#define BLACK 0x000000u
#define TINT(r, g, b, a)                                                                           \
    ((uint32_t)(r) | (uint32_t)(g) << 8 | (uint32_t)(b) << 16 | (uint32_t)(a) << 24)

static const float clear_black[4] = {0, 0, 0, 1};

/* --- Fixture ------------------------------------------------------------------------------- */

/* Each test makes and tears down its own context without a window of the runtime's, so it keeps
 * the driver loaded itself (ona__gfx_pin_libraries, pin.h says why). */
static void open_context(void) {
    /* Mesa's llvmpipe offers 4.5; the override lets it create the 4.6 context the runtime asks
     * for (its GLSL stays 4.50, which exercises the renderer's #version fallback). */
    setenv("MESA_GL_VERSION_OVERRIDE", "4.6", 0);
    SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    ck_assert_msg(SDL_Init(SDL_INIT_VIDEO) == 0, "SDL_Init: %s", SDL_GetError());
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    window = SDL_CreateWindow("test_gfx_gl", 0, 0, W, H, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    ck_assert_msg(window != NULL, "SDL_CreateWindow: %s", SDL_GetError());
    for (int minor = 6; minor >= 5 && !context; minor--) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minor);
        context = SDL_GL_CreateContext(window);
    }
    ck_assert_msg(context != NULL, "SDL_GL_CreateContext: %s", SDL_GetError());
    glewExperimental = GL_TRUE;
    GLenum e = glewInit();
    /* On EGL, GLEW reports it found no GLX display although every entry point is loaded. */
    ck_assert_msg(e == GLEW_OK || e == GLEW_ERROR_NO_GLX_DISPLAY, "glewInit: %u", e);
    ona__gfx_pin_libraries();
    int dw = 0, dh = 0;
    SDL_GL_GetDrawableSize(window, &dw, &dh);
    ck_assert_int_eq(dw, W);
    ck_assert_int_eq(dh, H);
}

static void create_gfx(uint32_t capacity, bool debug_output) {
    ona__gfx_desc desc = {
        .shader_dir = SHADERS, .instance_capacity = capacity, .debug_output = debug_output};
    int rc = ona__gfx_create(&desc, &gfx);
    ck_assert_msg(rc == 0, "ona__gfx_create: %s\n%s", ona_strerror(rc), captured_logs_text());
}

static void setup(void) {
    open_context();
    capture_logs_begin();
    create_gfx(0, false);
}

static void teardown(void) {
    ona__gfx_destroy(gfx);
    gfx = NULL;
    capture_logs_end();
    SDL_GL_DeleteContext(context);
    context = NULL;
    SDL_DestroyWindow(window);
    window = NULL;
    SDL_Quit();
}

/* --- Helpers ------------------------------------------------------------------------------- */

static ona__sprite sprite_at(float x, float y, float scale, uint32_t tint) {
    ona__sprite s = {.x = x, .y = y, .scale_x = scale, .scale_y = scale, .tint = tint};
    return s;
}

/* A texture whose texels are `rgb[i]` (0xRRGGBB, opaque). */
static uint32_t texture_of(int w, int h, const uint32_t *rgb) {
    uint8_t rgba[16 * 16 * 4];
    ck_assert(w * h <= 16 * 16);
    for (int i = 0; i < w * h; i++) {
        rgba[i * 4 + 0] = (uint8_t)(rgb[i] >> 16);
        rgba[i * 4 + 1] = (uint8_t)(rgb[i] >> 8);
        rgba[i * 4 + 2] = (uint8_t)rgb[i];
        rgba[i * 4 + 3] = 255;
    }
    uint32_t t = 0;
    ck_assert_int_eq(ona__gfx_texture_upload(gfx, w, h, rgba, &t), 0);
    ck_assert_uint_ne(t, 0);
    return t;
}

static uint32_t solid_texture(int w, int h, uint32_t rgb) {
    uint32_t texels[16 * 16];
    for (int i = 0; i < w * h; i++)
        texels[i] = rgb;
    return texture_of(w, h, texels);
}

static ona__gfx_run run_of(uint32_t texture, int w, int h, uint32_t first, uint32_t count) {
    ona__gfx_run r = {.texture = texture, .width = w, .height = h, .first = first, .count = count};
    return r;
}

/* One whole frame as the runtime does it, then the framebuffer into `pixels`. */
static void draw_frame(const float clear[4], const ona__camera *camera, const ona__sprite *s,
                       uint32_t n, const ona__gfx_run *runs, uint32_t run_count) {
    ona__gfx_begin(gfx, W, H, clear, camera);
    ona__sprite *dst = ona__gfx_instances(gfx, n);
    ck_assert_ptr_nonnull(dst);
    if (n)
        memcpy(dst, s, n * sizeof *s);
    ona__gfx_draw(gfx, runs, run_count);
    ona__gfx_end(gfx);
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 0, 0, W, H, pixels), 0);
}

typedef struct region {
    int x0, y0, x1, y1; /* [x0, x1) x [y0, y1) in framebuffer pixels, y down */
    uint32_t rgb;
} region;

/* Checks every pixel: the last region holding it decides its colour, else `background`. */
static void expect_regions(const char *what, uint32_t background, const region *r, int n,
                           int tolerance) {
    int wrong = 0, fx = -1, fy = -1;
    uint32_t want_first = 0, got_first = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            uint32_t want = background;
            for (int i = 0; i < n; i++)
                if (x >= r[i].x0 && x < r[i].x1 && y >= r[i].y0 && y < r[i].y1)
                    want = r[i].rgb;
            const uint8_t *p = pixels + (y * W + x) * 4;
            uint32_t got = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            int dr = abs((int)p[0] - (int)(want >> 16));
            int dg = abs((int)p[1] - (int)(want >> 8 & 0xFF));
            int db = abs((int)p[2] - (int)(want & 0xFF));
            if (dr > tolerance || dg > tolerance || db > tolerance) {
                if (wrong++ == 0) {
                    fx = x, fy = y;
                    want_first = want, got_first = got;
                }
            }
        }
    }
    ck_assert_msg(wrong == 0, "%s: %d pixels wrong; first at (%d, %d): want %06x, got %06x", what,
                  wrong, fx, fy, want_first, got_first);
}

static void expect_only(const char *what, uint32_t background, int x0, int y0, int x1, int y1,
                        uint32_t rgb) {
    region r = {x0, y0, x1, y1, rgb};
    expect_regions(what, background, &r, 1, 1);
}

/* --- Drawing ------------------------------------------------------------------------------- */

START_TEST(test_gfx_gl_clear_colour_fills_the_framebuffer) {
    const float clear[4] = {0.2f, 0.4f, 0.6f, 1.0f};
    draw_frame(clear, NULL, NULL, 0, NULL, 0);
    expect_regions("clear", 0x336699u, NULL, 0, 1);
    ck_assert_int_eq(pixels[3], 255);
}
END_TEST

START_TEST(test_gfx_gl_sprite_lands_on_the_expected_pixels) {
    uint32_t white = solid_texture(4, 4, WHITE);
    ona__sprite s = sprite_at(10, 20, 1, 0xFFFFFFFFu);
    s.scale_x = 2, s.scale_y = 3;
    ona__gfx_run run = run_of(white, 4, 4, 0, 1);
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    expect_only("scaled 4x4 sprite", BLACK, 10, 20, 18, 32, WHITE);
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_tint_multiplies) {
    uint32_t white = solid_texture(4, 4, WHITE);
    uint32_t brown = solid_texture(4, 4, 0xC86432u); /* (200, 100, 50) */
    ona__sprite s[2] = {sprite_at(4, 4, 2, TINT(255, 128, 0, 255)),
                        sprite_at(30, 30, 2, TINT(128, 255, 255, 255))};
    ona__gfx_run runs[2] = {run_of(white, 4, 4, 0, 1), run_of(brown, 4, 4, 1, 1)};
    draw_frame(clear_black, NULL, s, 2, runs, 2);
    region want[2] = {{4, 4, 12, 12, 0xFF8000u}, {30, 30, 38, 38, 0x646432u}};
    expect_regions("tinted", BLACK, want, 2, 1);
    ona__gfx_texture_free(gfx, white);
    ona__gfx_texture_free(gfx, brown);
}
END_TEST

START_TEST(test_gfx_gl_rotation_turns_clockwise_around_the_origin) {
    const uint32_t texels[2] = {RED, GREEN};
    uint32_t bar = texture_of(2, 1, texels);
    /* A 2x1 bar scaled to 8x4, its pivot at its centre (1, 0.5 texels) placed at (32, 32). */
    ona__sprite s = sprite_at(32, 32, 4, 0xFFFFFFFFu);
    s.origin_x = 1, s.origin_y = 0.5f;
    ona__gfx_run run = run_of(bar, 2, 1, 0, 1);
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    region flat[2] = {{28, 30, 32, 34, RED}, {32, 30, 36, 34, GREEN}};
    expect_regions("unrotated", BLACK, flat, 2, 0);
    /* A quarter turn clockwise on screen: the red left end goes to the top. */
    s.rotation = (float)(M_PI / 2);
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    region turned[2] = {{30, 28, 34, 32, RED}, {30, 32, 34, 36, GREEN}};
    expect_regions("rotated 90 degrees", BLACK, turned, 2, 0);
    ona__gfx_texture_free(gfx, bar);
}
END_TEST

START_TEST(test_gfx_gl_source_rect_picks_a_sub_rectangle) {
    /* 4x4 quadrants: red top-left, green top-right, blue bottom-left, white bottom-right. */
    uint32_t texels[16];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            texels[y * 4 + x] = y < 2 ? (x < 2 ? RED : GREEN) : (x < 2 ? BLUE : WHITE);
    uint32_t quads = texture_of(4, 4, texels);
    ona__sprite s[2] = {sprite_at(5, 5, 3, 0xFFFFFFFFu), sprite_at(40, 10, 2, 0xFFFFFFFFu)};
    s[0].src_x = 2, s[0].src_y = 2, s[0].src_w = 2, s[0].src_h = 2; /* the white quadrant */
    s[1].src_x = 2, s[1].src_y = 0, s[1].src_w = 2, s[1].src_h = 4; /* the right half */
    ona__gfx_run run = run_of(quads, 4, 4, 0, 2);
    draw_frame(clear_black, NULL, s, 2, &run, 1);
    region want[3] = {{5, 5, 11, 11, WHITE}, {40, 10, 44, 14, GREEN}, {40, 14, 44, 18, WHITE}};
    expect_regions("source rects", BLACK, want, 3, 0);
    ona__gfx_texture_free(gfx, quads);
}
END_TEST

START_TEST(test_gfx_gl_camera_centres_and_zooms) {
    uint32_t white = solid_texture(4, 4, WHITE);
    ona__gfx_run run = run_of(white, 4, 4, 0, 1);
    ona__sprite s = sprite_at(0, 0, 1, 0xFFFFFFFFu);
    ona__camera cam = {.x = 0, .y = 0, .zoom = 1};
    draw_frame(clear_black, &cam, &s, 1, &run, 1);
    expect_only("world origin at the centre", BLACK, 32, 32, 36, 36, WHITE);
    cam.zoom = 2;
    draw_frame(clear_black, &cam, &s, 1, &run, 1);
    expect_only("zoom 2", BLACK, 32, 32, 40, 40, WHITE);
    cam = (ona__camera){.x = 10, .y = 10, .zoom = 2};
    s = sprite_at(6, 8, 1, 0xFFFFFFFFu);
    draw_frame(clear_black, &cam, &s, 1, &run, 1);
    expect_only("moved camera, zoom 2", BLACK, 24, 28, 32, 36, WHITE);
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_later_sprites_cover_earlier_ones) {
    uint32_t white = solid_texture(1, 1, WHITE);
    uint32_t blue = solid_texture(1, 1, BLUE);
    /* Within a run, then across runs. */
    ona__sprite s[3] = {sprite_at(10, 10, 8, TINT(255, 0, 0, 255)),
                        sprite_at(14, 14, 8, TINT(0, 255, 0, 255)),
                        sprite_at(16, 16, 8, 0xFFFFFFFFu)};
    ona__gfx_run runs[2] = {run_of(white, 1, 1, 0, 2), run_of(blue, 1, 1, 2, 1)};
    draw_frame(clear_black, NULL, s, 3, runs, 2);
    region want[3] = {{10, 10, 18, 18, RED}, {14, 14, 22, 22, GREEN}, {16, 16, 24, 24, BLUE}};
    expect_regions("white run, then blue run", BLACK, want, 3, 0);
    /* The same sprites with the blue run first: order follows the runs, not the textures. */
    ona__sprite t[3] = {s[2], s[0], s[1]};
    ona__gfx_run runs2[2] = {run_of(blue, 1, 1, 0, 1), run_of(white, 1, 1, 1, 2)};
    draw_frame(clear_black, NULL, t, 3, runs2, 2);
    region want2[3] = {{16, 16, 24, 24, BLUE}, {10, 10, 18, 18, RED}, {14, 14, 22, 22, GREEN}};
    expect_regions("blue run, then white run", BLACK, want2, 3, 0);
    ona__gfx_texture_free(gfx, white);
    ona__gfx_texture_free(gfx, blue);
}
END_TEST

START_TEST(test_gfx_gl_alpha_blends_over_the_background) {
    uint32_t white = solid_texture(1, 1, WHITE);
    const float blue[4] = {0, 0, 1, 1};
    ona__sprite s = sprite_at(8, 8, 16, TINT(255, 0, 0, 128));
    ona__gfx_run run = run_of(white, 1, 1, 0, 1);
    draw_frame(blue, NULL, &s, 1, &run, 1);
    /* 128/255 of red over blue: (128, 0, 127). */
    region want = {8, 8, 24, 24, 0x80007Fu};
    expect_regions("half-transparent red over blue", BLUE, &want, 1, 2);
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_frames_without_instances) {
    uint32_t white = solid_texture(1, 1, WHITE);
    ona__gfx_run run = run_of(white, 1, 1, 0, 1);
    ona__sprite s = sprite_at(1, 1, 2, 0xFFFFFFFFu);
    for (int frame = 0; frame < 8; frame++) {
        bool with = frame % 3 == 1;
        draw_frame(clear_black, NULL, &s, with ? 1 : 0, with ? &run : NULL, with ? 1 : 0);
        if (with)
            expect_only("frame with one sprite", BLACK, 1, 1, 3, 3, WHITE);
        else
            expect_regions("empty frame", BLACK, NULL, 0, 0);
        SDL_GL_SwapWindow(window);
    }
    ck_assert(!captured_logs_contain("error"));
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_begin_closes_a_frame_left_without_end) {
    uint32_t white = solid_texture(1, 1, WHITE);
    ona__gfx_run run = run_of(white, 1, 1, 0, 1);
    ona__gfx_begin(gfx, W, H, clear_black, NULL);
    ona__sprite *first = ona__gfx_instances(gfx, 1);
    ck_assert_ptr_nonnull(first);
    first[0] = sprite_at(0, 0, 4, 0xFFFFFFFFu);
    ona__gfx_draw(gfx, &run, 1);
    /* No ona__gfx_end: the next frame must still take the next region, not this one. */
    ona__gfx_begin(gfx, W, H, clear_black, NULL);
    ona__sprite *second = ona__gfx_instances(gfx, 1);
    ck_assert_ptr_nonnull(second);
    ck_assert_ptr_ne(first, second);
    second[0] = sprite_at(8, 8, 4, 0xFFFFFFFFu);
    ona__gfx_draw(gfx, &run, 1);
    ona__gfx_end(gfx);
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 0, 0, W, H, pixels), 0);
    expect_only("the second frame", BLACK, 8, 8, 12, 12, WHITE);
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_ring_grows_and_is_reused_across_frames) {
    ona__gfx_destroy(gfx);
    gfx = NULL;
    create_gfx(16, false);
    uint32_t white = solid_texture(1, 1, WHITE);
    static ona__sprite s[1000];
    static const uint32_t tints[3] = {TINT(255, 0, 0, 255), TINT(0, 255, 0, 255),
                                      TINT(0, 0, 255, 255)};
    static const uint32_t colours[3] = {RED, GREEN, BLUE};
    ona__sprite *regions[8];
    for (int frame = 0; frame < 8; frame++) {
        for (int i = 0; i < 1000; i++)
            s[i] = sprite_at((float)(2 + i % 50), (float)(2 + i / 50), 1, tints[frame % 3]);
        ona__gfx_begin(gfx, W, H, clear_black, NULL);
        ona__sprite *dst = ona__gfx_instances(gfx, 1000);
        ck_assert_ptr_nonnull(dst);
        regions[frame] = dst;
        memcpy(dst, s, sizeof s);
        /* Two runs over the same texture, to draw from an offset inside the region. */
        ona__gfx_run runs[2] = {run_of(white, 1, 1, 0, 600), run_of(white, 1, 1, 600, 400)};
        ona__gfx_draw(gfx, runs, 2);
        ona__gfx_end(gfx);
        ck_assert_int_eq(ona__gfx_read_pixels(gfx, 0, 0, W, H, pixels), 0);
        expect_only("1000 one-pixel sprites", BLACK, 2, 2, 52, 22, colours[frame % 3]);
        SDL_GL_SwapWindow(window);
    }
    ck_assert_msg(captured_logs_contain("instance ring grown from 16 to 1024"), "%s",
                  captured_logs_text());
    ck_assert_int_eq(captured_logs_count("instance ring grown"), 1);
    /* Three regions, used in turn: each is reused three frames later, after its fence. */
    for (int f = 0; f + 3 < 8; f++) {
        ck_assert_ptr_eq(regions[f], regions[f + 3]);
        ck_assert_ptr_ne(regions[f], regions[f + 1]);
        ck_assert_ptr_ne(regions[f], regions[f + 2]);
    }
    ona__gfx_texture_free(gfx, white);
}
END_TEST

/* --- The debug font ------------------------------------------------------------------------ */

static const char *const glyph_A[8] = {"..##....", ".####...", "##..##..", "##..##..",
                                       "######..", "##..##..", "##..##..", "........"};
static const char *const glyph_bang[8] = {"...##...", "..####..", "..####..", "...##...",
                                          "...##...", "........", "...##...", "........"};

START_TEST(test_gfx_gl_font_atlas_holds_the_glyphs) {
    static uint8_t atlas[ONA__FONT_ATLAS_W * ONA__FONT_ATLAS_H * 4];
    ona__font_atlas(atlas);
    struct {
        unsigned char c;
        float x, y;
        const char *const *rows;
    } cases[2] = {{'A', 8, 16, glyph_A}, {'!', 8, 0, glyph_bang}};
    for (int k = 0; k < 2; k++) {
        float sx = -1, sy = -1;
        ona__font_glyph(cases[k].c, &sx, &sy);
        ck_assert_float_eq(sx, cases[k].x);
        ck_assert_float_eq(sy, cases[k].y);
        for (int r = 0; r < 8; r++) {
            for (int c = 0; c < 8; c++) {
                const uint8_t *p = atlas + (((int)sy + r) * ONA__FONT_ATLAS_W + (int)sx + c) * 4;
                uint8_t v = cases[k].rows[r][c] == '#' ? 255 : 0;
                ck_assert_msg(p[0] == v && p[1] == v && p[2] == v && p[3] == v,
                              "glyph '%c' row %d column %d", cases[k].c, r, c);
            }
        }
    }
    /* The space is empty; '~' is the last glyph; bytes outside 32..126 show '?'. */
    float x, y, qx, qy;
    ona__font_glyph(' ', &x, &y);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            ck_assert_int_eq(atlas[((int)y + r) * ONA__FONT_ATLAS_W * 4 + ((int)x + c) * 4 + 3], 0);
    ona__font_glyph('~', &x, &y);
    ck_assert_float_eq(x, 112);
    ck_assert_float_eq(y, 40);
    ona__font_glyph('?', &qx, &qy);
    ona__font_glyph(200, &x, &y);
    ck_assert_float_eq(x, qx);
    ck_assert_float_eq(y, qy);
    ona__font_glyph('\n', &x, &y);
    ck_assert_float_eq(x, qx);
}
END_TEST

START_TEST(test_gfx_gl_text_drawn_from_glyph_sprites) {
    static uint8_t atlas[ONA__FONT_ATLAS_W * ONA__FONT_ATLAS_H * 4];
    ona__font_atlas(atlas);
    uint32_t font = 0;
    ck_assert_int_eq(
        ona__gfx_texture_upload(gfx, ONA__FONT_ATLAS_W, ONA__FONT_ATLAS_H, atlas, &font), 0);
    const char *text = "A!";
    ona__sprite s[2];
    for (int i = 0; i < 2; i++) {
        s[i] = sprite_at((float)(8 + 16 * i), 8, 2, 0xFFFFFFFFu);
        ona__font_glyph((unsigned char)text[i], &s[i].src_x, &s[i].src_y);
        s[i].src_w = s[i].src_h = ONA__FONT_GLYPH;
    }
    ona__gfx_run run = run_of(font, ONA__FONT_ATLAS_W, ONA__FONT_ATLAS_H, 0, 2);
    draw_frame(clear_black, NULL, s, 2, &run, 1);
    region lit[2 * 64];
    int n = 0;
    const char *const *glyphs[2] = {glyph_A, glyph_bang};
    for (int i = 0; i < 2; i++)
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++)
                if (glyphs[i][r][c] == '#') {
                    int x = 8 + 16 * i + 2 * c, y = 8 + 2 * r;
                    lit[n++] = (region){x, y, x + 2, y + 2, WHITE};
                }
    expect_regions("\"A!\" at scale 2", BLACK, lit, n, 0);
    ona__gfx_texture_free(gfx, font);
}
END_TEST

/* --- Shaders ------------------------------------------------------------------------------- */

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void write_all(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
}

/* sprite.frag with the line that assigns o_color replaced by `line`; *at gets its number. */
static void frag_with(const char *line, char *out, size_t size, int *at) {
    const char *src = read_all(SHADERS "/sprite.frag");
    const char *hit = strstr(src, "    o_color =");
    ck_assert_ptr_nonnull(hit);
    *at = 1;
    for (const char *p = src; p < hit; p++)
        *at += *p == '\n';
    const char *rest = strchr(hit, '\n');
    snprintf(out, size, "%.*s%s%s", (int)(hit - src), src, line, rest);
}

static char temp_dir[64];

/* A copy of the shader folder in a fresh temporary directory, with the given sprite.frag. */
static void make_shader_dir(const char *frag) {
    snprintf(temp_dir, sizeof temp_dir, "/tmp/ona_gfx_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(temp_dir));
    char path[128];
    snprintf(path, sizeof path, "%s/sprite.vert", temp_dir);
    write_all(path, read_all(SHADERS "/sprite.vert"));
    snprintf(path, sizeof path, "%s/sprite.frag", temp_dir);
    write_all(path, frag);
}

static void write_frag(const char *frag) {
    char path[128];
    snprintf(path, sizeof path, "%s/sprite.frag", temp_dir);
    write_all(path, frag);
}

static void remove_shader_dir(void) {
    char path[128];
    const char *names[] = {"sprite.vert", "sprite.frag", "shot.png"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", temp_dir, names[i]);
        unlink(path);
    }
    rmdir(temp_dir);
}

START_TEST(test_gfx_gl_broken_shader_fails_creation_with_file_and_line) {
    char frag[16384], needle[160];
    int line = 0;
    frag_with("    o_color = no_such_variable;", frag, sizeof frag, &line);
    make_shader_dir(frag);
    ona__gfx *broken = (ona__gfx *)&broken;
    ona__gfx_desc desc = {.shader_dir = temp_dir};
    ck_assert_int_eq(ona__gfx_create(&desc, &broken), ONA_EGFX);
    ck_assert_ptr_null(broken);
    snprintf(needle, sizeof needle, "error: %s/sprite.frag:%d: ", temp_dir, line);
    ck_assert_msg(captured_logs_contain(needle), "want \"%s\" in:\n%s", needle,
                  captured_logs_text());
    ck_assert(captured_logs_contain("no_such_variable"));
    remove_shader_dir();
}
END_TEST

START_TEST(test_gfx_gl_reload_keeps_the_old_program_until_the_fix) {
    char good[16384], broken[16384], green[16384], needle[160];
    int line = 0;
    frag_with("    o_color = texture(u_texture, v_uv) * v_tint;", good, sizeof good, &line);
    frag_with("    o_color = texture(u_texture, v_uv) * undeclared_tint;", broken, sizeof broken,
              &line);
    frag_with("    o_color = vec4(0.0, 1.0, 0.0, 1.0);", green, sizeof green, &line);
    make_shader_dir(good);
    ona__gfx_destroy(gfx);
    gfx = NULL;
    ona__gfx_desc desc = {.shader_dir = temp_dir};
    ck_assert_int_eq(ona__gfx_create(&desc, &gfx), 0);
    uint32_t white = solid_texture(1, 1, WHITE);
    ona__sprite s = sprite_at(4, 4, 8, TINT(255, 0, 0, 255));
    ona__gfx_run run = run_of(white, 1, 1, 0, 1);

    write_frag(broken);
    ck_assert_int_eq(ona__gfx_reload_shaders(gfx), ONA_EGFX);
    snprintf(needle, sizeof needle, "%s/sprite.frag:%d: ", temp_dir, line);
    ck_assert_msg(captured_logs_contain(needle), "want \"%s\" in:\n%s", needle,
                  captured_logs_text());
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    expect_only("the old program still draws", BLACK, 4, 4, 12, 12, RED);

    write_frag(green);
    ck_assert_int_eq(ona__gfx_reload_shaders(gfx), 0);
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    expect_only("the fixed program draws", BLACK, 4, 4, 12, 12, GREEN);
    ona__gfx_texture_free(gfx, white);
    remove_shader_dir();
}
END_TEST

START_TEST(test_gfx_gl_glsl_450_fallback_is_logged) {
    int major = 0, minor = 0;
    sscanf((const char *)glGetString(GL_SHADING_LANGUAGE_VERSION), "%d.%d", &major, &minor);
    bool below_460 = major * 100 + minor < 460;
    ck_assert_int_eq(
        captured_logs_contain("info: gfx: " SHADERS "/sprite.vert: the driver offers GLSL"),
        below_460);
    ck_assert_int_eq(captured_logs_count("compiled as #version 450"), below_460 ? 1 : 0);
    ck_assert(captured_logs_contain("info: gfx: OpenGL 4."));
}
END_TEST

START_TEST(test_gfx_gl_debug_output_reaches_the_log) {
    ona__gfx_destroy(gfx);
    gfx = NULL;
    create_gfx(0, true);
    glEnable(0x1234); /* an invalid enum: the driver reports it through debug output */
    while (glGetError() != GL_NO_ERROR)
        ;
    ck_assert_msg(captured_logs_contain("error: gl: api error"), "%s", captured_logs_text());
    ck_assert(captured_logs_contain("GL_INVALID_ENUM"));
    /* Shader logs come only as path:line, not again from the driver's shader compiler. */
    ck_assert_msg(!captured_logs_contain("gl: shader compiler"), "%s", captured_logs_text());
}
END_TEST

/* --- Textures, read-back, screenshots ------------------------------------------------------ */

START_TEST(test_gfx_gl_bad_arguments_are_rejected) {
    uint8_t rgba[16] = {0};
    uint32_t t = 7;
    ck_assert_int_eq(ona__gfx_texture_upload(gfx, 0, 1, rgba, &t), ONA_EINVAL);
    ck_assert_int_eq(ona__gfx_texture_upload(gfx, 1, 1, NULL, &t), ONA_EINVAL);
    ck_assert_int_eq(ona__gfx_texture_upload(gfx, 1 << 30, 1, rgba, &t), ONA_EINVAL);
    ck_assert_uint_eq(t, 7);
    ona__gfx_desc desc = {0};
    ona__gfx *g = NULL;
    ck_assert_int_eq(ona__gfx_create(&desc, &g), ONA_EINVAL);
    draw_frame(clear_black, NULL, NULL, 0, NULL, 0);
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 60, 0, 8, 8, pixels), ONA_EINVAL);
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 0, -1, 8, 8, pixels), ONA_EINVAL);
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 0, 0, 0, 8, pixels), ONA_EINVAL);
    ck_assert_int_eq(ona__gfx_screenshot(gfx, W + 1, H, "/tmp/never.png"), ONA_EINVAL);
}
END_TEST

START_TEST(test_gfx_gl_read_pixels_returns_rows_top_down) {
    uint32_t white = solid_texture(1, 1, WHITE);
    ona__sprite s = sprite_at(3, 5, 2, 0xFFFFFFFFu);
    ona__gfx_run run = run_of(white, 1, 1, 0, 1);
    draw_frame(clear_black, NULL, &s, 1, &run, 1);
    uint8_t part[4 * 3 * 4];
    /* A 4x3 window at (2, 4): row 0 is y = 4 (black), rows 1 and 2 hold the sprite's x 3..4. */
    ck_assert_int_eq(ona__gfx_read_pixels(gfx, 2, 4, 4, 3, part), 0);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
            bool on = r >= 1 && c >= 1 && c <= 2;
            ck_assert_msg(part[(r * 4 + c) * 4] == (on ? 255 : 0), "row %d column %d", r, c);
        }
    ona__gfx_texture_free(gfx, white);
}
END_TEST

START_TEST(test_gfx_gl_screenshot_writes_the_framebuffer_as_png) {
    const uint32_t texels[4] = {RED, GREEN, BLUE, WHITE};
    uint32_t t = texture_of(2, 2, texels);
    ona__sprite s = sprite_at(7, 9, 5, TINT(255, 255, 255, 200));
    ona__gfx_run run = run_of(t, 2, 2, 0, 1);
    const float clear[4] = {0.1f, 0.2f, 0.3f, 1.0f};
    draw_frame(clear, NULL, &s, 1, &run, 1);
    make_shader_dir("");
    char path[128];
    snprintf(path, sizeof path, "%s/shot.png", temp_dir);
    ck_assert_int_eq(ona__gfx_screenshot(gfx, W, H, path), 0);
    int w = 0, h = 0, n = 0;
    uint8_t *png = stbi_load(path, &w, &h, &n, 4);
    ck_assert_msg(png != NULL, "stbi_load: %s", stbi_failure_reason());
    ck_assert_int_eq(w, W);
    ck_assert_int_eq(h, H);
    for (int i = 0; i < W * H; i++) {
        ck_assert_msg(memcmp(png + i * 4, pixels + i * 4, 3) == 0, "pixel (%d, %d) differs", i % W,
                      i / W);
        ck_assert_int_eq(png[i * 4 + 3], 255);
    }
    /* The sprite is really in it: its top-left texel is red blended over the clear colour. */
    ck_assert_int_gt(png[(9 * W + 7) * 4], 180);
    stbi_image_free(png);

    snprintf(path, sizeof path, "%s/no/such/dir/shot.png", temp_dir);
    ck_assert_int_eq(ona__gfx_screenshot(gfx, W, H, path), ONA_EIO);
    ck_assert_msg(captured_logs_contain(path), "%s", captured_logs_text());
    remove_shader_dir();
    ona__gfx_texture_free(gfx, t);
}
END_TEST

START_TEST(test_gfx_gl_reports_version_and_renderer) {
    ck_assert_str_eq(ona__gfx_gl_version(gfx), (const char *)glGetString(GL_VERSION));
    ck_assert_str_eq(ona__gfx_gl_renderer(gfx), (const char *)glGetString(GL_RENDERER));
    ck_assert(strncmp(ona__gfx_gl_version(gfx), "4.", 2) == 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gfx_gl");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_gfx_gl_clear_colour_fills_the_framebuffer);
    tcase_add_test(tc, test_gfx_gl_sprite_lands_on_the_expected_pixels);
    tcase_add_test(tc, test_gfx_gl_tint_multiplies);
    tcase_add_test(tc, test_gfx_gl_rotation_turns_clockwise_around_the_origin);
    tcase_add_test(tc, test_gfx_gl_source_rect_picks_a_sub_rectangle);
    tcase_add_test(tc, test_gfx_gl_camera_centres_and_zooms);
    tcase_add_test(tc, test_gfx_gl_later_sprites_cover_earlier_ones);
    tcase_add_test(tc, test_gfx_gl_alpha_blends_over_the_background);
    tcase_add_test(tc, test_gfx_gl_frames_without_instances);
    tcase_add_test(tc, test_gfx_gl_begin_closes_a_frame_left_without_end);
    tcase_add_test(tc, test_gfx_gl_ring_grows_and_is_reused_across_frames);
    tcase_add_test(tc, test_gfx_gl_font_atlas_holds_the_glyphs);
    tcase_add_test(tc, test_gfx_gl_text_drawn_from_glyph_sprites);
    tcase_add_test(tc, test_gfx_gl_broken_shader_fails_creation_with_file_and_line);
    tcase_add_test(tc, test_gfx_gl_reload_keeps_the_old_program_until_the_fix);
    tcase_add_test(tc, test_gfx_gl_glsl_450_fallback_is_logged);
    tcase_add_test(tc, test_gfx_gl_debug_output_reaches_the_log);
    tcase_add_test(tc, test_gfx_gl_bad_arguments_are_rejected);
    tcase_add_test(tc, test_gfx_gl_read_pixels_returns_rows_top_down);
    tcase_add_test(tc, test_gfx_gl_screenshot_writes_the_framebuffer_as_png);
    tcase_add_test(tc, test_gfx_gl_reports_version_and_renderer);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
