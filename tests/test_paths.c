/*
 * test_paths.c: where a game's files may come from (runtime/core/paths.c). A script's asset
 * path is confined to the game folder: an absolute path elsewhere (/etc/passwd), a '..' that
 * leaves it or a link out of it raises at the author's line; nothing is looked for in the
 * working directory; a FIFO, a folder or a text file where an asset is expected is refused in
 * words, without blocking, and every other system keeps running. Lua scripts for it are written
 * into a scratch game folder by each test.
 */
#include "test_support.h"

#include "common.h"
#include "paths.h"

#include <limits.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char outside[256]; /* a scratch folder beside the game folder */

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("paths");
    snprintf(outside, sizeof outside, "/tmp/ona-paths-outside-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(outside));
}

static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", outside);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", outside);
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static void png_at(const char *path) {
    uint8_t px[4 * 4 * 4];
    memset(px, 0xFF, sizeof px);
    ck_assert(stbi_write_png(path, 4, 4, 4, px, 16));
}

static void game_png(const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", game_dir(), name);
    png_at(path);
}

static void game_mkdir(const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", game_dir(), name);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

static ona_runtime *make_runtime(ona_video video) {
    const char *roots[] = {game_dir(), NULL};
    return create_runtime(&(ona_runtime_desc){.threads = 2,
                                              .script_roots = roots,
                                              .video = video,
                                              .window = {.width = 32, .height = 32}});
}

/* The resolver itself: confined names, the embedder's absolute paths, no working directory. */
START_TEST(test_paths_resolve_confines_game_names) {
    game_png("in.png");
    game_mkdir("sub");
    game_png("sub/deep.png");
    char out_png[600], link[600], root_copy[600];
    snprintf(out_png, sizeof out_png, "%s/out.png", outside);
    png_at(out_png);
    snprintf(link, sizeof link, "%s/link.png", game_dir());
    ck_assert_int_eq(symlink(out_png, link), 0);
    snprintf(root_copy, sizeof root_copy, "%s", game_dir());
    char *roots[] = {root_copy};
    char path[PATH_MAX], name[700];
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "in.png", path, sizeof path), 0);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "sub/../in.png", path, sizeof path), 0);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "./sub/deep.png", path, sizeof path), 0);
    /* An absolute path is a game's own only inside the folder: resolved paths come back in. */
    snprintf(name, sizeof name, "%s/sub/deep.png", game_dir());
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, name, path, sizeof path), 0);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "/etc/passwd", path, sizeof path),
                     ONA_EPATH);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "/no/such/file.png", path, sizeof path),
                     ONA_EPATH);
    snprintf(name, sizeof name, "../%s/out.png", strrchr(outside, '/') + 1);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, name, path, sizeof path), ONA_EPATH);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "sub/../../x.png", path, sizeof path),
                     ONA_EPATH);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "link.png", path, sizeof path), ONA_EPATH);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "sub", path, sizeof path), ONA_ENOTFILE);
    ck_assert_str_eq(ona__paths_why(ONA_ENOTFILE, path), "is a directory, not a file");
    /* The embedder's calls take absolute paths anywhere, but never the working directory. */
    ck_assert_int_eq(ona__paths_resolve(roots, 1, out_png, path, sizeof path), 0);
    ck_assert_int_eq(chdir(outside), 0);
    ck_assert_int_eq(ona__paths_resolve(roots, 1, "out.png", path, sizeof path), ONA_ENOENT);
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "out.png", path, sizeof path), ONA_ENOENT);
}
END_TEST

static const char OUTSIDE_LUA[] =
    "local report\n"
    "local function try(ok, e) ona.send(report, tostring(ok) .. ' ' .. tostring(e)) end\n"
    "return { init = function(s, args) report = args.report\n"
    "  try(pcall(ona.gfx.texture, '/etc/passwd'))\n"
    "  try(pcall(ona.gfx.texture, args.escape))\n"
    "  try(pcall(ona.gfx.texture, 'link.png'))\n"
    "  try(pcall(ona.audio.sound, '/etc/passwd'))\n"
    "  try(pcall(ona.gfx.font, '../font.ttf', 12))\n"
    "  try(pcall(ona.gfx.shader, '/etc/passwd'))\n"
    "  try(pcall(ona.audio.music, '../../music.ogg'))\n"
    "  local t, w, h, e = ona.gfx.texture('cwd_only.png')\n"
    "  ona.send(report, 'cwd ' .. tostring(w) .. ' ' .. tostring(e))\n"
    "  t, w, h = ona.gfx.texture('sub/../in.png')\n"
    "  ona.send(report, 'inside ' .. tostring(w))\n"
    "end, process = function() end }\n";

/* What a script names must be inside its game folder; the working directory is never looked
 * in, whatever it holds. */
START_TEST(test_paths_lua_refuses_paths_outside_the_game_folder) {
    game_write("outside.lua", OUTSIDE_LUA);
    game_png("in.png");
    game_mkdir("sub");
    char out_png[600], link[600], args[700];
    snprintf(out_png, sizeof out_png, "%s/cwd_only.png", outside);
    png_at(out_png);
    snprintf(link, sizeof link, "%s/link.png", game_dir());
    ck_assert_int_eq(symlink("/etc/passwd", link), 0);
    ck_assert_int_eq(chdir(outside), 0); /* cwd_only.png is in the working directory */
    ona_runtime *rt = make_runtime(ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    snprintf(args, sizeof args, "escape=../%s/cwd_only.png", strrchr(outside, '/') + 1);
    spawn_lua(rt, "outside.lua", "outside", report, args, 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ASSERT_COLLECTED("outside.lua:4: ona.gfx.texture: bad argument #1 ('/etc/passwd' is outside "
                     "the game folder");
    ASSERT_COLLECTED("outside.lua:5: ona.gfx.texture: bad argument #1 ('../ona-paths-outside-");
    ASSERT_COLLECTED("outside.lua:6: ona.gfx.texture: bad argument #1 ('link.png' is outside");
    ASSERT_COLLECTED("outside.lua:7: ona.audio.sound: bad argument #1 ('/etc/passwd' is outside");
    ASSERT_COLLECTED("outside.lua:8: ona.gfx.font: bad argument #1 ('../font.ttf' is outside");
    ASSERT_COLLECTED("outside.lua:9: ona.gfx.shader: bad argument #1 ('/etc/passwd' is outside");
    ASSERT_COLLECTED("outside.lua:10: ona.audio.music: bad argument #1 ('../../music.ogg' is "
                     "outside");
    ASSERT_COLLECTED("cwd 16 texture cwd_only.png: no such file"); /* the placeholder's size */
    ASSERT_COLLECTED("inside 4");
    ck_assert_msg(!collected_contains("true "), "a path outside was taken:\n%s", collected_text());
    /* The embedder's own call is not confined, but never looks in the working directory. */
    ona_texture t;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "cwd_only.png", &t), ONA_ENOENT);
    ck_assert_int_eq(ona_runtime_texture_load(rt, out_png, &t), 0);
    ona_runtime_destroy(rt);
}
END_TEST

static const char ALIVE_LUA[] = "return { init = function(s, args) s.report = args.report end,\n"
                                "  process = function(s) s.n = (s.n or 0) + 1\n"
                                "  ona.send(s.report, 'alive ' .. s.n) end }\n";

static const char ODD_LUA[] =
    "local report\n"
    "local function say(...) local t = {} for i = 1, select('#', ...) do t[i] = "
    "tostring((select(i, ...))) end ona.send(report, table.concat(t, ' ')) end\n"
    "return { init = function(s, args) report = args.report end,\n"
    "  process = function(s)\n"
    "    if ona.frame() ~= 2 then return end\n"
    "    local t, w, h, e = ona.gfx.texture('level.png'); say('fifo', w, e)\n"
    "    t, w, h, e = ona.gfx.texture('art.png'); say('dir', w, e)\n"
    "    t, w, h, e = ona.gfx.texture('notes.png'); say('text', w, e)\n"
    "    local snd, err = ona.audio.sound('hit.wav'); say('sound', err)\n"
    "    local f, ferr = ona.gfx.font('font.ttf', 20); say('font', ferr)\n"
    "    local sh, serr = ona.gfx.shader('fx.frag'); say('shader', sh, serr)\n"
    "    sh, serr = ona.gfx.shader('pipe.frag'); say('shader fifo', sh, serr)\n"
    "  end }\n";

/* A FIFO, folders and a text file where assets are expected: refused in words, without
 * blocking; the other system keeps its turns. */
START_TEST(test_paths_fifo_and_folders_refused_in_words) {
    game_write("odd.lua", ODD_LUA);
    game_write("alive.lua", ALIVE_LUA);
    game_write("notes.png", "not an image\n");
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/level.png", game_dir());
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    snprintf(fifo, sizeof fifo, "%s/pipe.frag", game_dir());
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    game_mkdir("art.png");
    game_mkdir("hit.wav");
    game_mkdir("font.ttf");
    game_mkdir("fx.frag");
    ck_assert_int_eq(chdir(game_dir()), 0); /* the game run from its own folder, as `ona .` */
    ona_runtime *rt = make_runtime(ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    spawn_lua(rt, "odd.lua", "odd", report, "", 0, 0);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ASSERT_COLLECTED("fifo 16 texture ");
    ASSERT_COLLECTED("level.png: is a FIFO (named pipe), not a regular file");
    ASSERT_COLLECTED("art.png: is a directory, not a file");
    ASSERT_COLLECTED("text 16 texture ");
    ASSERT_COLLECTED("notes.png: not a readable image (PNG, JPEG, BMP, TGA or GIF)");
    ASSERT_COLLECTED("hit.wav: is a directory, not a file");
    ASSERT_COLLECTED("font.ttf: is a directory, not a file");
    ASSERT_COLLECTED("shader nil shader ");
    ASSERT_COLLECTED("fx.frag: is a directory, not a file");
    ASSERT_COLLECTED("pipe.frag: is a FIFO (named pipe), not a regular file");
    ASSERT_COLLECTED("alive 4"); /* the frames after the loads ran their turns */
    ck_assert(captured_logs_contain("level.png: is a FIFO (named pipe), not a regular file; "
                                    "drawing the placeholder instead"));
    ck_assert(captured_logs_contain("hit.wav: is a directory, not a file; playing silence"));
    /* The same refusals from C, without blocking. */
    ona_texture t;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "level.png", &t), ONA_ENOTFILE);
    ona_sound snd;
    ck_assert_int_eq(ona_runtime_sound_load(rt, "hit.wav", &snd), ONA_ENOTFILE);
    ona_shader sh;
    ck_assert_int_eq(ona_runtime_shader_load(rt, "pipe.frag", &sh), ONA_ENOTFILE);
    ona_runtime_destroy(rt);
}
END_TEST

/* Reads `path` whole under the thread's snapshot (if any) into `out` as a string. */
static int read_text(const char *path, size_t limit, char *out, size_t size) {
    uint8_t *data;
    size_t n;
    int rc = ona__read_file(path, limit, &data, &n);
    if (rc == 0) {
        snprintf(out, size, "%s", (const char *)data);
        ona__free(data);
    }
    return rc;
}

/* Under a snapshot every read of a path answers the first one's bytes, and a lookup the first
 * one's result, whatever the disk says since; outside it the disk is read again. */
START_TEST(test_paths_snapshot_answers_the_first_read) {
    game_write("mod.lua", "return 1\n");
    char path[PATH_MAX], text[64];
    char *roots[] = {(char *)game_dir()};
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "mod.lua", path, sizeof path), 0);
    ona__paths_snapshot *snap = ona__paths_snapshot_new();
    ck_assert_ptr_nonnull(snap);
    ona__paths_snapshot *previous = ona__paths_snapshot_enter(snap);
    ck_assert_ptr_null(previous);
    ck_assert_int_eq(read_text(path, 1024, text, sizeof text), 0);
    ck_assert_str_eq(text, "return 1\n");
    char missing[PATH_MAX];
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "later.lua", missing, sizeof missing),
                     ONA_ENOENT);
    /* An editor saves both files while the work is under way. */
    game_write("mod.lua", "return 2 -- longer\n");
    game_write("later.lua", "return 3\n");
    ck_assert_int_eq(read_text(path, 1024, text, sizeof text), 0);
    ck_assert_str_eq(text, "return 1\n");
    char again[PATH_MAX];
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "later.lua", again, sizeof again),
                     ONA_ENOENT);
    ck_assert_str_eq(again, missing);
    /* A limit below the kept size is refused for this caller alone. */
    ck_assert_int_eq(read_text(path, 4, text, sizeof text), ONA_ELIMIT);
    ck_assert_ptr_eq(ona__paths_snapshot_enter(previous), snap);
    ona__paths_snapshot_free(snap);
    ck_assert_int_eq(read_text(path, 1024, text, sizeof text), 0);
    ck_assert_str_eq(text, "return 2 -- longer\n");
    ck_assert_int_eq(ona__paths_resolve_game(roots, 1, "later.lua", again, sizeof again), 0);
}
END_TEST

static Suite *paths_suite(void) {
    Suite *s = suite_create("paths");
    TCase *tc = tcase_create("paths");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_paths_resolve_confines_game_names);
    tcase_add_test(tc, test_paths_lua_refuses_paths_outside_the_game_folder);
    tcase_add_test(tc, test_paths_fifo_and_folders_refused_in_words);
    tcase_add_test(tc, test_paths_snapshot_answers_the_first_read);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(paths_suite());
}
