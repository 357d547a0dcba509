/*
 * test_decoders.c: asset files the game did not write, through a running game. Forged fonts,
 * mutated OGGs and damaged PNGs (the fuzz seeds, tests/fuzz/corpus/, written by
 * tests/fuzz/make_asset_seeds.py) are loaded by a Lua system with ona.gfx.font,
 * ona.audio.sound, ona.audio.music and ona.gfx.texture: each is refused with an error naming
 * the file and saying what is wrong, the system gets the placeholder, and the game keeps
 * running frames (a later frame reports in). Under the asan preset these are the crash tests.
 *
 * Design note. The corpus replay (test_fuzz_corpus) checks the decoders one file at a time;
 * this suite checks the same files through the public Lua API, the asset registry and the
 * frame loop, where the original crashes killed the whole process.
 */
#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS ONA_SOURCE_DIR "/tests/fuzz/corpus/"

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("decoders");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
}

/* Copies the corpus folder `kind`'s good-* and bad-* files into the game folder and writes
 * their names, as a Lua list, to `list`. Returns how many. */
static int copy_corpus(const char *kind, char *list, size_t size) {
    char folder[512];
    snprintf(folder, sizeof folder, CORPUS "%s", kind);
    DIR *d = opendir(folder);
    ck_assert_msg(d != NULL, "no corpus at %s", folder);
    int n = 0;
    size_t used = (size_t)snprintf(list, size, "{");
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, "good-", 5) != 0 && strncmp(e->d_name, "bad-", 4) != 0)
            continue;
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/%s", folder, e->d_name);
        snprintf(to, sizeof to, "%s/%s", game_dir(), e->d_name);
        file_save_copy(from, to);
        used += (size_t)snprintf(list + used, size - used, "'%s', ", e->d_name);
        ck_assert(used < size);
        n++;
    }
    closedir(d);
    snprintf(list + used, size - used, "}");
    return n;
}

/* Runs `script` (with NAMES replaced by `list`) for 6 frames; it reports to the collector. */
static void run_game(const char *script_fmt, const char *list, ona_video video) {
    static char script[8192];
    snprintf(script, sizeof script, script_fmt, list);
    game_write("loader.lua", script);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .video = video};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "loader.lua", "loader", report, "", 0, ONA_POLICY_STOP);
    for (int f = 0; f < 6; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
}

/* The collector's message starting with `prefix`, or NULL. */
static const char *report_of(const char *prefix) {
    for (int i = 0; i < coll->count; i++)
        if (strncmp(coll->items[i].text, prefix, strlen(prefix)) == 0)
            return coll->items[i].text;
    return NULL;
}

/* Each bad-* file was refused by a logged error naming it and the game lived on (`alive`). */
static void expect_verdicts(const char *list, const char *what) {
    ck_assert_msg(report_of("alive") != NULL, "the game did not reach frame 5; log:\n%s",
                  captured_logs_text());
    for (const char *p = strchr(list, '\''); p; p = strchr(strchr(p + 1, '\'') + 1, '\'')) {
        char name[256];
        const char *end = strchr(p + 1, '\'');
        snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
        char line[300];
        snprintf(line, sizeof line, "%s ", name);
        const char *r = report_of(line);
        ck_assert_msg(r != NULL, "no report for %s; log:\n%s", name, captured_logs_text());
        char needle[1400];
        snprintf(needle, sizeof needle, "%s %s/%s: ", what, game_dir(), name);
        if (strncmp(name, "bad-", 4) == 0) {
            ck_assert_msg(strstr(r, " refused") != NULL, "%s was accepted: %s", name, r);
            ck_assert_msg(captured_logs_contain(needle), "no error naming %s; log:\n%s", needle,
                          captured_logs_text());
        } else {
            ck_assert_msg(strstr(r, " loaded") != NULL, "%s was refused: %s; log:\n%s", name, r,
                          captured_logs_text());
            ck_assert_msg(!captured_logs_contain(needle), "%s logged an error", name);
        }
    }
}

/* The corpus folder `kind` through `script`: at least `min_files` files, each bad-* refused
 * with an error naming it as a `what`, each good-* loaded, the game alive at frame 5. */
static void run_corpus(const char *kind, const char *script, int min_files, const char *what) {
    static char list[4096];
    ck_assert_int_ge(copy_corpus(kind, list, sizeof list), min_files);
    run_game(script, list, ONA_VIDEO_NONE);
    expect_verdicts(list, what);
}

static const char fonts_lua[] =
    "local NAMES = %s\n"
    "local text = 'Hello, AVAWToTy \\195\\169 \\206\\169 \\255 end'\n"
    "return {\n"
    "  init = function(s, args)\n"
    "    s.r, s.fonts = args.report, {}\n"
    "    for _, name in ipairs(NAMES) do\n"
    "      local f, err = ona.gfx.font(name, 24)\n"
    "      local w, h = ona.gfx.measure(f, text)\n"
    "      local sane = w == w and h == h and w < math.huge and h < math.huge and h > 0\n"
    "      ona.send(s.r, name .. (err and ' refused ' or ' loaded ') .. (sane and 'sane' or\n"
    "        ('insane ' .. tostring(w) .. ' ' .. tostring(h))))\n"
    "      s.fonts[#s.fonts + 1] = f\n"
    "    end\n"
    "  end,\n"
    "  process = function(s)\n"
    "    for _, f in ipairs(s.fonts) do ona.gfx.print(f, text, 10, 10, {width = 80, wrap = true}) "
    "end\n"
    "    if ona.frame() == 5 then ona.send(s.r, 'alive') end\n"
    "  end,\n"
    "}\n";

/* Forged fonts: cmap offsets and group counts out of the file, a format 2 cmap, a cmap whose
 * glyphs are past the font's, a glyph outline past its data, loca offsets past glyf, zero
 * height, truncated, garbage, empty, 3 bytes. Each gets the default font, with finite measures;
 * the square fonts load and print. */
START_TEST(test_decoders_forged_fonts_refused_by_name_and_the_game_runs_on) {
    run_corpus("font", fonts_lua, 13, "font");
    for (int i = 0; i < coll->count; i++)
        ck_assert_msg(strstr(coll->items[i].text, "insane") == NULL, "%s", coll->items[i].text);
    ck_assert(captured_logs_contain("bad-zero-height.ttf: zero height"));
    ck_assert(captured_logs_contain("bad-cmap-offset.ttf: its character map (cmap) is broken"));
    ck_assert(captured_logs_contain("bad-loca-offset.ttf: every glyph is empty"));
    ck_assert(captured_logs_contain(
        "bad-cmap-glyph-index.ttf: its character map (cmap) maps no character; using the default "
        "font instead"));
    ck_assert(captured_logs_contain("bad-glyph-outline.ttf: the glyph of U+0041 (glyph 34) is "
                                    "broken: invalid outline; using the default font instead"));
    collector_free();
}
END_TEST

static const char sounds_lua[] = "local NAMES = %s\n"
                                 "return {\n"
                                 "  init = function(s, args)\n"
                                 "    s.r = args.report\n"
                                 "    for _, name in ipairs(NAMES) do\n"
                                 "      local snd, err = ona.audio.sound(name)\n"
                                 "      ona.send(s.r, name .. (err and ' refused' or ' loaded'))\n"
                                 "      ona.audio.play(snd)\n"
                                 "    end\n"
                                 "  end,\n"
                                 "  process = function(s)\n"
                                 "    if ona.frame() == 5 then ona.send(s.r, 'alive') end\n"
                                 "  end,\n"
                                 "}\n";

/* Mutated OGGs (spliced setup and comment headers, truncated, the magic alone), a cut WAV and
 * an unknown file: refused by name, played as silence; tone.ogg and the WAVs decode. */
START_TEST(test_decoders_mutated_sounds_refused_by_name_and_the_game_runs_on) {
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    run_corpus("sound", sounds_lua, 10, "sound");
    unsetenv("SDL_AUDIODRIVER");
    ck_assert(captured_logs_contain("bad-ogg-codebook-splice.ogg: not a readable OGG Vorbis"));
    collector_free();
}
END_TEST

static const char music_lua[] = "local NAMES = %s\n"
                                "return {\n"
                                "  init = function(s, args) s.r = args.report end,\n"
                                "  process = function(s)\n"
                                "    local name = NAMES[ona.frame()]\n"
                                "    if name then ona.audio.music(name, {loop = true}) end\n"
                                "    if ona.frame() == 5 then ona.send(s.r, 'alive') end\n"
                                "  end,\n"
                                "}\n";

/* Mutated OGGs as music, one a frame while the (dummy) device pulls the stream: each is
 * refused by name at open and the frames go on. */
START_TEST(test_decoders_mutated_music_refused_by_name_and_the_game_runs_on) {
    const char *bad[] = {"bad-ogg-codebook-splice.ogg", "bad-ogg-header-splice.ogg",
                         "bad-ogg-truncated.ogg", "good-tone.ogg"};
    static char list[1024];
    size_t used = (size_t)snprintf(list, sizeof list, "{");
    for (int i = 0; i < 4; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, CORPUS "music/%s", bad[i]);
        snprintf(to, sizeof to, "%s/%s", game_dir(), bad[i]);
        file_save_copy(from, to);
        used += (size_t)snprintf(list + used, sizeof list - used, "'%s', ", bad[i]);
    }
    snprintf(list + used, sizeof list - used, "}");
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    run_game(music_lua, list, ONA_VIDEO_NONE);
    unsetenv("SDL_AUDIODRIVER");
    ck_assert_msg(report_of("alive") != NULL, "%s", captured_logs_text());
    for (int i = 0; i < 3; i++) {
        char needle[1400];
        snprintf(needle, sizeof needle, "music %s/%s: not a readable OGG Vorbis file", game_dir(),
                 bad[i]);
        ck_assert_msg(captured_logs_contain(needle), "no error naming %s:\n%s", bad[i],
                      captured_logs_text());
    }
    ck_assert(!captured_logs_contain("good-tone.ogg: "));
    collector_free();
}
END_TEST

static const char images_lua[] = "local NAMES = %s\n"
                                 "return {\n"
                                 "  init = function(s, args)\n"
                                 "    s.r, s.tex = args.report, {}\n"
                                 "    for _, name in ipairs(NAMES) do\n"
                                 "      local t, w, h, err = ona.gfx.texture(name)\n"
                                 "      ona.send(s.r, name .. (err and ' refused' or ' loaded'))\n"
                                 "      s.tex[#s.tex + 1] = t\n"
                                 "    end\n"
                                 "  end,\n"
                                 "  process = function(s)\n"
                                 "    for i, t in ipairs(s.tex) do ona.gfx.draw(t, i * 8, 8) end\n"
                                 "    if ona.frame() == 5 then ona.send(s.r, 'alive') end\n"
                                 "  end,\n"
                                 "}\n";

/* Damaged PNGs (a bad CRC, cut, no pixel data), a 16-bit PNM and a JPEG: refused by name, drawn
 * as the placeholder. */
START_TEST(test_decoders_damaged_images_refused_by_name_and_the_game_runs_on) {
    run_corpus("image", images_lua, 9, "texture");
    ck_assert(captured_logs_contain("bad-not-png.bin: not a PNG file"));
    collector_free();
}
END_TEST

int main(void) {
    Suite *s = suite_create("decoders");
    TCase *tc = tcase_create("decoders");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_decoders_forged_fonts_refused_by_name_and_the_game_runs_on);
    tcase_add_test(tc, test_decoders_mutated_sounds_refused_by_name_and_the_game_runs_on);
    tcase_add_test(tc, test_decoders_mutated_music_refused_by_name_and_the_game_runs_on);
    tcase_add_test(tc, test_decoders_damaged_images_refused_by_name_and_the_game_runs_on);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
