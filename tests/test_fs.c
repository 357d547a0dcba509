/*
 * test_fs.c: ona.fs, the game's file system, and games packed into one file. Each call with good
 * and bad arguments; paths that leave the game raise at the author's line; ona.fs.write writes
 * atomically into the save folder, whose files read over the game's; a game packed by `ona
 * pack` runs from its archive alone (scripts, a module, a texture, sounds, music, a font and a
 * data file, with its source folder deleted), also fused into one program, and sixteen systems
 * read one archive at once; two runtimes in one process see only their own
 * game; a file read through ona.fs is listed by a recording, so a replay names it when changed.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char saves[600];

static void mkdir_in_game(const char *name) {
    char path[1600];
    int len = snprintf(path, sizeof path, "%s/%s", game_dir(), name);
    ck_assert(len > 0 && (size_t)len < sizeof path);
    ck_assert_int_eq(mkdir(path, 0755), 0);
}

static ona_runtime *make_runtime(const char *root, ona_video video) {
    snprintf(saves, sizeof saves, "%s/saves", game_dir());
    const char *roots[] = {root, NULL};
    return create_runtime(&(ona_runtime_desc){
        .threads = 2, .script_roots = roots, .save_dir = saves, .video = video, .no_audio = true});
}

/* Line numbers matter: the escapes are asserted at "calls.lua:<line>:". */
static const char CALLS_LUA[] =
    "local r\n"                                                            /* 1 */
    "local function say(...) ona.send(r, table.concat({...}, ' ')) end\n"  /* 2 */
    "return { init = function(state, args) r = args.report; local ok, e\n" /* 3 */
    "  ok, e = pcall(ona.fs.read, '../outside.txt'); say('escape1', e)\n"  /* 4 */
    "  ok, e = pcall(ona.fs.read, '/etc/passwd'); say('escape2', e)\n"     /* 5 */
    "  ok, e = pcall(ona.fs.exists, 'a\\0b'); say('escape3', e)\n"         /* 6 */
    "  ok, e = pcall(ona.fs.list, 'levels/../../x'); say('escape4', e)\n"  /* 7 */
    "  ok, e = pcall(ona.fs.write, '../x.txt', 'y'); say('escape5', e)\n"  /* 8 */
    "  ok, e = pcall(ona.fs.info, 'a\\\\b'); say('escape6', e)\n"          /* 9 */
    "  ok, e = pcall(ona.fs.read, {}); say('badarg1', e)\n"                /* 10 */
    "  ok, e = pcall(ona.fs.write, 'x.txt', 42); say('badarg2', e)\n"      /* 11 */
    "  ok, e = pcall(ona.fs.write, '', 'x'); say('badarg3', e)\n"          /* 12 */
    "  ok, e = pcall(ona.fs.lines, 'missing.txt'); say('badarg4', e)\n"    /* 13 */
    "  local text = ona.fs.read('data.txt')\n"
    "  say('read', text == 'one\\r\\ntwo\\nthree' and 'ok' or tostring(text))\n"
    "  say('read2', ona.fs.read('./levels//b.txt'))\n"
    "  local got = {}\n"
    "  for line in ona.fs.lines('data.txt') do got[#got + 1] = line end\n"
    "  say('lines', table.concat(got, '|'), #got)\n"
    "  say('list', table.concat(ona.fs.list('levels'), ','))\n"
    "  say('top', table.concat(ona.fs.list(), ','))\n"
    "  say('exists', tostring(ona.fs.exists('data.txt')), tostring(ona.fs.exists('levels')),\n"
    "      tostring(ona.fs.exists('nope.txt')))\n"
    "  local i, d = ona.fs.info('data.txt'), ona.fs.info('levels')\n"
    "  say('info', i.type, tostring(i.size), tostring(i.save), d.type)\n"
    "  local v, m = ona.fs.read('nope.txt'); say('missing', tostring(v), m)\n"
    "  v, m = ona.fs.info('nope/x.txt'); say('noinfo', tostring(v), m)\n"
    "  v, m = ona.fs.list('nope'); say('nolist', tostring(v), m)\n"
    "  v, m = ona.fs.read('levels'); say('folder', tostring(v), m)\n"
    "  say('write', tostring(ona.fs.write('notes/today.txt', 'written\\0bytes')))\n"
    "  say('back', ona.fs.read('notes/today.txt') == 'written\\0bytes' and 'same' or 'differs',\n"
    "      tostring(ona.fs.info('notes/today.txt').save))\n"
    "  assert(ona.fs.write('data.txt', 'from the save'))\n"
    "  say('overlay', ona.fs.read('data.txt'), tostring(ona.fs.info('data.txt').save))\n"
    "  say('merged', table.concat(ona.fs.list(), ','))\n"
    "end }\n";

START_TEST(test_fs_calls_and_escapes) {
    capture_logs_begin();
    game_dir_begin("fs-calls");
    game_write("calls.lua", CALLS_LUA);
    game_write("data.txt", "one\r\ntwo\nthree");
    mkdir_in_game("levels");
    game_write("levels/b.txt", "level b");
    game_write("levels/a.txt", "level a");
    ona_runtime *rt = make_runtime(game_dir(), ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "calls.lua", "calls", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ASSERT_COLLECTED("calls.lua:4: ona.fs.read: bad argument #1 ('../outside.txt' has a "
                     "'..' (a path may not leave the game))");
    ASSERT_COLLECTED("calls.lua:5: ona.fs.read: bad argument #1 ('/etc/passwd' is "
                     "absolute");
    ASSERT_COLLECTED("calls.lua:6: ona.fs.exists: bad argument #1 ('a' holds a NUL byte)");
    ASSERT_COLLECTED("calls.lua:7: ona.fs.list: bad argument #1 ('levels/../../x' has a "
                     "'..'");
    ASSERT_COLLECTED("calls.lua:8: ona.fs.write: bad argument #1 ('../x.txt' has a '..'");
    ASSERT_COLLECTED("calls.lua:9: ona.fs.info: bad argument #1 ('a\\b' holds a '\\'");
    ASSERT_COLLECTED("calls.lua:10: ona.fs.read: bad argument #1 (string expected, got table)");
    ASSERT_COLLECTED("calls.lua:11: ona.fs.write: bad argument #2 (string expected, got "
                     "number)");
    ASSERT_COLLECTED("calls.lua:12: ona.fs.write: bad argument #1 (the path names no file)");
    ASSERT_COLLECTED("calls.lua:13: ona.fs.lines: missing.txt: no such file or folder in "
                     "the game");
    ASSERT_COLLECTED("read ok");
    ASSERT_COLLECTED("read2 level b");
    ASSERT_COLLECTED("lines one|two|three 3");
    ASSERT_COLLECTED("list a.txt,b.txt");
    ASSERT_COLLECTED("top calls.lua,data.txt,levels");
    ASSERT_COLLECTED("exists true true false");
    ASSERT_COLLECTED("info file 14 false directory");
    ASSERT_COLLECTED("missing nil nope.txt: no such file or folder in the game");
    ASSERT_COLLECTED("noinfo nil nope/x.txt: no such file or folder in the game");
    ASSERT_COLLECTED("nolist nil nope: no such folder in the game");
    ASSERT_COLLECTED("folder nil levels: is a folder, not a file");
    ASSERT_COLLECTED("write true");
    ASSERT_COLLECTED("back same true");
    /* The save folder overlays the game (LÖVE's rule); its files join the listing. */
    ASSERT_COLLECTED("overlay from the save true");
    ASSERT_COLLECTED("merged calls.lua,data.txt,levels,notes,saves"); /* saves: the folder */
    ona_runtime_destroy(rt);
    collector_free();
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* Writes go to the save folder atomically (the saves' own writer): the file is whole, nothing
 * temporary is left, a rewrite replaces it, and the game's own file is untouched. A temporary
 * file left by a crash is never listed. */
START_TEST(test_fs_write_is_atomic_into_the_save_folder) {
    capture_logs_begin();
    game_dir_begin("fs-write");
    game_write("data.txt", "the game's");
    game_write("writer.lua",
               "return { init = function(state, args)\n"
               "  assert(ona.fs.write('data.txt', string.rep('a', 100000)))\n"
               "  assert(ona.fs.write('data.txt', 'second'))\n"
               "  assert(ona.fs.write('deep/er/file.bin', '\\1\\2\\3'))\n"
               "  ona.send(args.report, 'listed ' .. table.concat(ona.fs.list(), ','))\n"
               "end }\n");
    ona_runtime *rt = make_runtime(game_dir(), ONA_VIDEO_NONE);
    mkdir(saves, 0755);
    char leftover[700];
    snprintf(leftover, sizeof leftover, "%s/.data.txt.tmp-ABCDEF", saves);
    FILE *f = fopen(leftover, "w");
    ck_assert_ptr_nonnull(f);
    fputs("torn", f);
    fclose(f);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "writer.lua", "writer", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ASSERT_COLLECTED("listed data.txt,deep,saves,writer.lua"); /* saves: the folder itself */
    ona_runtime_destroy(rt);
    char path[700], text[64] = "";
    snprintf(path, sizeof path, "%s/data.txt", saves);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    ck_assert_str_eq(text, "second");
    snprintf(path, sizeof path, "%s/deep/er/file.bin", saves);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, 3);
    /* Only the leftover planted above is temporary: the writes left none of their own. */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "test $(ls -a '%s' | grep -c 'tmp-') -eq 1", saves);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/data.txt", game_dir());
    f = fopen(path, "r");
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    ck_assert_str_eq(text, "the game's");
    collector_free();
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* A sandboxed system reads the game alone and may not write. */
START_TEST(test_fs_sandbox_reads_the_game_only) {
    capture_logs_begin();
    game_dir_begin("fs-sandbox");
    game_write("data.txt", "game");
    game_write("boxed.lua", "return { init = function(state, args)\n"
                            "  local ok, e = pcall(ona.fs.write, 'data.txt', 'x')\n"
                            "  ona.send(args.report, 'write ' .. e)\n"
                            "  ona.send(args.report, 'read ' .. ona.fs.read('data.txt'))\n"
                            "end }\n");
    ona_runtime *rt = make_runtime(game_dir(), ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    ona_message args = make_args(report, "");
    ona_system s;
    ck_assert_int_eq(
        ona_runtime_spawn(
            rt, &(ona_spawn_desc){.script = "boxed.lua", .args = &args, .sandbox = true}, &s),
        0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ASSERT_COLLECTED("boxed.lua:2: ona.fs.write: a sandboxed system cannot write files");
    ASSERT_COLLECTED("read game");
    ona_runtime_destroy(rt);
    collector_free();
    capture_logs_end();
    game_dir_end();
}
END_TEST

static void copy_file(const char *from, const char *to) {
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    ck_assert_int_eq(system(cmd), 0);
}

/* Runs the launcher with `args`; returns its exit status. */
static int launcher(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", ONA_LAUNCHER_PATH, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static const char PACKED_MAIN[] = "ona.spawn('player.lua', {report = (...).report})\n";
static const char PACKED_PLAYER[] =
    "local config = require('lib.config')\n"
    "return { init = function(state, args)\n"
    "  local r = args.report\n"
    "  local t, w, h = ona.gfx.texture('art/coin.png')\n"
    "  ona.send(r, 'texture ' .. w .. 'x' .. h)\n"
    "  local s, serr = ona.audio.sound('sfx/laser.wav')\n"
    "  ona.send(r, 'sound ' .. tostring(serr))\n"
    "  local o, oerr = ona.audio.sound('sfx/tone.ogg')\n"
    "  ona.send(r, 'ogg ' .. tostring(oerr))\n"
    "  local f, ferr = ona.gfx.font('fonts/DejaVuSans.ttf', 24)\n"
    "  ona.send(r, 'font ' .. tostring(ferr))\n"
    "  ona.send(r, 'module ' .. config.name)\n"
    "  ona.send(r, 'level ' .. table.concat(ona.fs.list('levels'), ',') .. ' ' ..\n"
    "           ona.fs.read('levels/1.txt'))\n"
    "  ona.send(r, 'where ' .. debug.getinfo(1, 'S').source)\n"
    "  ona.audio.music('sfx/tone.ogg')\n"
    "end }\n";

/* `ona pack` a game folder, delete it, and run the archive from another folder. */
START_TEST(test_fs_packed_game_runs_from_its_archive) {
    capture_logs_begin();
    game_dir_begin("fs-pack");
    char src[700], out[700], archive[700], path[800];
    snprintf(src, sizeof src, "%s/game", game_dir());
    ck_assert_int_eq(mkdir(src, 0755), 0);
    const char *dirs[] = {"art", "sfx", "fonts", "lib", "levels"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "game/%s", dirs[i]);
        mkdir_in_game(path);
    }
    game_write("game/main.lua", PACKED_MAIN);
    game_write("game/player.lua", PACKED_PLAYER);
    game_write("game/lib/config.lua", "return {name = 'packed config'}\n");
    game_write("game/levels/1.txt", "#####\n#.@.#\n#####\n");
    snprintf(path, sizeof path, "%s/art/coin.png", src);
    copy_file(ONA_SOURCE_DIR "/samples/platformer/coin.png", path);
    snprintf(path, sizeof path, "%s/sfx/laser.wav", src);
    copy_file(ONA_SOURCE_DIR "/samples/invaders/laser.wav", path);
    snprintf(path, sizeof path, "%s/sfx/tone.ogg", src);
    copy_file(ONA_SOURCE_DIR "/tests/audio/tone.ogg", path);
    snprintf(path, sizeof path, "%s/fonts/DejaVuSans.ttf", src);
    copy_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", path);
    snprintf(out, sizeof out, "%s/pong.ona", game_dir());
    char args[1600];
    snprintf(args, sizeof args, "pack '%s' -o '%s'", src, out);
    ck_assert_int_eq(launcher(args), 0);
    /* The archive alone, somewhere else; the source folder gone. */
    snprintf(path, sizeof path, "rm -rf '%s'", src);
    ck_assert_int_eq(system(path), 0);
    snprintf(path, sizeof path, "%s/elsewhere", game_dir());
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(archive, sizeof archive, "%s/elsewhere/pong.ona", game_dir());
    ck_assert_int_eq(rename(out, archive), 0);

    ona_runtime *rt = make_runtime(archive, ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 1.0 / 60), 0);
    ASSERT_COLLECTED("texture 32x8");
    ASSERT_COLLECTED("sound nil");
    ASSERT_COLLECTED("ogg nil");
    ASSERT_COLLECTED("font nil");
    ASSERT_COLLECTED("module packed config");
    ASSERT_COLLECTED("level 1.txt #####\n#.@.#\n#####\n");
    /* Scripts are named inside the archive, as a folder's would be. */
    snprintf(path, sizeof path, "where @%s/player.lua", archive);
    ASSERT_COLLECTED(path);
    ck_assert_msg(!captured_logs_contain("error:") && !captured_logs_contain("warn:"),
                  "the packed game logged:\n%s", captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();

    /* The launcher runs it too (headless, a few frames). */
    snprintf(args, sizeof args, "'%s' --headless --no-audio --frames 3", archive);
    ck_assert_int_eq(launcher(args), 0);
    /* Fused: the launcher with the zip appended is the game, run as a program. */
    snprintf(path, sizeof path, "%s/game", game_dir());
    ck_assert_int_eq(mkdir(path, 0755), 0);
    game_write("game/main.lua", "print('fused game ran: ' .. ona.fs.read('level.txt'))\n");
    game_write("game/level.txt", "from inside the program");
    char fused[700], cmd[2048];
    snprintf(fused, sizeof fused, "%s/elsewhere/mygame", game_dir());
    snprintf(args, sizeof args, "pack '%s' -o '%s' --fused", path, fused);
    ck_assert_int_eq(launcher(args), 0);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && cd / && '%s' --headless --no-audio --frames 2 2>&1 | "
             "grep -q 'fused game ran: from inside the program'",
             path, fused);
    ck_assert_int_eq(system(cmd), 0);
    /* Not an archive: refused in words, never run. */
    snprintf(path, sizeof path, "%s/elsewhere/broken.ona", game_dir());
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("PK\3\4 not really a zip", f);
    fclose(f);
    const char *roots[] = {path, NULL};
    ona_runtime *bad = NULL;
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.script_roots = roots}, &bad),
                     ONA_EFORMAT);
    ck_assert_msg(captured_logs_contain("not a game archive"), "log:\n%s", captured_logs_text());
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* Two runtimes in one process: each sees its own game's files only. */
START_TEST(test_fs_two_runtimes_are_isolated) {
    capture_logs_begin();
    game_dir_begin("fs-two");
    mkdir_in_game("a");
    mkdir_in_game("b");
    const char *who = "return { init = function(state, args)\n"
                      "  ona.send(args.report, 'who ' .. ona.fs.read('who.txt') .. ' ' ..\n"
                      "    tostring(ona.fs.exists('only_a.txt')))\n"
                      "end }\n";
    game_write("a/who.lua", who);
    game_write("b/who.lua", who);
    game_write("a/who.txt", "A");
    game_write("a/only_a.txt", "secret");
    game_write("b/who.txt", "B");
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/a", game_dir());
    snprintf(b, sizeof b, "%s/b", game_dir());
    ona_runtime *ra = make_runtime(a, ONA_VIDEO_NONE);
    ona_runtime *rb = make_runtime(b, ONA_VIDEO_NONE);
    ona_system report_a = spawn_collector(ra);
    spawn_lua(ra, "who.lua", "who", report_a, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(ra, 2, 0), 0);
    ASSERT_COLLECTED("who A true");
    collector_free();
    ona_system report_b = spawn_collector(rb);
    spawn_lua(rb, "who.lua", "who", report_b, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rb, 2, 0), 0);
    ASSERT_COLLECTED("who B false");
    ck_assert(!collected_contains("who A"));
    collector_free();
    ona_runtime_destroy(ra);
    /* The other's going leaves this one's tree mounted. */
    ona_system again = spawn_collector(rb);
    spawn_lua(rb, "who.lua", "who2", again, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rb, 2, 0), 0);
    ASSERT_COLLECTED("who B false");
    collector_free();
    ona_runtime_destroy(rb);
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* A level file read through ona.fs is a game file of the recording: a replay names it when it
 * changed since. */
START_TEST(test_fs_reads_are_recorded_game_files) {
    capture_logs_begin();
    game_dir_begin("fs-record");
    game_write("main.lua", "local level = ona.fs.read('level.txt')\n"
                           "ona.spawn('show.lua', {n = #level})\n");
    game_write("show.lua", "return { process = function(state) ona.gfx.rect(1, 1, 2, 2) end }\n");
    game_write("level.txt", "first level");
    char rec[700];
    snprintf(rec, sizeof rec, "%s/session.onarec", game_dir());
    game_session s = {.root = game_dir(), .threads = 2, .frames = 5, .dt = 1.0 / 60, .record = rec};
    uint64_t diverged = 0;
    char why[256];
    run_session(&s, &diverged, why, sizeof why);
    ck_assert(!captured_logs_contain("level.txt changed"));
    game_write("level.txt", "another level");
    s.record = NULL;
    s.replay = rec;
    run_session(&s, &diverged, why, sizeof why);
    ck_assert_msg(captured_logs_contain("level.txt changed since the recording"), "log:\n%s",
                  captured_logs_text());
    capture_logs_end();
    game_dir_end();
}
END_TEST

/* Sixteen systems on four threads read the same archive at once, through ona.fs and require:
 * each gets the whole file (PhysicsFS reads run on any thread, each on its own handle). */
START_TEST(test_fs_many_systems_read_an_archive_at_once) {
    capture_logs_begin();
    game_dir_begin("fs-many");
    char src[700], archive[700], args[1600];
    snprintf(src, sizeof src, "%s/game", game_dir());
    ck_assert_int_eq(mkdir(src, 0755), 0);
    game_write("game/main.lua", "for i = 1, 16 do ona.spawn('reader.lua', nil,"
                                " {name = 'reader' .. i}) end\n");
    game_write("game/reader.lua", "local big = require('big')\n"
                                  "return { process = function(state)\n"
                                  "  if state.done then return end\n"
                                  "  state.done = true\n"
                                  "  local text = ona.fs.read('data.txt')\n"
                                  "  local n = 0\n"
                                  "  for _ in ona.fs.lines('data.txt') do n = n + 1 end\n"
                                  "  ona.send(ona.lookup('collector'), 'read ' .. #text .. ' ' .. n"
                                  " .. ' ' .. #big)\n"
                                  "end }\n");
    char *data = malloc(200001);
    for (int i = 0; i < 200000; i++)
        data[i] = i % 50 == 49 ? '\n' : (char)('a' + i % 26);
    data[200000] = '\0';
    game_write("game/data.txt", data);
    free(data);
    game_write("game/big.lua", "return string.rep('x', 1000)\n");
    snprintf(archive, sizeof archive, "%s/many.ona", game_dir());
    snprintf(args, sizeof args, "pack '%s' -o '%s'", src, archive);
    ck_assert_int_eq(launcher(args), 0);
    const char *roots[] = {archive, NULL};
    ona_runtime *rt = create_runtime(&(ona_runtime_desc){.threads = 4, .script_roots = roots});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    int whole = 0;
    for (int i = 0; i < coll->count; i++)
        whole += strcmp(coll->items[i].text, "read 200000 4000 1000") == 0;
    ck_assert_msg(whole == 16, "%d of 16 read the whole file:\n%s\nlog:\n%s", whole,
                  collected_text(), captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();
    capture_logs_end();
    game_dir_end();
}
END_TEST

static Suite *fs_suite(void) {
    Suite *s = suite_create("fs");
    TCase *tc = tcase_create("fs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fs_calls_and_escapes);
    tcase_add_test(tc, test_fs_write_is_atomic_into_the_save_folder);
    tcase_add_test(tc, test_fs_sandbox_reads_the_game_only);
    tcase_add_test(tc, test_fs_packed_game_runs_from_its_archive);
    tcase_add_test(tc, test_fs_two_runtimes_are_isolated);
    tcase_add_test(tc, test_fs_reads_are_recorded_game_files);
    tcase_add_test(tc, test_fs_many_systems_read_an_archive_at_once);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(fs_suite());
}
