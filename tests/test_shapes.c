/*
 * test_shapes.c: shapes, sprite sheets and tile maps. Tessellation is checked by
 * arithmetic (quad counts, covered areas, ear clipping of a concave polygon, the sizing
 * contract); drawing for real, offscreen on Mesa llvmpipe: golden images of every shape filled
 * and outlined and of a scrolled tile map, each identical on 1 and 2 worker threads; a sheet
 * animation's frames over time; a tile map larger than the screen drawing only its visible
 * tiles (counted in the merged render list); a tile buffer moved to another system; Lua misuse
 * raising at the author's line; a native system drawing through ona/shapes.h.
 *
 * Set ONA_UPDATE_GOLDEN=1 to rewrite tests/golden/shapes_*.png from this machine's rendering
 * (then look at them before committing).
 */
#include "test_support.h"

#include "runtime_internal.h"

#include <math.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { W = 128, H = 128 };

/* The scripts' folder and the scratch folder their textures are written to: a script may load
 * only files inside its roots. */
static const char *roots[] = {ONA_SOURCE_DIR "/tests/lua/shapes", NULL, NULL};
static char tmpdir[256], tex_path[512];

/* --- Tessellation ---------------------------------------------------------------------------- */

static double tri_area(double ax, double ay, double bx, double by, double cx, double cy) {
    return fabs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) / 2;
}

/* The area a free quad covers: its two strip triangles (0-1-2, 1-2-3). */
static double quad_area(const ona_sprite *s) {
    ck_assert(s->src_w == ONA_SPRITE_QUAD);
    return tri_area(s->x, s->y, s->origin_x, s->origin_y, s->scale_x, s->scale_y) +
           tri_area(s->origin_x, s->origin_y, s->scale_x, s->scale_y, s->rotation, s->src_x);
}

static double total_area(const ona_sprite *s, uint32_t n) {
    double a = 0;
    for (uint32_t i = 0; i < n; i++)
        a += quad_area(&s[i]);
    return a;
}

START_TEST(test_shapes_rect_and_lines_cover_their_area) {
    ona_sprite s[64];
    ck_assert_uint_eq(ona_shape_rect(10, 20, 30, 40, NULL, NULL, 0), 1);
    ck_assert_uint_eq(ona_shape_rect(10, 20, 30, 40, NULL, s, 64), 1);
    ck_assert_double_eq_tol(total_area(s, 1), 1200, 1e-3);
    ck_assert_uint_eq(s[0].tint, 0xFFFFFFFFu);
    /* An outline of width 2 centred on the edge: (w + 2)(h + 2) - (w - 2)(h - 2). */
    ona_shape_style line = {.mode = ONA_SHAPE_LINE, .width = 2, .tint = ONA_RGBA(1, 2, 3, 4)};
    ck_assert_uint_eq(ona_shape_rect(10, 20, 30, 40, &line, s, 64), 4);
    ck_assert_double_eq_tol(total_area(s, 4), 32.0 * 42 - 28.0 * 38, 1e-2);
    ck_assert_uint_eq(s[3].tint, ONA_RGBA(1, 2, 3, 4));
    /* A 50-long line of width 4: butt 200, square caps 54 * 4. */
    ona_shape_style w4 = {.width = 4};
    ck_assert_uint_eq(ona_shape_line(0, 0, 30, 40, &w4, s, 64), 1);
    ck_assert_double_eq_tol(total_area(s, 1), 200, 1e-3);
    w4.cap = ONA_CAP_SQUARE;
    ck_assert_uint_eq(ona_shape_line(0, 0, 30, 40, &w4, s, 64), 1);
    ck_assert_double_eq_tol(total_area(s, 1), 216, 1e-3);
    /* Round caps add a disc at each end. */
    w4.cap = ONA_CAP_ROUND;
    uint32_t n = ona_shape_line(0, 0, 30, 40, &w4, s, 64);
    ck_assert_uint_gt(n, 3);
    ck_assert_uint_eq(n, ona_shape_line(0, 0, 30, 40, &w4, NULL, 0));
    /* A polyline of 3 points: 2 quads; closed: 3. */
    const float zig[6] = {0, 0, 10, 0, 10, 10};
    ck_assert_uint_eq(ona_shape_polyline(zig, 3, false, NULL, s, 64), 2);
    ck_assert_uint_eq(ona_shape_polyline(zig, 3, true, NULL, s, 64), 3);
    ck_assert_uint_eq(ona_shape_polyline(zig, 1, false, NULL, s, 64), 0);
    /* A repeated point adds a degenerate segment, not a spike: the area stays 2 x 10 x 1. */
    const float twice[8] = {0, 0, 10, 0, 10, 0, 10, 10};
    ck_assert_uint_eq(ona_shape_polyline(twice, 4, false, NULL, s, 64), 3);
    ck_assert_double_eq_tol(total_area(s, 3), 20.0, 1.0);
}
END_TEST

START_TEST(test_shapes_circle_is_a_fan_of_quads) {
    static ona_sprite s[1024];
    ona_shape_style st = {.segments = 32};
    ck_assert_uint_eq(ona_shape_circle(50, 50, 10, &st, s, 1024), 16);
    /* The regular 32-gon's area: n/2 r^2 sin(2 pi / n). */
    ck_assert_double_eq_tol(total_area(s, 16), 16 * 100 * sin(2 * M_PI / 32), 1e-2);
    /* Odd counts leave a triangle in the last quad. */
    st.segments = 7;
    ck_assert_uint_eq(ona_shape_circle(0, 0, 10, &st, s, 1024), 4);
    ck_assert_double_eq_tol(total_area(s, 4), 3.5 * 100 * sin(2 * M_PI / 7), 1e-2);
    /* Segments from the radius: more for larger circles, always even and bounded. */
    uint32_t small = ona_shape_circle_segments(4, NULL), big = ona_shape_circle_segments(400, NULL);
    ck_assert_uint_ge(small, 8);
    ck_assert_uint_gt(big, small);
    ck_assert_uint_le(big, 256);
    ck_assert_uint_eq(ona_shape_circle(0, 0, 400, NULL, NULL, 0), (big + 1) / 2);
    /* The outline: one quad a side; a ring of width 2 around r = 10. */
    st = (ona_shape_style){.mode = ONA_SHAPE_LINE, .width = 2, .segments = 64};
    ck_assert_uint_eq(ona_shape_circle(0, 0, 10, &st, s, 1024), 64);
    double ring = 32 * (121 - 81) * sin(2 * M_PI / 64) / cos(M_PI / 64) * cos(M_PI / 64);
    ck_assert_double_eq_tol(total_area(s, 64), ring, 0.5);
    ck_assert_uint_eq(ona_shape_circle(0, 0, 0, NULL, s, 1024), 0);
}
END_TEST

/* Shoelace area of a polygon. */
static double poly_area(const float *xy, int n) {
    double a = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        a += (double)xy[2 * i] * xy[2 * j + 1] - (double)xy[2 * j] * xy[2 * i + 1];
    }
    return fabs(a) / 2;
}

START_TEST(test_shapes_ear_clipping_fills_a_concave_polygon) {
    ona_sprite s[64];
    /* An arrow (concave at two vertices), both windings. */
    float arrow[14] = {0, 10, 20, 0, 20, 6, 40, 6, 40, 14, 20, 14, 20, 20};
    for (int pass = 0; pass < 2; pass++) {
        ck_assert_uint_eq(ona_shape_polygon(arrow, 7, NULL, NULL, 0), 5);
        ck_assert_uint_eq(ona_shape_polygon(arrow, 7, NULL, s, 64), 5);
        /* Triangles that tile the polygon exactly: their areas sum to its area (an overlap or a
         * triangle outside it, across the notch, would add area). */
        ck_assert_double_eq_tol(total_area(s, 5), poly_area(arrow, 7), 1e-3);
        ck_assert_double_eq_tol(poly_area(arrow, 7), 20 * 20 / 2.0 + 20 * 8, 1e-3);
        for (int i = 0; i < 5; i++) /* a triangle: the 4th corner repeats the 3rd */
            ck_assert(s[i].rotation == s[i].scale_x && s[i].src_x == s[i].scale_y);
        for (int i = 0; i < 7 / 2; i++) { /* reverse the winding */
            for (int k = 0; k < 2; k++) {
                float t = arrow[2 * i + k];
                arrow[2 * i + k] = arrow[2 * (6 - i) + k];
                arrow[2 * (6 - i) + k] = t;
            }
        }
    }
    /* A comb with three teeth (deeply concave). */
    const float comb[] = {0,  0,  30, 0,  30, 20, 25, 20, 25, 5,  20, 5,
                          20, 20, 10, 20, 10, 5,  5,  5,  5,  20, 0,  20};
    uint32_t n = ona_shape_polygon(comb, 12, NULL, s, 64);
    ck_assert_uint_eq(n, 10);
    ck_assert_double_eq_tol(total_area(s, n), poly_area(comb, 12), 1e-3);
    /* Self-intersecting (a bow tie): still count - 2 triangles, and it ends. */
    const float bow[] = {0, 0, 10, 10, 10, 0, 0, 10};
    ck_assert_uint_eq(ona_shape_polygon(bow, 4, NULL, s, 64), 2);
    /* Sizing: nothing written past max. */
    s[1].tint = 7;
    ck_assert_uint_eq(ona_shape_polygon(arrow, 7, NULL, s, 1), 5);
    ck_assert_uint_eq(s[1].tint, 7);
    ck_assert_uint_eq(ona_shape_polygon(arrow, 2, NULL, s, 64), 0);
    ona_shape_style outline = {.mode = ONA_SHAPE_LINE};
    ck_assert_uint_eq(ona_shape_polygon(arrow, 7, &outline, s, 64), 7);
}
END_TEST

START_TEST(test_shapes_tilemap_emits_only_visible_tiles) {
    static uint16_t tiles[100 * 50];
    for (int i = 0; i < 100 * 50; i++)
        tiles[i] = (uint16_t)(i % 5); /* every fifth is empty */
    ona_tilemap map = {.texture = {1},
                       .texture_w = 16,
                       .texture_h = 16,
                       .tile_w = 8,
                       .tile_h = 8,
                       .w = 100,
                       .h = 50,
                       .tiles = tiles};
    ck_assert_uint_eq(ona_tilemap_sprites(&map, 0, 0, NULL, 0, NULL, 0), 4000);
    /* A 32 x 16 view at (80, 40): tiles 10..13 x 5..6. */
    const float view[4] = {80, 40, 32, 16};
    ona_sprite s[16];
    uint32_t n = ona_tilemap_sprites(&map, 0, 0, view, 0, s, 16);
    int want = 0;
    for (int y = 5; y < 7; y++)
        for (int x = 10; x < 14; x++)
            want += tiles[y * 100 + x] != 0;
    ck_assert_uint_eq(n, (uint32_t)want);
    /* Tile (10, 5) has id (5 * 100 + 10) % 5 = 0: empty; (11, 5) is id 1: the first cell. */
    ck_assert_float_eq(s[0].x, 88);
    ck_assert_float_eq(s[0].y, 40);
    ck_assert_float_eq(s[0].src_x, 0);
    ck_assert_float_eq(s[0].src_w, 8);
    /* In chunks: skip. */
    ck_assert_uint_eq(ona_tilemap_sprites(&map, 0, 0, view, 2, s, 16), (uint32_t)want - 2);
    /* Outside the map: nothing; a map offset moves the view. */
    const float away[4] = {-500, -500, 100, 100};
    ck_assert_uint_eq(ona_tilemap_sprites(&map, 0, 0, away, 0, s, 16), 0);
    ck_assert_uint_gt(ona_tilemap_sprites(&map, -480, -480, away, 0, NULL, 0), 0);
    /* Ids past the texture's 4 cells are skipped. */
    tiles[0] = 9;
    const float corner[4] = {0, 0, 8, 8};
    ck_assert_uint_eq(ona_tilemap_sprites(&map, 0, 0, corner, 0, s, 16), 0);
}
END_TEST

/* --- Rendering ------------------------------------------------------------------------------- */

/* A 32x8 texture of four 8x8 cells: red, green, blue, white. */
static void setup(void) {
    capture_logs_begin();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ona-shapes-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    roots[1] = tmpdir;
    uint8_t px[32 * 8 * 4];
    static const uint8_t colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    for (int y = 0; y < 8; y++) {
        for (int x = 0; x < 32; x++) {
            uint8_t *p = px + (y * 32 + x) * 4;
            memcpy(p, colours[x / 8], 3);
            p[3] = 255;
        }
    }
    snprintf(tex_path, sizeof tex_path, "%s/cells.png", tmpdir);
    ck_assert(stbi_write_png(tex_path, 32, 8, 4, px, 32 * 4));
}

static void teardown(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads) {
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .video = ONA_VIDEO_OFFSCREEN,
                             .window = {.width = W, .height = H}};
    return create_runtime(&desc);
}

/* Steps one frame (dt 0.05) with a screenshot of it; returns its RGBA pixels (free them). */
static uint8_t *step_shot(ona_runtime *rt) {
    char path[600];
    snprintf(path, sizeof path, "%s/shot.png", tmpdir);
    return shoot_frames(rt, 1, 0.05, path, W, H);
}

static const uint8_t *pixel(const uint8_t *p, int x, int y) {
    return p + (y * W + x) * 4;
}

static uint8_t *render_scene(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads);
    ona_system none = {0};
    spawn_lua(rt, "scene.lua", "scene1", none, "part=1", 0, 0);
    spawn_lua(rt, "scene.lua", "scene2", none, "part=2", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0);
    uint8_t *pixels = step_shot(rt);
    ck_assert_msg(!captured_logs_contain("error"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
    return pixels;
}

START_TEST(test_shapes_scene_matches_golden_on_1_and_2_threads) {
    uint8_t *one = render_scene(1);
    expect_golden(one, W, H, "shapes_scene");
    uint8_t *two = render_scene(2);
    ck_assert_msg(memcmp(one, two, W * H * 4) == 0, "1 and 2 threads drew different pictures");
    /* By eye, independent of the golden file: the filled rect is red, its outline's inside is
     * the clear colour, the circle's centre blue, the translucent rect half white. */
    const uint8_t *p = pixel(one, 20, 14);
    ck_assert(p[0] > 200 && p[1] < 100 && p[2] < 100);
    p = pixel(one, 66, 14);
    ck_assert(p[0] < 60 && p[1] < 60);
    p = pixel(one, 48, 14);
    ck_assert(p[1] > 200 && p[0] < 100);
    p = pixel(one, 20, 48);
    ck_assert(p[2] > 200 && p[0] < 100);
    p = pixel(one, 108, 20);
    ck_assert(p[0] > 100 && p[0] < 170);
    /* The arrow's notch (inside its bounding box, outside the polygon) stays clear. */
    p = pixel(one, 34, 72);
    ck_assert(p[0] < 60 && p[1] < 60);
    p = pixel(one, 34, 80);
    ck_assert(p[0] > 200 && p[2] > 200);
    free(one);
    free(two);
}
END_TEST

/* The collector's items from the message tagged `tag` number `nth` (0-based): index of tag. */
static int find_tag(const char *tag, int nth) {
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0 &&
            nth-- == 0)
            return i;
    return -1;
}

START_TEST(test_shapes_sheet_animation_frames_over_time) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    char args[600];
    snprintf(args, sizeof args, "tex=%s", tex_path);
    spawn_lua(rt, "sheet.lua", "sheet", report, args, 0, 0);
    /* dt 0.05: "walk" at 10 fps changes frame every 2 turns; "once" at 5 fps every 4, then
     * holds its last frame and is done. */
    static const int walk[10] = {1, 1, 2, 2, 3, 3, 4, 4, 1, 1};
    static const int once[10] = {4, 4, 4, 4, 3, 3, 3, 3, 3, 3};
    static const uint8_t colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    for (int t = 0; t < 10; t++) {
        uint8_t *shot = step_shot(rt);
        const uint8_t *p = pixel(shot, 30, 30);
        const uint8_t *c = colours[walk[t] - 1];
        ck_assert_msg(p[0] == c[0] && p[1] == c[1] && p[2] == c[2],
                      "turn %d: frame %d expected, pixel %d %d %d", t, walk[t], p[0], p[1], p[2]);
        /* sheet:draw(2, ...) at (64, 64) times 4: green. */
        p = pixel(shot, 80, 80);
        ck_assert(p[0] == 0 && p[1] == 255 && p[2] == 0);
        free(shot);
    }
    ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0); /* the collector reads the last reports */
    for (int t = 0; t < 10; t++) {
        int i = find_tag("frame", t);
        ck_assert_msg(i >= 0, "%s", captured_logs_text());
        ck_assert_int_eq((int)coll->items[i + 1].number, walk[t]);
        ck_assert_int_eq((int)coll->items[i + 2].number, once[t]);
        ck_assert_int_eq(coll->items[i + 3].boolean, t >= 8);
        ck_assert_int_eq((int)coll->items[i + 4].number, 4);
    }
    ona_runtime_destroy(rt);
}
END_TEST

static uint8_t *render_tilemap(uint32_t threads, uint32_t *sprites, int *counts) {
    ona_runtime *rt = make_runtime(threads);
    ona_system report = spawn_collector(rt);
    char args[600];
    snprintf(args, sizeof args, "tex=%s x=800", tex_path);
    spawn_lua(rt, "tilemap.lua", "tilemap", report, args, 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0);
    uint8_t *pixels = step_shot(rt);
    /* What the last frame merged: the map's tiles, nothing else. */
    *sprites = ((struct ona_runtime *)rt)->services.video.list.sprite_total;
    ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0); /* the collector reads the last reports */
    for (int t = 0; t < 4; t++) {
        int i = find_tag("tiles", t);
        ck_assert_msg(i >= 0, "%s", captured_logs_text());
        counts[t] = (int)coll->items[i + 1].number;
        ck_assert_int_eq((int)coll->items[i + 3].number, (5 + 7) % 4 + 1);
        ck_assert_int_eq((int)coll->items[i + 4].number, 0);
    }
    ona_runtime_destroy(rt);
    collector_free();
    return pixels;
}

START_TEST(test_shapes_tilemap_scrolls_drawing_only_visible_tiles) {
    uint32_t sprites1, sprites2;
    int counts1[4], counts2[4];
    uint8_t *one = render_tilemap(1, &sprites1, counts1);
    uint8_t *two = render_tilemap(2, &sprites2, counts2);
    /* Frame 1: the default camera shows tiles 0..15 x 0..15 (plus a tile of margin: 17 x 17),
     * tile (0, 0) empty. Later frames: the camera set the frame before (x = 800, 808, ...;
     * y = 804) with a tile of margin: 18 columns (aligned x) by 19 rows (y between tiles). */
    ck_assert_int_eq(counts1[0], 17 * 17 - 1);
    for (int t = 1; t < 4; t++)
        ck_assert_int_eq(counts1[t], 18 * 19);
    ck_assert_uint_eq(sprites1, 18 * 19); /* of the map's 40,000 */
    ck_assert_int_eq(memcmp(counts1, counts2, sizeof counts1), 0);
    ck_assert_uint_eq(sprites1, sprites2);
    expect_golden(one, W, H, "shapes_tilemap");
    ck_assert_msg(memcmp(one, two, W * H * 4) == 0, "1 and 2 threads drew different pictures");
    /* The whole screen is covered by tiles: no clear colour anywhere. */
    for (int y = 0; y < H; y += 7)
        for (int x = 0; x < W; x += 7) {
            const uint8_t *p = pixel(one, x, y);
            ck_assert_msg(p[0] == 255 || p[1] == 255 || p[2] == 255, "hole at %d,%d", x, y);
        }
    free(one);
    free(two);
}
END_TEST

START_TEST(test_shapes_tile_buffer_moves_to_another_system) {
    ona_runtime *rt = make_runtime(2);
    ona_system report = spawn_collector(rt);
    char args[600];
    snprintf(args, sizeof args, "tex=%s", tex_path);
    spawn_lua(rt, "tile_receiver.lua", "tile_receiver", report, args, 0, 0);
    spawn_lua(rt, "tile_sender.lua", "tile_sender", report, args, 0, 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0);
    int s = find_tag("sender", 0), r = find_tag("receiver", 0), d = find_tag("drawn", 0);
    ck_assert_msg(s >= 0 && r >= 0 && d >= 0, "%s", captured_logs_text());
    ck_assert(!coll->items[s + 1].boolean); /* the handle is dead */
    ck_assert(!coll->items[s + 2].boolean); /* map:get raised */
    ck_assert_msg(strstr(coll->items[s + 3].text, "tile_sender.lua:") &&
                      strstr(coll->items[s + 3].text, "map:get") &&
                      strstr(coll->items[s + 3].text, "moved"),
                  "%s", coll->items[s + 3].text);
    ck_assert_int_eq((int)coll->items[r + 1].number, 78); /* 1 + 2 + ... + 12 */
    ck_assert_str_eq(coll->items[r + 2].text, "uint16_t");
    ck_assert_int_eq((int)coll->items[r + 3].number, 12);
    ck_assert_int_eq((int)coll->items[r + 4].number, 12);
    /* Ids past the texture's 4 cells are skipped: 4 of the 12 tiles drawn. */
    ck_assert_int_eq((int)coll->items[d + 1].number, 4);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_shapes_lua_misuse_raises_at_the_author_line) {
    static const char *const names[] = {
        "ona.gfx.rect",    "ona.gfx.rect",    "ona.gfx.circle",  "ona.gfx.circle",  "ona.gfx.line",
        "ona.gfx.line",    "ona.gfx.line",    "ona.gfx.polygon", "ona.gfx.polygon", "ona.gfx.rect",
        "ona.gfx.sheet",   "ona.gfx.sheet",   "sheet:draw",      "sheet:animation", "anim:update",
        "ona.gfx.tilemap", "ona.gfx.tilemap", "map:set",         "map:set",         "map:get",
        "ona.gfx.rect",
    };
    ona_runtime *rt = make_runtime(1);
    ona_system report = spawn_collector(rt);
    char args[600];
    snprintf(args, sizeof args, "tex=%s", tex_path);
    spawn_lua(rt, "misuse.lua", "misuse", report, args, 0, 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0);
    for (int c = 0; c < (int)(sizeof names / sizeof names[0]); c++) {
        int i = find_tag("case", c);
        ck_assert_msg(i >= 0, "case %d missing\n%s", c + 1, captured_logs_text());
        ck_assert_int_eq((int)coll->items[i + 1].number, c + 1);
        const char *err = coll->items[i + 3].text;
        ck_assert_msg(!coll->items[i + 2].boolean, "case %d did not raise", c + 1);
        ck_assert_msg(strstr(err, "misuse.lua:") && strstr(err, names[c]), "case %d: %s", c + 1,
                      err);
    }
    ck_assert_int_eq(find_tag("case", (int)(sizeof names / sizeof names[0])), -1);
    int p = find_tag("placeholder", 0);
    ck_assert_msg(p >= 0, "%s", captured_logs_text());
    ck_assert(coll->items[p + 1].boolean);
    ck_assert_int_eq((int)coll->items[p + 2].number, 5);
    ck_assert(captured_logs_contain("missing.png"));
    ona_runtime_destroy(rt);
}
END_TEST

/* A native system drawing through ona/shapes.h: a red square, a blue disc, a green outline and
 * a two-tile map (cells 2 and 3: green, blue). */
typedef struct native_scene {
    ona_texture cells;
    uint16_t tiles[2];
    int rc;
} native_scene;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    native_scene *n = ona_ctx_user(ctx);
    ona_shape_style red = {.tint = ONA_RGBA(255, 0, 0, 255)};
    ona_shape_style blue = {.tint = ONA_RGBA(0, 0, 255, 255)};
    ona_shape_style green = {.mode = ONA_SHAPE_LINE, .width = 4, .tint = ONA_RGBA(0, 255, 0, 255)};
    ona_tilemap map = {
        .texture = n->cells, .tile_w = 8, .tile_h = 8, .w = 2, .h = 1, .tiles = n->tiles};
    int rc = ona_ctx_rect(ctx, 0, 8, 8, 32, 32, &red);
    rc = rc ? rc : ona_ctx_circle(ctx, 0, 90, 30, 16, &blue);
    rc = rc ? rc
            : ona_ctx_polygon(ctx, 1, (const float[]){10, 60, 50, 60, 50, 100, 10, 100}, 4, &green);
    rc = rc ? rc : ona_ctx_line(ctx, 0, 70, 70, 120, 70, &red);
    rc = rc ? rc : ona_ctx_draw_tilemap(ctx, 2, &map, 80, 100);
    n->rc = rc;
    return 0;
}

START_TEST(test_shapes_native_system_draws_shapes_and_tiles) {
    ona_runtime *rt = make_runtime(2);
    static native_scene scene = {.tiles = {2, 3}};
    scene.rc = -1;
    ck_assert_int_eq(ona_runtime_texture_load(rt, tex_path, &scene.cells), 0);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt,
            &(ona_system_desc){.name = "native_shapes", .process = native_process, .user = &scene},
            &sys),
        0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.05), 0);
    uint8_t *shot = step_shot(rt);
    ck_assert_int_eq(scene.rc, 0);
    const uint8_t *p = pixel(shot, 24, 24); /* the square */
    ck_assert(p[0] == 255 && p[1] == 0 && p[2] == 0);
    p = pixel(shot, 90, 30); /* the disc */
    ck_assert(p[0] == 0 && p[1] == 0 && p[2] == 255);
    p = pixel(shot, 10, 80); /* the outline's left edge, and its empty inside */
    ck_assert(p[0] == 0 && p[1] == 255 && p[2] == 0);
    p = pixel(shot, 30, 80);
    ck_assert(p[1] == 0);
    p = pixel(shot, 100, 70); /* the line */
    ck_assert(p[0] == 255 && p[1] == 0);
    p = pixel(shot, 84, 104); /* tile 2: green; tile 3: blue */
    ck_assert(p[0] == 0 && p[1] == 255 && p[2] == 0);
    p = pixel(shot, 92, 104);
    ck_assert(p[0] == 0 && p[1] == 0 && p[2] == 255);
    free(shot);
    /* Refusals: too many points; outside a callback there is no ctx. */
    static float many[2 * (ONA_SHAPE_MAX_POINTS + 1)];
    ck_assert_int_eq(ona_ctx_polygon(NULL, 0, many, ONA_SHAPE_MAX_POINTS + 1, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_draw_tilemap(NULL, 0, NULL, 0, 0), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("shapes");
    TCase *tess = tcase_create("tessellation");
    tcase_add_test(tess, test_shapes_rect_and_lines_cover_their_area);
    tcase_add_test(tess, test_shapes_circle_is_a_fan_of_quads);
    tcase_add_test(tess, test_shapes_ear_clipping_fills_a_concave_polygon);
    tcase_add_test(tess, test_shapes_tilemap_emits_only_visible_tiles);
    suite_add_tcase(s, tess);
    TCase *tc = tcase_create("offscreen");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_shapes_scene_matches_golden_on_1_and_2_threads);
    tcase_add_test(tc, test_shapes_sheet_animation_frames_over_time);
    tcase_add_test(tc, test_shapes_tilemap_scrolls_drawing_only_visible_tiles);
    tcase_add_test(tc, test_shapes_tile_buffer_moves_to_another_system);
    tcase_add_test(tc, test_shapes_lua_misuse_raises_at_the_author_line);
    tcase_add_test(tc, test_shapes_native_system_draws_shapes_and_tiles);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(suite());
}
