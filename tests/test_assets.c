/*
 * test_assets.c: the asset registry (runtime/services/assets.c) in a running headless runtime:
 * the same path gives the same handle for every kind; a texture whose file is missing at load
 * draws the placeholder and is picked up, under the same handle, when the file is created; a
 * font file replaced on disk is reloaded (text measured with the handle afterwards uses the new
 * file); a sound whose file is missing is filled in, under the same handle, when it appears.
 * Lua scripts for it are in
 * tests/lua/assets.
 */
#include "test_support.h"

#include "ona/text.h"
#include "runtime_internal.h"

#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEJAVU "/usr/share/fonts/truetype/dejavu/"

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("assets");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(ona_video video) {
    const char *roots[] = {game_dir(), ONA_SOURCE_DIR "/tests/lua/assets", NULL};
    ona_runtime_desc desc = {.threads = 2,
                             .script_roots = roots,
                             .hot_reload = true,
                             .video = video,
                             .window = {.width = 64, .height = 64}};
    return create_runtime(&desc);
}

static void game_file(const char *name, char *path, size_t size) {
    snprintf(path, size, "%s/%s", game_dir(), name);
}

/* Copies `from` into the game folder as `name`, the way editors save (a new file renamed over
 * the old one). */
static void game_copy(const char *from, const char *name) {
    char path[512];
    game_file(name, path, sizeof path);
    file_save_copy(from, path);
}

/* A w x h PNG of one colour in the game folder, written beside and renamed into place. */
static void game_png(const char *name, int w, int h, uint32_t rgba) {
    char path[512], tmp[520];
    game_file(name, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.png", path);
    uint8_t *px = malloc((size_t)w * h * 4);
    for (int i = 0; i < w * h; i++) {
        px[i * 4] = (uint8_t)(rgba >> 24);
        px[i * 4 + 1] = (uint8_t)(rgba >> 16);
        px[i * 4 + 2] = (uint8_t)(rgba >> 8);
        px[i * 4 + 3] = (uint8_t)rgba;
    }
    ck_assert(stbi_write_png(tmp, w, h, 4, px, w * 4));
    free(px);
    ck_assert_int_eq(rename(tmp, path), 0);
}

/* The last item tagged `tag` the collector got (its values follow it), or NULL. */
static const item *last_tagged(const char *tag) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return &coll->items[i];
    return NULL;
}

static ona_runtime_stats stats_of(ona_runtime *rt) {
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    return st;
}

/* Steps until the reporting system's last "size" is 4x2 (the new file, picked up after the
 * watcher's settle time), at most `frames` frames. */
static void expect_texture_becomes_4x2(ona_runtime *rt, int frames) {
    const item *size = NULL;
    for (int i = 0; i < frames; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        size = last_tagged("size");
        if (size && size[1].number == 4)
            break;
        usleep(2000);
    }
    ck_assert_msg(size && size[1].number == 4 && size[2].number == 2,
                  "the texture never became 4x2; log:\n%s", captured_logs_text());
}

/* A runtime with video running `script` (reporting to a collector) for three frames, and the
 * last item it tagged `tag`. */
static const item *run_script(ona_runtime **rt, const char *script, const char *tag) {
    *rt = make_runtime(ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(*rt);
    spawn_lua(*rt, script, "assets", report, "", 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(*rt, 1.0 / 60), 0);
    const item *got = last_tagged(tag);
    ck_assert_msg(got != NULL, "%s", captured_logs_text());
    return got;
}

START_TEST(test_assets_same_path_same_handle) {
    ona_runtime *rt = make_runtime(ONA_VIDEO_NONE);
    game_png("a.png", 2, 3, 0xFF0000FFu);
    char full[512];
    game_file("a.png", full, sizeof full);
    ona_texture t1, t2;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "a.png", &t1), 0);
    ck_assert_int_eq(ona_runtime_texture_load(rt, full, &t2), 0);
    ck_assert_uint_eq(t1.id, t2.id);
    /* The registry's own id for it looks up to its entry; a stale or forged one to NULL. */
    uint32_t id = ona__assets_id(&rt->services.assets, ONA__ASSET_TEXTURE, t1.id);
    const ona__asset_entry *e = ona__assets_get(&rt->services.assets, id);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->path + strlen(e->path) - strlen("/a.png"), "/a.png");
    ck_assert_ptr_null(ona__assets_get(&rt->services.assets, id + (1u << 16)));
    ck_assert_ptr_null(ona__assets_get(&rt->services.assets, 0));
    ck_assert_ptr_null(ona__assets_get(&rt->services.assets, ONA__MAX_ASSETS));
    game_copy(DEJAVU "DejaVuSans.ttf", "f.ttf");
    ona_font f1, f2, f3;
    ck_assert_int_eq(ona_runtime_font_load(rt, "f.ttf", 16, &f1), 0);
    ck_assert_int_eq(ona_runtime_font_load(rt, "f.ttf", 16, &f2), 0);
    ck_assert_int_eq(ona_runtime_font_load(rt, "f.ttf", 20, &f3), 0);
    ck_assert_uint_eq(f1.id, f2.id);
    ck_assert_uint_ne(f1.id, f3.id);
    /* A missing file keeps its one handle too, and says so again on each load. */
    ona_texture m1, m2;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "missing.png", &m1), ONA_ENOENT);
    ck_assert_int_eq(ona_runtime_texture_load(rt, "missing.png", &m2), ONA_ENOENT);
    ck_assert_uint_eq(m1.id, m2.id);
    ck_assert_uint_ne(m1.id, t1.id);
    ck_assert_int_eq(captured_logs_count("missing.png: no such file"), 2);
    int w = 0, h = 0;
    ck_assert_int_eq(ona_runtime_texture_size(rt, m1, &w, &h), 0);
    ck_assert_int_eq(w, 16); /* the placeholder's size */
    ck_assert_int_eq(h, 16);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_missing_texture_picked_up_when_created) {
    ona_runtime *rt;
    const item *loaded = run_script(&rt, "late_texture.lua", "loaded");
    ck_assert_double_eq(loaded[1].number, 16); /* the placeholder's size and an error */
    ck_assert_double_eq(loaded[2].number, 16);
    ck_assert_msg(strstr(loaded[3].text, "late.png: no such file") != NULL, "%s", loaded[3].text);
    uint8_t *before = shoot_frames(rt, 1, 1.0 / 60, "/tmp/ona_assets_before.png", 64, 64);
    ck_assert(before[0] > 240 && before[1] < 20 && before[2] > 240); /* magenta: placeholder */
    free(before);

    game_png("late.png", 4, 2, 0x00FF00FFu); /* green, 4x2 */
    expect_texture_becomes_4x2(rt, 300);
    uint8_t *after = shoot_frames(rt, 2, 1.0 / 60, "/tmp/ona_assets_after.png", 64, 64);
    for (int p = 0; p < 64 * 64; p += 517) {
        const uint8_t *px = after + p * 4;
        ck_assert_msg(px[0] < 20 && px[1] > 240 && px[2] < 20, "pixel %d is %d,%d,%d", p, px[0],
                      px[1], px[2]);
    }
    free(after);
    ck_assert(captured_logs_contain("late.png: 1 reloaded"));
    ona_runtime_destroy(rt);
}
END_TEST

/* A texture missing at start, in a folder that does not exist either: making the folder and the
 * file while the game runs fills the same handle. */
START_TEST(test_assets_missing_texture_in_new_folder_picked_up) {
    ona_runtime *rt = make_runtime(ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "late_texture.lua", "assets", report, "file=art/late.png", 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    const item *loaded = last_tagged("loaded");
    ck_assert_ptr_nonnull(loaded);
    ck_assert_double_eq(loaded[1].number, 16); /* the placeholder */
    char dir[512];
    game_file("art", dir, sizeof dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    game_png("art/late.png", 4, 2, 0x00FF00FFu);
    expect_texture_becomes_4x2(rt, 600);
    ck_assert(captured_logs_contain("late.png: 1 reloaded"));
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_font_file_reloaded) {
    game_copy(DEJAVU "DejaVuSans.ttf", "game.ttf");
    ona_runtime *rt;
    const item *first = run_script(&rt, "font_measure.lua", "width");
    double narrow = first[1].number, font = first[3].number;
    ck_assert_double_gt(narrow, 0);
    /* The C API's handle for the same file and size is the script's. */
    ona_font mine;
    ck_assert_int_eq(ona_runtime_font_load(rt, "game.ttf", 24, &mine), 0);
    ck_assert_double_eq(mine.id, font);

    uint32_t textures = stats_of(rt).textures; /* the font's one atlas page among them */

    /* A monospaced face: ten i's are much wider than in DejaVu Sans. */
    game_copy(DEJAVU "DejaVuSansMono.ttf", "game.ttf");
    const item *now = NULL;
    for (int i = 0; i < 300; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        now = last_tagged("width");
        if (now[1].number > narrow * 1.5)
            break;
        usleep(2000);
    }
    ck_assert_msg(now[1].number > narrow * 1.5, "width %g, was %g; log:\n%s", now[1].number, narrow,
                  captured_logs_text());
    ck_assert_double_eq(now[3].number, font); /* the same handle */
    float w = 0, h = 0;
    ck_assert_int_eq(ona_font_measure(rt, mine, "iiiiiiiiii", 10, NULL, &w, &h), 0);
    ck_assert_double_eq_tol(w, now[1].number, 0.01);
    ck_assert(captured_logs_contain("game.ttf: 1 reloaded"));
    /* The new font prints into a page of its own; the old font's page went with it. */
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(stats_of(rt).textures, textures);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_missing_sound_picked_up_when_created) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {
        .threads = 1, .script_roots = roots, .hot_reload = true, .no_audio = true};
    ona_runtime *rt = create_runtime(&desc);
    ona_sound s = {0}, again = {0};
    ck_assert_int_eq(ona_runtime_sound_load(rt, "late.wav", &s), ONA_ENOENT);
    ck_assert_int_eq(ona_runtime_sound_load(rt, "late.wav", &again), ONA_ENOENT);
    ck_assert_uint_eq(s.id, again.id);
    ck_assert_uint_ne(s.id, rt->services.audio.sounds.placeholder.id); /* its own silence */
    ck_assert_uint_eq(ona__sounds_pcm(&rt->services.audio.sounds, s.id)->count, 0);
    /* Created before any frame watched its folder: no file event, found by the first look. */
    char path[512];
    game_file("late.wav", path, sizeof path);
    char tmp[520];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    wav_write(tmp, 48000, 1, 480, 8192);
    ck_assert_int_eq(rename(tmp, path), 0);
    for (int i = 0; i < 300 && ona__sounds_pcm(&rt->services.audio.sounds, s.id)->count == 0; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(ona__sounds_pcm(&rt->services.audio.sounds, s.id)->count == 480, "log:\n%s",
                  captured_logs_text());
    ck_assert_int_eq(ona_runtime_sound_load(rt, "late.wav", &again), 0); /* no error now */
    ck_assert_uint_eq(s.id, again.id);
    ona_runtime_destroy(rt);
}
END_TEST

/* A mono WAV of `frames` frames of `value` in the game folder, written beside and renamed into
 * place. */
static void game_wav(const char *name, uint32_t frames, int16_t value) {
    char path[512], tmp[520];
    game_file(name, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    wav_write(tmp, 48000, 1, frames, value);
    ck_assert_int_eq(rename(tmp, path), 0);
}

/* An offscreen runtime after one frame, with `png` (2x3) and `wav` in the game folder; *before
 * gets its statistics then. */
static ona_runtime *runtime_with(const char *png, const char *wav, ona_runtime_stats *before) {
    ona_runtime *rt = make_runtime(ONA_VIDEO_OFFSCREEN);
    game_png(png, 2, 3, 0xFF0000FFu);
    game_wav(wav, 480, 8192);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    *before = stats_of(rt);
    return rt;
}

START_TEST(test_assets_release_frees_at_last_reference) {
    ona_runtime_stats before;
    ona_runtime *rt = runtime_with("a.png", "a.wav", &before);
    ona_texture t1, t2;
    ona_sound s1;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "a.png", &t1), 0);
    ck_assert_int_eq(ona_runtime_texture_load(rt, "a.png", &t2), 0); /* a second reference */
    ck_assert_int_eq(ona_runtime_sound_load(rt, "a.wav", &s1), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0); /* uploaded: a GL texture */
    ona_runtime_stats loaded = stats_of(rt);
    ck_assert_uint_eq(loaded.textures, before.textures + 1);
    ck_assert_uint_eq(loaded.sounds, before.sounds + 1);
    ck_assert_uint_eq(loaded.assets, before.assets + 2);
    ck_assert_uint_ne(ona__textures_gl(&rt->services.video.textures, t1.id, &(int){0}, &(int){0}),
                      0);

    /* One of two references given back: nothing is freed. */
    ck_assert_int_eq(ona_runtime_texture_release(rt, t1), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(stats_of(rt).textures, loaded.textures);
    int w = 0, h = 0;
    ck_assert_int_eq(ona_runtime_texture_size(rt, t1, &w, &h), 0);

    /* The last: freed at the next boundary, and the handles go stale. */
    ck_assert_int_eq(ona_runtime_texture_release(rt, t2), 0);
    ck_assert_int_eq(ona_runtime_sound_release(rt, s1), 0);
    ck_assert_uint_eq(stats_of(rt).textures, loaded.textures); /* not before the boundary */
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_stats freed = stats_of(rt);
    ck_assert_uint_eq(freed.textures, before.textures);
    ck_assert_uint_eq(freed.sounds, before.sounds);
    ck_assert_uint_eq(freed.assets, before.assets);
    ck_assert_uint_eq(rt->services.assets.unloads, 2);
    ck_assert_int_eq(ona_runtime_texture_size(rt, t1, &w, &h), ONA_ESTALE);
    ck_assert_int_eq(ona_runtime_texture_release(rt, t1), ONA_ESTALE); /* nothing held */
    ck_assert_int_eq(ona_runtime_sound_release(rt, s1), ONA_ESTALE);
    ck_assert_int_eq(ona_runtime_texture_release(rt, (ona_texture){0}), ONA_ESTALE);
    ck_assert(!ona__sounds_valid(&rt->services.audio.sounds, s1));

    /* Loaded again: decoded afresh under a new handle (the slot's next generation). */
    ona_texture t3;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "a.png", &t3), 0);
    ck_assert_uint_ne(t3.id, t1.id);
    ck_assert_int_eq(ona_runtime_texture_size(rt, t3, &w, &h), 0);
    ck_assert_int_eq(w, 2);
    ck_assert_int_eq(h, 3);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_system_end_drops_its_references) {
    ona_runtime_stats before;
    ona_runtime *rt = runtime_with("h.png", "h.wav", &before);
    ona_system a = spawn_lua(rt, "holder.lua", "a", (ona_system){0}, "tex=h.png snd=h.wav", 0, 0);
    ona_system b = spawn_lua(rt, "holder.lua", "b", (ona_system){0}, "tex=h.png snd=h.wav", 0, 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_stats held = stats_of(rt);
    ck_assert_uint_eq(held.textures, before.textures + 1); /* one texture for both */
    ck_assert_uint_eq(held.sounds, before.sounds + 1);

    ck_assert_int_eq(ona_runtime_kill(rt, a), 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(stats_of(rt).textures, held.textures); /* b still holds them */
    ck_assert_uint_eq(stats_of(rt).sounds, held.sounds);

    ck_assert_int_eq(ona_runtime_kill(rt, b), 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_stats after = stats_of(rt);
    ck_assert_uint_eq(after.textures, before.textures);
    ck_assert_uint_eq(after.sounds, before.sounds);
    ck_assert_uint_eq(after.assets, before.assets);
    ck_assert_msg(!captured_logs_contain("error:"), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_stale_handle_raises) {
    game_png("r.png", 2, 2, 0xFFFFFFFFu);
    game_wav("r.wav", 480, 8192);
    ona_runtime *rt;
    const item *stale = run_script(&rt, "release.lua", "stale");
    ck_assert(!stale[1].boolean); /* the draw raised */
    ck_assert_msg(strstr(stale[2].text, "release.lua:") &&
                      strstr(stale[2].text, "ona.gfx.draw: bad argument #1") &&
                      strstr(stale[2].text, "is stale"),
                  "%s", stale[2].text);
    ck_assert(!stale[3].boolean); /* released twice */
    ck_assert_msg(strstr(stale[4].text, "ona.gfx.release") &&
                      strstr(stale[4].text, "not held by this system"),
                  "%s", stale[4].text);
    ck_assert(!stale[5].boolean); /* the freed sound does not play */
    ck_assert_msg(strstr(stale[6].text, "not a sound handle"), "%s", stale[6].text);
    ck_assert(stale[7].boolean); /* no size */
    ck_assert_uint_eq(rt->services.assets.unloads, 2);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_assets_failed_file_read_again_without_watching) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .no_audio = true};
    ona_runtime *rt = create_runtime(&desc);
    ona_texture t, again;
    ck_assert_int_eq(ona_runtime_texture_load(rt, "fixed.png", &t), ONA_ENOENT);
    game_png("fixed.png", 4, 2, 0x00FF00FFu);
    /* Not watched, and not asked for again: nothing reads it. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(ona__textures_is_placeholder(&rt->services.video.textures, t.id));
    ck_assert_uint_eq(rt->services.assets.retries, 0);

    /* Asked for again: the load still answers with the placeholder (and says when it is read
     * again), the next boundary reads the file into the same handle. */
    ck_assert_int_eq(ona_runtime_texture_load(rt, "fixed.png", &again), ONA_ENOENT);
    ck_assert_uint_eq(again.id, t.id);
    ck_assert(captured_logs_contain("fixed.png: no such file; still the placeholder; read again "
                                    "at the next frame"));
    ck_assert_int_eq(ona_runtime_texture_load(rt, "fixed.png", &again), ONA_ENOENT); /* once */
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(rt->services.assets.retries, 1);
    int w = 0, h = 0;
    ck_assert_int_eq(ona_runtime_texture_size(rt, t, &w, &h), 0);
    ck_assert_int_eq(w, 4);
    ck_assert_int_eq(h, 2);
    ck_assert(!ona__textures_is_placeholder(&rt->services.video.textures, t.id));
    ck_assert_int_eq(ona_runtime_texture_load(rt, "fixed.png", &again), 0);
    ck_assert_uint_eq(again.id, t.id);

    /* A file still missing is read once a frame while asked for, not more. */
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_texture_load(rt, "never.png", &again), ONA_ENOENT);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(rt->services.assets.retries, 2);
    ona_runtime_destroy(rt);
}
END_TEST

static bool music_streaming(ona_runtime *rt) {
    return ona__audio_music_streaming(&rt->services.audio);
}

START_TEST(test_assets_music_picked_up_and_restarted) {
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    const char *roots[] = {game_dir(), ONA_SOURCE_DIR "/tests/lua/assets", NULL};
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .hot_reload = true};
    ona_runtime *rt = create_runtime(&desc);
    spawn_lua(rt, "music.lua", NULL, (ona_system){0}, "file=m.wav", 0, 0);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(rt->services.audio.open, "no dummy audio device: %s", captured_logs_text());
    ck_assert(captured_logs_contain("m.wav: no such file"));
    ck_assert(!music_streaming(rt)); /* silent music */

    game_wav("m.wav", 4800, 8192); /* appears: the music starts */
    for (int i = 0; i < 300 && !music_streaming(rt); i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(music_streaming(rt), "log:\n%s", captured_logs_text());
    ck_assert_uint_eq(rt->services.audio.music_restarts, 1);

    game_wav("m.wav", 9600, -8192); /* replaced: restarted from the new file */
    for (int i = 0; i < 300 && rt->services.audio.music_restarts < 2; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(rt->services.audio.music_restarts == 2, "log:\n%s", captured_logs_text());
    ck_assert(music_streaming(rt));
    ck_assert(captured_logs_contain("m.wav: restarted from the new file"));
    ona_runtime_destroy(rt);
    unsetenv("SDL_AUDIODRIVER");
}
END_TEST

int main(void) {
    Suite *s = suite_create("assets");
    TCase *tc = tcase_create("assets");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_assets_same_path_same_handle);
    tcase_add_test(tc, test_assets_missing_texture_picked_up_when_created);
    tcase_add_test(tc, test_assets_missing_texture_in_new_folder_picked_up);
    tcase_add_test(tc, test_assets_font_file_reloaded);
    tcase_add_test(tc, test_assets_missing_sound_picked_up_when_created);
    tcase_add_test(tc, test_assets_release_frees_at_last_reference);
    tcase_add_test(tc, test_assets_system_end_drops_its_references);
    tcase_add_test(tc, test_assets_stale_handle_raises);
    tcase_add_test(tc, test_assets_failed_file_read_again_without_watching);
    tcase_add_test(tc, test_assets_music_picked_up_and_restarted);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
