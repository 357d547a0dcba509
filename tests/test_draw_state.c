/*
 * test_draw_state.c: the renderer's draw state, rendered for real offscreen on Mesa
 * llvmpipe: a world scrolled by a camera over a layer range under a screen-space HUD, with
 * to_world/to_screen round trips; a canvas drawn into and drawn (with a game shader as a post
 * effect) in the same frame; each blend mode; a game shader's hot reload (broken: file:line
 * logged, the old program and picture kept; fixed: the picture changes); a shader that never
 * compiled; the C API (ona_ctx_draw_ex, ona_ctx_camera, ona_runtime_canvas); Lua misuse naming
 * the author's line. Every picture is compared with a committed golden image (small tolerance)
 * and is byte-identical on 1 and 2 worker threads.
 *
 * Set ONA_UPDATE_GOLDEN=1 to rewrite tests/golden/draw_*.png from this machine's rendering (then
 * look at them before committing).
 */
#include "test_support.h"

#include <stb_image.h>
#include <stb_image_write.h>
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

static const char invert_frag[] = "#version 460 core\n"
                                  "layout(binding = 0) uniform sampler2D u_texture;\n"
                                  "uniform float u_amount;\n"
                                  "in vec2 v_uv;\n"
                                  "in vec4 v_tint;\n"
                                  "layout(location = 0) out vec4 o_color;\n"
                                  "void main() {\n"
                                  "    vec4 c = texture(u_texture, v_uv) * v_tint;\n"
                                  "    o_color = vec4(mix(c.rgb, 1.0 - c.rgb, u_amount), c.a);\n"
                                  "}\n";

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("draw");
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
    game_write("invert.frag", invert_frag);
    char cmd[1200];
    const char *scripts[] = {"layers", "canvas", "blend", "glow", "misuse"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(cmd, sizeof cmd, "cp '%s/tests/lua/draw/%s.lua' '%s/'", ONA_SOURCE_DIR, scripts[i],
                 game_dir());
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

/* Steps `frames` frames with a screenshot of the last one; returns its RGBA pixels. */
static uint8_t *render(ona_runtime *rt, int frames) {
    char path[600];
    snprintf(path, sizeof path, "%s/shot.png", game_dir());
    return shoot_frames(rt, frames, 1.0 / 60, path, W, H);
}

static const uint8_t *pixel(const uint8_t *p, int x, int y) {
    return p + (y * W + x) * 4;
}

/* Whether pixel (x, y) is within `tol` of r, g, b. */
static bool near(const uint8_t *p, int x, int y, int r, int g, int b, int tol) {
    const uint8_t *q = pixel(p, x, y);
    return abs(q[0] - r) <= tol && abs(q[1] - g) <= tol && abs(q[2] - b) <= tol;
}

#define EXPECT_NEAR(p, x, y, r, g, b)                                                              \
    do {                                                                                           \
        const uint8_t *q_ = pixel(p, x, y);                                                        \
        ck_assert_msg(near(p, x, y, r, g, b, 3), "pixel (%d, %d) is %d %d %d, expected %d %d %d",  \
                      x, y, q_[0], q_[1], q_[2], r, g, b);                                         \
    } while (0)

typedef uint8_t *(*scene_fn)(uint32_t threads);

/* Renders a scene on 1 and on 2 threads: the same bytes; then against its golden image. */
static uint8_t *render_checked(scene_fn scene, const char *golden) {
    uint8_t *one = scene(1);
    uint8_t *two = scene(2);
    ck_assert_msg(memcmp(one, two, (size_t)W * H * 4) == 0,
                  "%s: 1 and 2 threads draw different pictures", golden);
    stbi_image_free(two);
    expect_golden(one, W, H, golden);
    return one;
}

static char args_buf[1400];
static const char *args(const char *fmt, const char *part) {
    snprintf(args_buf, sizeof args_buf, "part=%s checker=%s white=%s %s", part, checker_path,
             white_path, fmt);
    return args_buf;
}

/* --- Cameras per layer range, HUD, to_world/to_screen ---------------------------------------- */

static uint8_t *layers_scene(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    /* The HUD and the marker are spawned before the camera: the order does not matter. */
    const char *parts[] = {"hud", "marker", "camera", "world"};
    for (int i = 0; i < 4; i++)
        spawn_lua(rt, "layers.lua", parts[i], none, args("", parts[i]), 0, 0);
    uint8_t *pixels = render(rt, 3);
    ck_assert_msg(!captured_logs_contain("round trip") && !captured_logs_contain("hud to_world"),
                  "%s", captured_logs_text());
    ona_runtime_destroy(rt);
    return pixels;
}

START_TEST(test_draw_state_camera_per_layer_range_and_hud) {
    uint8_t *p = render_checked(layers_scene, "draw_layers");
    /* Camera (96, 80) at zoom 2 on a 128x128 window: world (x, y) lands on pixel
     * (64 + 2 (x - 96), 64 + 2 (y - 80)). The checker at world (80, 64), 16 units a side: pixels
     * 32..63 both ways, its top-left 2x2 texels white (4x4 pixels a square at zoom 2... times
     * the sprite's scale 2: 8x8 pixels). */
    EXPECT_NEAR(p, 34, 34, 255, 255, 255);
    EXPECT_NEAR(p, 42, 34, 255, 0, 0);
    /* The blue square on layer 5 at world (100, 70), 8 units: pixels 72..87, 44..59. */
    EXPECT_NEAR(p, 80, 50, 0, 153, 255);
    /* The HUD bar in window pixels (4, 4) to (64, 10), unscrolled and unzoomed. */
    EXPECT_NEAR(p, 6, 6, 0, 255, 0);
    EXPECT_NEAR(p, 62, 8, 0, 255, 0);
    EXPECT_NEAR(p, 66, 8, 13, 13, 51);
    /* The marker placed through to_world under window pixel (96, 96): pixels 94..97. */
    EXPECT_NEAR(p, 95, 95, 255, 0, 0);
    EXPECT_NEAR(p, 96, 96, 255, 0, 0);
    EXPECT_NEAR(p, 99, 99, 13, 13, 51);
    stbi_image_free(p);
}
END_TEST

/* --- Canvases and a game shader post effect ------------------------------------------------- */

static uint8_t *canvas_scene(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    spawn_lua(rt, "canvas.lua", "post", none, args("", "post"), 0, 0);
    spawn_lua(rt, "canvas.lua", "painter", none, args("", "painter"), 0, 0);
    uint8_t *pixels = render(rt, 3);
    ona_runtime_destroy(rt);
    return pixels;
}

START_TEST(test_draw_state_canvas_drawn_same_frame_with_a_post_shader) {
    uint8_t *p = render_checked(canvas_scene, "draw_canvas");
    /* The canvas (64x64, cleared to dark blue each frame, the checker at (4, 4) scale 3 and "CV"
     * drawn into it) fills the window at scale 2, inverted by the game shader: the blue
     * background shows as (255, 255, 127), white checker squares as black, red ones as cyan. */
    EXPECT_NEAR(p, 2, 2, 255, 255, 127);
    EXPECT_NEAR(p, 10, 10, 0, 0, 0);     /* checker texel (0,0), white: canvas (4..9) */
    EXPECT_NEAR(p, 22, 10, 0, 255, 255); /* texel (2, 0), red: canvas 10..15 */
    EXPECT_NEAR(p, 120, 120, 255, 255, 127);
    /* "CV" at canvas (4, 40) scale 2, yellow, inverted: blue-ish (0, 0, 255) glyph pixels. */
    bool glyph = false;
    for (int y = 80; y < 112 && !glyph; y++)
        for (int x = 8; x < 72 && !glyph; x++)
            glyph = near(p, x, y, 0, 0, 255, 3);
    ck_assert_msg(glyph, "no glyph of the painter's text in the canvas");
    ck_assert(!captured_logs_contain("never compiled"));
    stbi_image_free(p);
}
END_TEST

/* --- Blend modes ---------------------------------------------------------------------------- */

static uint8_t *blend_scene(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    spawn_lua(rt, "blend.lua", "blend", none, args("", "blend"), 0, 0);
    uint8_t *pixels = render(rt, 2);
    ona_runtime_destroy(rt);
    return pixels;
}

START_TEST(test_draw_state_blend_modes) {
    uint8_t *p = render_checked(blend_scene, "draw_blend");
    /* Over 0.5 grey (128): alpha (1, .5, 0) at a = .5 -> (.75, .5, .25). */
    EXPECT_NEAR(p, 16, 40, 191, 128, 64);
    /* Premultiplied (.5, .25, 0) at a = .5: the same. */
    EXPECT_NEAR(p, 48, 40, 191, 128, 64);
    /* Add (.5, 0, .5) through layer 5's default: (1, .5, 1). */
    EXPECT_NEAR(p, 80, 40, 255, 128, 255);
    /* The draw's own alpha wins over the layer's add: black at .5 over (1, .5, 1). */
    EXPECT_NEAR(p, 80, 110, 128, 64, 128);
    /* Multiply by (1, .5, .25): (.5, .25, .125). */
    EXPECT_NEAR(p, 112, 40, 128, 64, 32);
    stbi_image_free(p);
}
END_TEST

/* --- Game shader hot reload ----------------------------------------------------------------- */

static const char glow_red[] = "#version 460 core\n"
                               "in vec2 v_uv;\n"
                               "in vec4 v_tint;\n"
                               "layout(location = 0) out vec4 o_color;\n"
                               "void main() { o_color = vec4(1.0, 0.0, 0.0, 1.0); }\n";
static const char glow_broken[] = "#version 460 core\n"
                                  "in vec2 v_uv;\n"
                                  "in vec4 v_tint;\n"
                                  "layout(location = 0) out vec4 o_color;\n"
                                  "void main() { o_color = vec4(0.0, 1.0, 0.0, 1.0) }\n";
static const char glow_green[] = "#version 460 core\n"
                                 "in vec2 v_uv;\n"
                                 "in vec4 v_tint;\n"
                                 "layout(location = 0) out vec4 o_color;\n"
                                 "void main() { o_color = vec4(0.0, 1.0, 0.0, 1.0); }\n";

START_TEST(test_draw_state_shader_hot_reload_broken_then_fixed) {
    game_write("glow.frag", glow_red);
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    spawn_lua(rt, "glow.lua", "glow", none, args("shader=glow.frag", "glow"), 0, 0);
    uint8_t *before = render(rt, 2);
    EXPECT_NEAR(before, 64, 64, 255, 0, 0);
    EXPECT_NEAR(before, 8, 8, 0, 0, 0);

    /* Broken: the log names glow.frag and the line; the old program and the picture stay. */
    game_write("glow.frag", glow_broken);
    char path[600];
    snprintf(path, sizeof path, "%s/glow.frag", game_dir());
    ck_assert_int_eq(ona_runtime_reload(rt, path), 0);
    uint8_t *broken = render(rt, 1);
    char where[640];
    snprintf(where, sizeof where, "%s:5", path);
    ck_assert_msg(captured_logs_contain(where), "no %s in the log:\n%s", where,
                  captured_logs_text());
    ck_assert(captured_logs_contain("the previous program stays"));
    ck_assert_msg(memcmp(before, broken, (size_t)W * H * 4) == 0, "the picture changed");

    /* Fixed: the picture changes. */
    game_write("glow.frag", glow_green);
    ck_assert_int_eq(ona_runtime_reload(rt, path), 0);
    uint8_t *fixed = render(rt, 1);
    EXPECT_NEAR(fixed, 64, 64, 0, 255, 0);
    ck_assert(captured_logs_contain("glow.frag reloaded"));
    stbi_image_free(before);
    stbi_image_free(broken);
    stbi_image_free(fixed);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_draw_state_shader_never_compiled_draws_default_once_said) {
    game_write("bad.frag", glow_broken);
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_OFFSCREEN);
    ona_system none = {0};
    spawn_lua(rt, "glow.lua", "glow", none, args("shader=bad.frag", "glow"), 0, 0);
    uint8_t *p = render(rt, 4);
    /* The sprite shader: the white texture as it is. */
    EXPECT_NEAR(p, 64, 64, 255, 255, 255);
    ck_assert_int_eq(captured_logs_count("never compiled"), 1);
    ck_assert(captured_logs_contain("bad.frag:5"));
    stbi_image_free(p);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- The C API ------------------------------------------------------------------------------ */

typedef struct native_scene {
    ona_texture white, canvas;
    int self_draw_rc, bad_shader_rc, bad_camera_rc;
} native_scene;

static native_scene native;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    ona_sprite s = {.scale_x = 16, .scale_y = 16, .tint = 0xFFFFFFFFu};
    native.self_draw_rc =
        ona_ctx_draw_ex(ctx, native.canvas, &(ona_draw_desc){.target = native.canvas}, &s, 1);
    native.bad_shader_rc =
        ona_ctx_draw_ex(ctx, native.white, &(ona_draw_desc){.shader = {77}}, &s, 1);
    native.bad_camera_rc = ona_ctx_camera(
        ctx, &(ona_camera_desc){.layer_range = true, .layer_lo = 3, .layer_hi = 1, .zoom = 1});
    /* Into the canvas (16x16 white at its top-left), then the canvas at scale 2 on layer 1,
     * under a camera for layer 1 only that shows world (32, 32) at the window's centre. */
    ck_assert_int_eq(ona_ctx_draw_ex(ctx, native.white,
                                     &(ona_draw_desc){.target = native.canvas, .layer = 3}, &s, 1)
                         ? -1
                         : 0,
                     0);
    /* Layer 0 has no camera: an 8x8 white square at window pixels 0..7. */
    ona_sprite corner = {.scale_x = 8, .scale_y = 8, .tint = 0xFFFFFFFFu};
    ck_assert_int_eq(ona_ctx_draw_ex(ctx, native.white, NULL, &corner, 1), 0);
    ona_sprite c = {.scale_x = 2, .scale_y = 2, .tint = 0xFFFFFFFFu};
    int rc = ona_ctx_draw_ex(ctx, native.canvas, &(ona_draw_desc){.layer = 1}, &c, 1);
    rc |= ona_ctx_camera(
        ctx, &(ona_camera_desc){
                 .x = 32, .y = 32, .zoom = 1, .layer_range = true, .layer_lo = 1, .layer_hi = 1});
    return rc;
}

START_TEST(test_draw_state_c_api) {
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_OFFSCREEN);
    memset(&native, 0, sizeof native);
    ck_assert_int_eq(ona_runtime_texture_load(rt, white_path, &native.white), 0);
    ck_assert_int_eq(ona_runtime_canvas(rt, 32, 32, &native.canvas), 0);
    ck_assert_int_eq(ona_runtime_canvas(rt, 0, 32, &(ona_texture){0}), ONA_EINVAL);
    ona_shader sh;
    ck_assert_int_eq(ona_runtime_shader_load(rt, "no_such.frag", &sh), ONA_ENOENT);
    ck_assert(captured_logs_contain("no_such.frag"));
    ona_system sys;
    ck_assert_int_eq(ona_runtime_spawn_native(
                         rt, &(ona_system_desc){.name = "native", .process = native_process}, &sys),
                     0);
    uint8_t *p = render(rt, 3);
    ck_assert_int_eq(native.self_draw_rc, ONA_EINVAL);
    ck_assert_int_eq(native.bad_shader_rc, ONA_EINVAL);
    ck_assert_int_eq(native.bad_camera_rc, ONA_EINVAL);
    /* Camera (32, 32) at zoom 1: world (x, y) on pixel (x + 32, y + 32). The canvas at world
     * (0, 0) scale 2 covers pixels 32..95; its white square (canvas 0..15) pixels 32..63. */
    EXPECT_NEAR(p, 34, 34, 255, 255, 255);
    EXPECT_NEAR(p, 62, 62, 255, 255, 255);
    EXPECT_NEAR(p, 70, 70, 0, 0, 0); /* the canvas's transparent part shows the clear colour */
    EXPECT_NEAR(p, 20, 20, 0, 0, 0);
    EXPECT_NEAR(p, 4, 4, 255, 255, 255); /* layer 0: the layer-1 camera does not apply */
    stbi_image_free(p);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Uniforms checked against the shader's ------------------------------------------------- */

static const char typed_frag[] = "#version 460 core\n"
                                 "layout(binding = 0) uniform sampler2D u_texture;\n"
                                 "uniform int u_mode;\n"
                                 "uniform mat4 u_mat;\n"
                                 "uniform float u_k;\n"
                                 "in vec2 v_uv;\n"
                                 "in vec4 v_tint;\n"
                                 "layout(location = 0) out vec4 o_color;\n"
                                 "void main() {\n"
                                 "    vec4 c = texture(u_texture, v_uv) * v_tint * u_k;\n"
                                 "    o_color = u_mat * c + float(u_mode);\n"
                                 "}\n";

static const char uniforms_lua[] =
    "return {\n"
    "  init = function(s) s.sh = assert(ona.gfx.shader('typed.frag')); s.c = ona.gfx.canvas(8, 8) "
    "end,\n"
    "  process = function(s)\n"
    "    if ona.frame() >= 2 then\n"
    "      ona.gfx.uniform(s.sh, 'u_mode', 2.5)\n"
    "      ona.gfx.uniform(s.sh, 'u_mat', {1, 2, 3, 4})\n"
    "      ona.gfx.uniform(s.sh, 'u_texture', 3)\n"
    "      ona.gfx.uniform(s.sh, 'u_k', {1, 2, 3, 4})\n"
    "      ona.gfx.uniform(s.sh, 'u_kk', 1)\n"
    "      ona.gfx.uniform(s.sh, 'u_k', 0.5)\n"
    "    end\n"
    "    ona.gfx.draw(s.c, 0, 0, {shader = s.sh})\n"
    "  end,\n"
    "}\n";

/* A value the uniform's type cannot take is reported with the shader file, the uniform, the
 * script line and the system, and never reaches GL; a name the shader lacks is warned of once,
 * with the names it has. */
START_TEST(test_draw_state_uniform_types_checked) {
    game_write("typed.frag", typed_frag);
    game_write("uniforms.lua", uniforms_lua);
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_OFFSCREEN);
    spawn_lua(rt, "uniforms.lua", "u", (ona_system){0}, "", 0, 0);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* "<shader path>: ona.gfx.uniform '<name>' (at <script path>:<line> in <system>): ..." */
    const char *want[] = {
        "typed.frag: ona.gfx.uniform 'u_mode' (at /",
        "uniforms.lua:5 in u): it is an int: ona.gfx.uniform sets float, vec2, vec3 and vec4 "
        "uniforms; not set",
        "uniforms.lua:6 in u): it is a mat4: ona.gfx.uniform sets",
        "uniforms.lua:7 in u): it is a sampler2D: ona.gfx.uniform sets",
        "uniforms.lua:8 in u): it is a float, not a vec4; not set",
        "typed.frag: ona.gfx.uniform 'u_kk' (at /",
        "uniforms.lua:9 in u): the shader has no such uniform in use (its uniforms: ",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(captured_logs_contain(want[i]), "'%s' not logged:\n%s", want[i],
                      captured_logs_text());
    /* The names it has are listed (in the driver's order). */
    ck_assert(captured_logs_contain("u_k, ") || captured_logs_contain(", u_k;"));
    ck_assert_int_eq(captured_logs_count("'u_kk'"), 1);        /* once, though set every frame */
    ck_assert(!captured_logs_contain("GL_INVALID_OPERATION")); /* nothing wrong reached GL */
    ona_runtime_destroy(rt);
}
END_TEST

/* Without GL, canvases and shaders are still handles and drawing into them is discarded. */
START_TEST(test_draw_state_no_video_keeps_handles_working) {
    ona_runtime *rt = make_runtime(2, ONA_VIDEO_NONE);
    ona_system none = {0};
    spawn_lua(rt, "canvas.lua", "post", none, args("", "post"), 0, 0);
    spawn_lua(rt, "canvas.lua", "painter", none, args("", "painter"), 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(!captured_logs_contain("error"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Lua misuse names the author's line ----------------------------------------------------- */

START_TEST(test_draw_state_lua_misuse_names_the_line) {
    static const struct {
        const char *mark, *message;
    } cases[] = {
        {"blend", "ona.gfx.draw: bad argument #4 (opts.blend must be \"alpha\""},
        {"target", "ona.gfx.draw: bad argument #4 (opts.target is not a canvas"},
        {"itself", "ona.gfx.draw: a canvas cannot be drawn into itself"},
        {"layers", "ona.gfx.camera: bad argument #4 (opts.layers must be {lo, hi}"},
        {"uniform", "ona.gfx.uniform: bad argument #1 (not a shader handle"},
        {"canvas", "ona.gfx.canvas: bad argument #1 (width must be an integer"},
        {"layer", "ona.gfx.layer: bad argument #2 (a layer has no target"},
        {"to_world", "ona.gfx.to_world: bad argument #3 (layer must be an integer"},
        {"sprites", "ona.gfx.draw_sprites: bad argument #4 (opts.blend must be"},
    };
    ona_runtime *rt = make_runtime(1, ONA_VIDEO_NONE);
    ona_system none = {0};
    char pairs[64], name[16];
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        snprintf(pairs, sizeof pairs, "case=%d", i + 1);
        snprintf(name, sizeof name, "misuse%d", i + 1);
        spawn_lua(rt, "misuse.lua", name, none, args(pairs, "misuse"), 0, ONA_POLICY_STOP);
    }
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        char want[300];
        snprintf(want, sizeof want, "misuse.lua:%d: %s",
                 lua_marked_line("draw/misuse.lua", cases[i].mark), cases[i].message);
        ck_assert_msg(captured_logs_contain(want), "no \"%s\" in the log:\n%s", want,
                      captured_logs_text());
    }
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *draw_state_suite(void) {
    Suite *s = suite_create("draw_state");
    TCase *tc = tcase_create("draw_state");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_draw_state_camera_per_layer_range_and_hud);
    tcase_add_test(tc, test_draw_state_canvas_drawn_same_frame_with_a_post_shader);
    tcase_add_test(tc, test_draw_state_blend_modes);
    tcase_add_test(tc, test_draw_state_shader_hot_reload_broken_then_fixed);
    tcase_add_test(tc, test_draw_state_shader_never_compiled_draws_default_once_said);
    tcase_add_test(tc, test_draw_state_uniform_types_checked);
    tcase_add_test(tc, test_draw_state_c_api);
    tcase_add_test(tc, test_draw_state_no_video_keeps_handles_working);
    tcase_add_test(tc, test_draw_state_lua_misuse_names_the_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(draw_state_suite());
}
