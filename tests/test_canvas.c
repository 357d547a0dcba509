/*
 * test_canvas.c: a canvas belongs to the system that made it and is freed when that system
 * ends (runtime/gfx/texture.c, ona__textures_free_canvases). A level respawned every frame with
 * a canvas of its own keeps the live count bounded (the review's canvas_leak made a 1280x720
 * canvas a frame and never freed one); a freed canvas's handle goes stale and its slot is reused
 * under a new generation, from the same free list as unloaded textures' slots (a level that also
 * loads a texture frees both kinds); a one-shot main chunk's canvases and the embedder's stay.
 * Offscreen,
 * so the GL framebuffers are really made and deleted.
 */
#include "test_support.h"

#include <stb_image_write.h>
#include <stdio.h>
#include <string.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("canvas");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(void) {
    const char *roots[] = {game_dir(), NULL};
    return create_runtime(&(ona_runtime_desc){.threads = 2,
                                              .script_roots = roots,
                                              .video = ONA_VIDEO_OFFSCREEN,
                                              .window = {.width = 32, .height = 32}});
}

static uint32_t live_canvases(ona_runtime *rt) {
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    return st.canvases;
}

static const char LEVEL_LUA[] =
    "return {\n"
    "  init = function(s, args) s.scene = ona.gfx.canvas(256, 128)\n"
    "    ona.send(args.report, s.scene) end,\n"
    "  process = function(s) ona.gfx.canvas_clear(s.scene, 0, 0, 0, 1)\n"
    "    ona.gfx.draw(s.scene, 0, 0) end,\n"
    "}\n";

static const char LEVELS_LUA[] =
    "return {\n"
    "  init = function(s, args) s.report = args.report end,\n"
    "  process = function(s)\n"
    "    if s.cur then ona.kill(s.cur) end\n"
    "    s.cur = assert(ona.spawn('level.lua', {report = s.report}, {name = 'level', policy = "
    "'stop'}))\n"
    "  end,\n"
    "}\n";

START_TEST(test_canvas_freed_with_its_system) {
    game_write("level.lua", LEVEL_LUA);
    game_write("levels.lua", LEVELS_LUA);
    ona_runtime *rt = make_runtime();
    ona_texture kept;
    ck_assert_int_eq(ona_runtime_canvas(rt, 16, 16, &kept), 0); /* the embedder's: stays */
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "levels.lua", "levels", report, "", 0, 0);
    enum { FRAMES = 60 };
    uint32_t most = 0;
    for (int i = 0; i < FRAMES; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        uint32_t n = live_canvases(rt);
        most = n > most ? n : most;
    }
    /* The embedder's, the level running and the one killed this frame (it ends at the next
     * boundary): never more, whatever the frame count. */
    ck_assert_msg(most <= 3, "%u canvases live at once after %d levels", most, FRAMES);
    ck_assert_int_ge(coll->count, FRAMES - 3);
    /* The first level's canvas is gone: its handle is stale, never another canvas. */
    ona_texture first = {(uint32_t)coll->items[0].number};
    int w, h;
    ck_assert_int_eq(ona_runtime_texture_size(rt, first, &w, &h), ONA_ESTALE);
    ck_assert_int_eq(ona_runtime_texture_size(rt, kept, &w, &h), 0);
    /* Slots are reused: every level's handle is new, and yet the table did not fill. */
    for (int i = 1; i < coll->count; i++)
        ck_assert_msg(coll->items[i].number != coll->items[0].number, "handle %d reused", i);
    ck_assert_msg(!captured_logs_contain("error: "), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

static const char TILED_LEVEL_LUA[] =
    "return {\n"
    "  init = function(s, args) s.scene = ona.gfx.canvas(64, 64)\n"
    "    s.tile = assert(ona.gfx.texture('tile.png'))\n"
    "    ona.send(args.report, s.scene) end,\n"
    "  process = function(s) ona.gfx.draw(s.tile, 0, 0)\n"
    "    ona.gfx.draw(s.scene, 0, 0) end,\n"
    "}\n";

/* Canvases freed with their system and textures unloaded when nobody holds them share one free
 * list: the table's live count stays bounded and no handle names two textures. */
START_TEST(test_canvas_and_texture_slots_shared) {
    game_write("level.lua", TILED_LEVEL_LUA);
    game_write("levels.lua", LEVELS_LUA);
    uint8_t px[4 * 4 * 4];
    memset(px, 200, sizeof px);
    char tile[4096];
    snprintf(tile, sizeof tile, "%s/tile.png", game_dir());
    ck_assert(stbi_write_png(tile, 4, 4, 4, px, 16));
    ona_runtime *rt = make_runtime();
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    uint32_t before = st.textures;
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "levels.lua", "levels", report, "", 0, 0);
    enum { FRAMES = 40 };
    uint32_t most = 0;
    for (int i = 0; i < FRAMES; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
        most = st.textures > most ? st.textures : most;
        ck_assert_uint_le(st.canvases, 2);
    }
    /* Two levels' canvases and the tile (one texture, however many hold it) at most. */
    ck_assert_msg(most <= before + 3, "%u textures live (%u before) after %d levels", most, before,
                  FRAMES);
    ck_assert_int_ge(coll->count, FRAMES - 3);
    for (int i = 1; i < coll->count; i++)
        ck_assert_msg(coll->items[i].number != coll->items[0].number, "handle %d reused", i);
    ck_assert_msg(!captured_logs_contain("error: "), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

static const char MAIN_LUA[] =
    "local args = ...\n"
    "local c = ona.gfx.canvas(8, 8)\n"
    "assert(ona.spawn('user.lua', {canvas = c, report = args.report}))\n";

static const char USER_LUA[] = "return {\n"
                               "  init = function(s, args) s.c = args.canvas; s.report = "
                               "args.report end,\n"
                               "  process = function(s) ona.gfx.draw(s.c, 0, 0)\n"
                               "    ona.send(s.report, ona.gfx.texture_size(s.c) or -1) end,\n"
                               "}\n";

/* main.lua (a one-shot) hands its canvas to the systems it starts: it outlives the chunk. */
START_TEST(test_canvas_of_a_one_shot_outlives_it) {
    game_write("main.lua", MAIN_LUA);
    game_write("user.lua", USER_LUA);
    ona_runtime *rt = make_runtime();
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, "", 0, 0);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_ge(coll->count, 3);
    for (int i = 0; i < coll->count; i++)
        ck_assert_double_eq(coll->items[i].number, 8);
    ck_assert_uint_eq(live_canvases(rt), 1);
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *canvas_suite(void) {
    Suite *s = suite_create("canvas");
    TCase *tc = tcase_create("canvas");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_canvas_freed_with_its_system);
    tcase_add_test(tc, test_canvas_of_a_one_shot_outlives_it);
    tcase_add_test(tc, test_canvas_and_texture_slots_shared);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(canvas_suite());
}
