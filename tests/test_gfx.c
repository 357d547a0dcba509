/*
 * test_gfx.c: rendering for real, offscreen on Mesa llvmpipe through SDL's offscreen driver:
 * a scene of several textures with rotation, tint, layers and text compared with a committed
 * golden image; the same pixels from 1 and 2 threads; the placeholder for a missing texture;
 * a broken shader reload that keeps the runtime drawing; input events reaching every system;
 * the order in which the shader folder is chosen.
 *
 * Set ONA_UPDATE_GOLDEN=1 to rewrite the golden PNGs in tests/golden/ from this machine's rendering
 * (then look at them before committing).
 */
#include "test_support.h"

#include <stb_image.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { W = 128, H = 128 };

/* The scripts' folder and the scratch folder their textures are written to: a script may load
 * only files inside its roots. */
static const char *roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL, NULL};
static char tmpdir[256];
static char tex_a[512], tex_b[512];

/* Writes the two test textures: an 8x8 red/white checker and an 8x8 colour gradient. */
static void write_textures(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ona-gfx-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    roots[1] = tmpdir;
    uint8_t a[8 * 8 * 4], b[8 * 8 * 4];
    for (int y = 0; y < 8; y++) {
        for (int x = 0; x < 8; x++) {
            uint8_t *p = a + (y * 8 + x) * 4;
            bool white = ((x / 2) + (y / 2)) % 2 == 0;
            p[0] = 255, p[1] = white ? 255 : 0, p[2] = white ? 255 : 0, p[3] = 255;
            uint8_t *q = b + (y * 8 + x) * 4;
            q[0] = (uint8_t)(x * 32), q[1] = (uint8_t)(y * 32), q[2] = 200, q[3] = 255;
        }
    }
    snprintf(tex_a, sizeof tex_a, "%s/a.png", tmpdir);
    snprintf(tex_b, sizeof tex_b, "%s/b.png", tmpdir);
    ck_assert(stbi_write_png(tex_a, 8, 8, 4, a, 32));
    ck_assert(stbi_write_png(tex_b, 8, 8, 4, b, 32));
}

static void setup(void) {
    capture_logs_begin();
    write_textures();
}

static void teardown(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads, const char *shader_dir) {
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .video = ONA_VIDEO_OFFSCREEN,
                             .window = {.width = W, .height = H, .shader_dir = shader_dir}};
    return create_runtime(&desc);
}

/* Steps `frames` frames with a screenshot of the last one, and returns its RGBA pixels. */
static uint8_t *render(ona_runtime *rt, int frames) {
    char path[600];
    snprintf(path, sizeof path, "%s/shot.png", tmpdir);
    return shoot_frames(rt, frames, 1.0 / 60, path, W, H);
}

static uint8_t *render_scene(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, NULL);
    ona_system none = {0};
    char args[1200];
    for (int part = 1; part <= 3; part++) {
        snprintf(args, sizeof args, "part=%d tex_a=%s tex_b=%s", part, tex_a, tex_b);
        char name[16];
        snprintf(name, sizeof name, "scene%d", part);
        spawn_lua(rt, "scene.lua", name, none, args, 0, 0);
    }
    uint8_t *pixels = render(rt, 3);
    ona_runtime_destroy(rt);
    return pixels;
}

static const uint8_t *pixel(const uint8_t *p, int x, int y) {
    return p + (y * W + x) * 4;
}

START_TEST(test_gfx_scene_matches_golden) {
    uint8_t *got = render_scene(1);
    expect_golden(got, W, H, "scene");
    /* A few things a person would check by eye, independent of the golden file. */
    const uint8_t *bg = pixel(got, 2, 60);
    ck_assert(bg[0] < 40 && bg[1] < 40 && bg[2] > 30 && bg[2] < 70); /* clear colour */
    const uint8_t *a = pixel(got, 9, 9);
    ck_assert(a[0] > 240 && a[1] > 240); /* checker's white corner, layer 1 over layer 0 */
    const uint8_t *ph = pixel(got, 101, 5);
    ck_assert(ph[0] > 240 && ph[1] < 20 && ph[2] > 240); /* the placeholder's magenta */
    stbi_image_free(got);
}
END_TEST

START_TEST(test_gfx_same_pixels_with_one_and_two_threads) {
    uint8_t *one = render_scene(1);
    uint8_t *two = render_scene(2);
    ck_assert_mem_eq(one, two, (size_t)W * H * 4);
    stbi_image_free(one);
    stbi_image_free(two);
}
END_TEST

START_TEST(test_gfx_missing_texture_logs_path_and_shows_placeholder) {
    uint8_t *got = render_scene(2);
    ck_assert_msg(
        captured_logs_contain("does_not_exist.png: no such file; drawing the placeholder"), "%s",
        captured_logs_text());
    ck_assert(captured_logs_contain("scene3"));
    const uint8_t *ph = pixel(got, 101, 5);
    ck_assert(ph[0] > 240 && ph[1] < 20 && ph[2] > 240);
    stbi_image_free(got);
}
END_TEST

static void copy_file(const char *from, const char *to, const char *break_line) {
    FILE *in = fopen(from, "r");
    FILE *out = fopen(to, "w");
    ck_assert(in && out);
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        if (break_line && strstr(line, "void main"))
            fputs(break_line, out);
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

START_TEST(test_gfx_broken_shader_reload_keeps_drawing) {
    char dir[600], vert[700], frag[700];
    snprintf(dir, sizeof dir, "%s/shaders", tmpdir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(vert, sizeof vert, "%s/sprite.vert", dir);
    snprintf(frag, sizeof frag, "%s/sprite.frag", dir);
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.vert", vert, NULL);
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.frag", frag, NULL);
    ona_runtime *rt = make_runtime(2, dir);
    ona_system none = {0};
    char args[700];
    snprintf(args, sizeof args, "tex=%s", tex_a);
    spawn_lua(rt, "drawer.lua", NULL, none, args, 0, 0);
    uint8_t *before = render(rt, 2);
    /* Break the fragment shader and reload: an error naming the file, the old program stays. */
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.frag", frag, "this is not GLSL;\n");
    ck_assert_int_eq(ona_runtime_reload_shaders(rt), ONA_EGFX);
    ck_assert_msg(captured_logs_contain("sprite.frag:"), "%s", captured_logs_text());
    uint8_t *after = render(rt, 2);
    ck_assert_mem_eq(before, after, (size_t)W * H * 4);
    const uint8_t *p = pixel(after, 20, 20);
    ck_assert(p[0] > 240); /* still drawing the checker */
    /* Fixed again: reloads. */
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.frag", frag, NULL);
    ck_assert_int_eq(ona_runtime_reload_shaders(rt), 0);
    stbi_image_free(before);
    stbi_image_free(after);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gfx_input_events_reach_every_system) {
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "input_probe.lua", "probe1", report, "", 0, 0);
    spawn_lua(rt, "input_probe.lua", "probe2", report, "", 0, 0);
    spawn_lua(rt, "input_probe.lua", "probe3", report, "", 0, 0);
    ona_event key = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(key.as.key.name, sizeof key.as.key.name, "Space");
    ck_assert_int_eq(ona_runtime_push_event(rt, &key), 0);
    ona_event click = {.type = ONA_EVENT_MOUSE_DOWN};
    click.as.mouse.x = 12, click.as.mouse.y = 34, click.as.mouse.button = 1;
    ck_assert_int_eq(ona_runtime_push_event(rt, &click), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* Each probe reports (name, "key", "space", true) and (name, "mouse", 12, 34, 1). */
    int keys = 0, clicks = 0;
    for (int i = 0; i < coll->count; i++) {
        if (coll->items[i].type != ONA_VALUE_STRING)
            continue;
        if (strcmp(coll->items[i].text, "key") == 0) {
            ck_assert_str_eq(coll->items[i + 1].text, "space");
            ck_assert(coll->items[i + 2].boolean);
            keys++;
        } else if (strcmp(coll->items[i].text, "mouse") == 0) {
            ck_assert(coll->items[i + 1].number == 12 && coll->items[i + 2].number == 34);
            ck_assert(coll->items[i + 3].number == 1);
            clicks++;
        }
    }
    ck_assert_int_eq(keys, 3);
    ck_assert_int_eq(clicks, 3);
    /* Without a display or GL (video NONE), screenshots are refused, not crashed on. */
    ck_assert_int_eq(ona_runtime_screenshot(rt, "/tmp/never.png"), ONA_EGFX);
    ona_event bad = {.type = (ona_event_type)99};
    ck_assert_int_eq(ona_runtime_push_event(rt, &bad), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

/* Where the shaders come from (runtime/gfx/video.c): the desc's folder, else $ONA_SHADER_DIR, else
 * a search (next to the binary, the install prefix, the source tree) logged at debug level. */
START_TEST(test_gfx_shader_dir_search_order) {
    char dir[600], empty[600], vert[700], frag[700], line[800];
    snprintf(dir, sizeof dir, "%s/shaders", tmpdir);
    snprintf(empty, sizeof empty, "%s/empty", tmpdir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    ck_assert_int_eq(mkdir(empty, 0700), 0);
    snprintf(vert, sizeof vert, "%s/sprite.vert", dir);
    snprintf(frag, sizeof frag, "%s/sprite.frag", dir);
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.vert", vert, NULL);
    copy_file(ONA_SOURCE_DIR "/shaders/sprite.frag", frag, NULL);
    const char *saved = getenv("ONA_SHADER_DIR");
    char saved_copy[600];
    snprintf(saved_copy, sizeof saved_copy, "%s", saved ? saved : "");

    /* The desc wins over the environment. */
    ck_assert_int_eq(setenv("ONA_SHADER_DIR", empty, 1), 0);
    ona_runtime *rt = make_runtime(1, dir);
    snprintf(line, sizeof line, "shaders from %s (ona_window_desc.shader_dir)", dir);
    ck_assert_msg(captured_logs_contain(line), "%s", captured_logs_text());
    ona_runtime_destroy(rt);

    /* The environment wins over the search. */
    ck_assert_int_eq(setenv("ONA_SHADER_DIR", dir, 1), 0);
    rt = make_runtime(1, NULL);
    snprintf(line, sizeof line, "shaders from %s (ONA_SHADER_DIR)", dir);
    ck_assert_msg(captured_logs_contain(line), "%s", captured_logs_text());
    ona_runtime_destroy(rt);

    /* A folder without shaders fails the runtime with the file named. */
    ck_assert_int_eq(setenv("ONA_SHADER_DIR", empty, 1), 0);
    ona_runtime_desc desc = {.threads = 1,
                             .script_roots = roots,
                             .video = ONA_VIDEO_OFFSCREEN,
                             .window = {.width = W, .height = H}};
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), ONA_EGFX);
    snprintf(line, sizeof line, "%s/sprite.vert", empty);
    ck_assert_msg(captured_logs_contain(line), "%s", captured_logs_text());

    /* Without either, the search finds a folder holding sprite.vert and says which. */
    ck_assert_int_eq(unsetenv("ONA_SHADER_DIR"), 0);
    rt = make_runtime(1, NULL);
    ck_assert_msg(captured_logs_contain("shaders from ") && captured_logs_contain("(found via "),
                  "%s", captured_logs_text());
    ona_runtime_destroy(rt);
    if (saved_copy[0])
        setenv("ONA_SHADER_DIR", saved_copy, 1);
}
END_TEST

START_TEST(test_gfx_f3_toggles_the_stats_overlay) {
    ona_runtime *rt = make_runtime(2, NULL);
    ona_system none = {0};
    char args[1200];
    snprintf(args, sizeof args, "part=1 tex_a=%s tex_b=%s", tex_a, tex_b);
    spawn_lua(rt, "scene.lua", "scene1", none, args, 0, 0);
    uint8_t *plain = render(rt, 2);
    ona_event f3 = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(f3.as.key.name, sizeof f3.as.key.name, "F3");
    ck_assert_int_eq(ona_runtime_push_event(rt, &f3), 0);
    uint8_t *overlay = render(rt, 2);
    /* The overlay's yellow text appears at the top left, where the scene has none. */
    int yellow = 0;
    for (int y = 0; y < 40; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = pixel(overlay, x, y), *q = pixel(plain, x, y);
            if (p[0] > 200 && p[1] > 200 && p[2] < 150 && !(q[0] > 200 && q[1] > 200 && q[2] < 150))
                yellow++;
        }
    ck_assert_int_gt(yellow, 20);
    stbi_image_free(plain);
    stbi_image_free(overlay);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gfx_main_lua_configures_the_window) {
    ona_runtime *rt = make_runtime(1, NULL);
    ona_spawn_desc d = {.script = "window_conf.lua", .name = "main"};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/conf.png", tmpdir);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0); /* the fill system's first turn */
    ck_assert_int_eq(ona_runtime_screenshot(rt, path), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    int w = 0, h2 = 0;
    ona_runtime_video_size(rt, &w, &h2);
    ck_assert_int_eq(w, 192);
    ck_assert_int_eq(h2, 160);
    int pw, ph, n;
    uint8_t *pixels = stbi_load(path, &pw, &ph, &n, 4);
    ck_assert_ptr_nonnull(pixels);
    ck_assert_int_eq(pw, 192);
    ck_assert_int_eq(ph, 160);
    /* The whole new size is drawn: red inside, the blue border at every edge, top and bottom
     * included (the old, smaller surface showed only a corner of the picture). */
    const int red[][2] = {{3, 3}, {188, 3}, {3, 156}, {188, 156}, {96, 80}};
    for (size_t i = 0; i < sizeof red / sizeof red[0]; i++) {
        const uint8_t *p = pixels + (red[i][1] * 192 + red[i][0]) * 4;
        ck_assert_msg(p[0] > 200 && p[1] < 50 && p[2] < 50, "(%d, %d) is %d %d %d", red[i][0],
                      red[i][1], p[0], p[1], p[2]);
    }
    const int blue[][2] = {{0, 0}, {191, 0}, {0, 159}, {191, 159}};
    for (size_t i = 0; i < sizeof blue / sizeof blue[0]; i++) {
        const uint8_t *p = pixels + (blue[i][1] * 192 + blue[i][0]) * 4;
        ck_assert_msg(p[2] > 200 && p[0] < 50, "(%d, %d) is %d %d %d", blue[i][0], blue[i][1], p[0],
                      p[1], p[2]);
    }
    stbi_image_free(pixels);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gfx_camera_viewport_limits_drawing) {
    ona_runtime *rt = make_runtime(1, NULL);
    ona_system none = {0};
    char args[700];
    snprintf(args, sizeof args, "tex=%s", tex_a);
    spawn_lua(rt, "viewport.lua", NULL, none, args, 0, 0);
    uint8_t *got = render(rt, 2);
    const uint8_t *inside = pixel(got, 32, 32), *outside = pixel(got, 100, 100);
    ck_assert_msg(inside[0] > 200, "inside the viewport: %d %d %d", inside[0], inside[1],
                  inside[2]);
    ck_assert_msg(outside[2] > 200 && outside[0] < 20, "outside: %d %d %d", outside[0], outside[1],
                  outside[2]);
    const uint8_t *right = pixel(got, 70, 10);
    ck_assert(right[2] > 200 && right[0] < 20); /* just right of the viewport: clear colour */
    stbi_image_free(got);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gfx");
    TCase *tc = tcase_create("offscreen");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_gfx_scene_matches_golden);
    tcase_add_test(tc, test_gfx_same_pixels_with_one_and_two_threads);
    tcase_add_test(tc, test_gfx_missing_texture_logs_path_and_shows_placeholder);
    tcase_add_test(tc, test_gfx_broken_shader_reload_keeps_drawing);
    tcase_add_test(tc, test_gfx_input_events_reach_every_system);
    tcase_add_test(tc, test_gfx_f3_toggles_the_stats_overlay);
    tcase_add_test(tc, test_gfx_main_lua_configures_the_window);
    tcase_add_test(tc, test_gfx_camera_viewport_limits_drawing);
    tcase_add_test(tc, test_gfx_shader_dir_search_order);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
