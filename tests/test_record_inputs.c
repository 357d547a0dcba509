/*
 * test_record_inputs.c: what a recording keeps besides events and dt: the saves a game loads
 * (replayed from the recording, never from the save folder, which the replay leaves as it
 * was), a hot reload's new content (replayed at its frame even when the file on disk is another
 * now), the FFI warning, the older format still read, and the new chunks refused when corrupt.
 */
#include "test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FRAMES = 60, RELOAD = 20 };

/* keeper loads "slot" (there when recording) and "never" (missing then) at its first turn,
 * saves "slot" in its 30th turn and loads it back in its 31st; what it loaded moves its rect. */
static const char *const keeper_lua =
    "return {\n"
    "  init = function(state)\n"
    "    local slot = ona.load('slot')\n"
    "    state.x = slot and slot.x or -50\n"
    "    local none = ona.load('never')\n"
    "    state.none = none == nil and 1 or 1000\n"
    "  end,\n"
    "  process = function(state)\n"
    "    state.n = (state.n or 0) + 1\n"
    "    if state.n == 30 then assert(ona.save('slot', {x = 99})) end\n"
    "    if state.n == 31 then state.x = state.x + ona.load('slot').x end\n"
    "    ona.gfx.rect(state.x + state.none, 10, 4, 4)\n"
    "  end,\n"
    "}\n";
/* walker moves by `speed` each frame; the recording reloads it with speed 5. */
static const char *const walker_lua = "local speed = 1\n"
                                      "return {\n"
                                      "  init = function(state) state.x = 0 end,\n"
                                      "  process = function(state)\n"
                                      "    state.x = state.x + speed\n"
                                      "    ona.gfx.rect(state.x, 20, 4, 4)\n"
                                      "  end,\n"
                                      "}\n";

static char rec_path[600], save_dir[600];

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("record_inputs");
    game_write("main.lua", "ona.spawn('keeper.lua')\nona.spawn('walker.lua')\n");
    game_write("keeper.lua", keeper_lua);
    game_write("walker.lua", walker_lua);
    snprintf(rec_path, sizeof rec_path, "%s/session.onarec", game_dir());
    snprintf(save_dir, sizeof save_dir, "%s/saves", game_dir());
}

static void teardown(void) {
    char path[700];
    const char *names[] = {"slot.save", "never.save", "big.save"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", save_dir, names[i]);
        unlink(path);
    }
    rmdir(save_dir);
    game_dir_end();
    capture_logs_end();
}

static ona_runtime *make_runtime(ona_runtime_desc desc) {
    const char *roots[] = {game_dir(), NULL};
    desc.script_roots = roots;
    desc.save_dir = save_dir;
    ona_runtime *rt = create_runtime(&desc);
    ona_system main_system;
    ona_spawn_desc sd = {.script = "main.lua"};
    ck_assert_int_eq(ona_runtime_spawn(rt, &sd, &main_system), 0);
    return rt;
}

/* Saves {x = x} as `name` from C. */
static void save_x(ona_runtime *rt, const char *name, double x) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "x", 1);
    ona_message_write_number(&w, x);
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_save(rt, name, &m), 0);
    ona_message_release(&m);
}

/* Loads `name` from C: its x, or -1 when the load fails. */
static double load_x(ona_runtime *rt, const char *name) {
    ona_message m;
    if (ona_runtime_load(rt, name, &m) != 0)
        return -1;
    ona_message_reader r;
    ona_message_reader_begin(&r, &m);
    ona_value v;
    double x = -1;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END)
        if (v.type == ONA_VALUE_NUMBER)
            x = v.as.number;
    ona_message_release(&m);
    return x;
}

/* Records FRAMES frames on 2 threads with "slot" saved first ({x = 5}); with `reload`, walker.lua
 * gets speed 5 and is reloaded before frame RELOAD. */
static void record_session(bool reload) {
    ona_runtime *rt = make_runtime((ona_runtime_desc){.threads = 2, .record_path = rec_path});
    save_x(rt, "slot", 5);
    ck_assert(load_x(rt, "slot") == 5); /* a load from C is recorded too */
    for (int frame = 1; frame <= FRAMES; frame++) {
        if (reload && frame == RELOAD) {
            char faster[1024];
            snprintf(faster, sizeof faster, "local speed = 5%s", strchr(walker_lua, '\n'));
            game_write("walker.lua", faster);
            ck_assert_int_eq(ona_runtime_reload(rt, "walker.lua"), 0);
        }
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    }
    ona_runtime_destroy(rt);
}

/* Replays the recording to its end on `threads`; returns the divergence's frame (0: none). */
static uint64_t replay_session(uint32_t threads, bool resimulate, char *why, size_t size) {
    ona_runtime *rt = make_runtime(
        (ona_runtime_desc){.threads = threads, .replay_path = rec_path, .resimulate = resimulate});
    /* C's load gets the recorded answer, whatever the folder holds now. */
    ck_assert(load_x(rt, "slot") == 5);
    int rc = 0, frames = 0;
    while (rc == 0 && !ona_runtime_quit_requested(rt) && frames < FRAMES + 5) {
        rc = ona_runtime_step(rt, 0.5);
        frames += rc == 0;
    }
    uint64_t at = ona_runtime_replay_diverged(rt, why, size);
    if (rc == 0)
        ck_assert_int_eq(frames, FRAMES + 1);
    ona_runtime_destroy(rt);
    return at;
}

static int by_name(const void *a, const void *b) {
    return strcmp(a, b);
}

/* Every file of the save folder with its bytes, sorted, as one string (static storage). */
static const char *folder_text(void) {
    static char text[8192];
    text[0] = '\0';
    DIR *d = opendir(save_dir);
    ck_assert_ptr_nonnull(d);
    char names[16][256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 16;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        char path[900];
        int plen = snprintf(path, sizeof path, "%s/%s", save_dir, names[i]);
        ck_assert(plen > 0 && (size_t)plen < sizeof path);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s:", names[i]);
        for (int c; (c = fgetc(f)) != EOF && len + 4 < sizeof text;)
            len += (size_t)snprintf(text + len, sizeof text - len, "%02x", c);
        len += (size_t)snprintf(text + len, sizeof text - len, "\n");
        fclose(f);
    }
    return text;
}

START_TEST(test_record_inputs_saves_replay_from_the_recording_and_stay_untouched) {
    record_session(false);
    /* The save folder changes after the recording: "slot" is gone (the recording loaded it),
     * and "never" exists now (the recording found none). */
    char path[700];
    snprintf(path, sizeof path, "%s/slot.save", save_dir);
    ck_assert_int_eq(unlink(path), 0);
    ona_runtime *rt = make_runtime((ona_runtime_desc){.threads = 1});
    save_x(rt, "never", 7);
    ona_runtime_destroy(rt);
    char before[8192];
    snprintf(before, sizeof before, "%s", folder_text());
    for (uint32_t threads = 1; threads <= 4; threads *= 2) {
        char why[768];
        uint64_t at = replay_session(threads, false, why, sizeof why);
        ck_assert_msg(at == 0, "%u threads: diverged at frame %llu: %s\n%s", threads,
                      (unsigned long long)at, why, captured_logs_text());
        /* keeper's save in its 30th turn was dropped: the folder is as it was. Had the loads
         * read it, keeper would have started at -50 and seen "never": a divergence. */
        ck_assert_str_eq(folder_text(), before);
    }
    ck_assert_msg(!captured_logs_contain("is loaded where the recording"), "%s",
                  captured_logs_text());
}
END_TEST

START_TEST(test_record_inputs_a_reload_replays_its_recorded_content_at_its_frame) {
    record_session(true);
    game_write("walker.lua", walker_lua); /* changed back on disk */
    char why[768];
    uint64_t at = replay_session(2, false, why, sizeof why);
    ck_assert_msg(at == 0, "diverged at frame %llu: %s\n%s", (unsigned long long)at, why,
                  captured_logs_text());
    ck_assert(!captured_logs_contain("not the content that was reloaded then"));
    /* With the current files instead (resimulate), the reload reads the file as it is now, and
     * the replay parts from the recording exactly at the reload's frame. */
    at = replay_session(2, true, why, sizeof why);
    ck_assert_msg(at == RELOAD, "diverged at frame %llu: %s", (unsigned long long)at, why);
    ck_assert_msg(strstr(why, "'walker' drew") != NULL, "%s", why);
}
END_TEST

/* Changed code (resimulate) that loads where the recording did not gets the recording's last
 * answer for that save, with one warning however often it happens, and still leaves the folder
 * alone. */
START_TEST(test_record_inputs_loads_the_recording_lacks_get_its_last_answer) {
    record_session(false);
    char before[8192];
    snprintf(before, sizeof before, "%s", folder_text());
    const char *line = "    ona.gfx.rect(";
    const char *at = strstr(keeper_lua, line);
    char changed[2048];
    snprintf(changed, sizeof changed,
             "%.*s    if state.n >= 40 then state.x = ona.load('slot').x end\n%s",
             (int)(at - keeper_lua), keeper_lua, at);
    game_write("keeper.lua", changed);
    char why[768];
    ck_assert_uint_eq(replay_session(2, true, why, sizeof why), 40);
    /* Once as a warning, at debug level after that. */
    ck_assert_int_eq(captured_logs_count("warn: replay: frame 40: save slot is loaded where"), 1);
    ck_assert_int_ge(captured_logs_count("is loaded where the recording loaded nothing"), 10);
    ck_assert_msg(captured_logs_contain("save slot is loaded where the recording loaded nothing: "
                                        "answered with the recording's last answer for it"),
                  "%s", captured_logs_text());
    ck_assert_str_eq(folder_text(), before);
}
END_TEST

/* A save and a reloaded file past 1 MiB are recorded without their content, with a warning
 * each; the replay says at its start that it cannot be exact where they are used, and answers
 * the save's load as missing. */
START_TEST(test_record_inputs_content_past_the_bounds_is_named) {
    game_write("big.lua", "return {\n"
                          "  init = function(state)\n"
                          "    assert(ona.save('big', string.rep('x', 1200000)))\n"
                          "    state.big = ona.load('big')\n"
                          "  end,\n"
                          "}\n");
    game_write("main.lua", "ona.spawn('big.lua')\nona.spawn('walker.lua')\n");
    size_t pad = 1200000;
    char *padded = malloc(strlen(walker_lua) + pad + 8);
    ck_assert_ptr_nonnull(padded);
    size_t n = (size_t)sprintf(padded, "%s--", walker_lua);
    memset(padded + n, 'x', pad);
    strcpy(padded + n + pad, "\n");
    ona_runtime *rt = make_runtime((ona_runtime_desc){.threads = 2, .record_path = rec_path});
    for (int frame = 1; frame <= 30; frame++) {
        if (frame == RELOAD) {
            game_write("walker.lua", padded);
            ck_assert_int_eq(ona_runtime_reload(rt, "walker.lua"), 0);
        }
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    }
    ona_runtime_destroy(rt);
    free(padded);
    ck_assert_msg(captured_logs_contain("save big (1200006 bytes), loaded in frame 1, is past what "
                                        "a recording keeps (1024 KiB a save, 16 MiB in all): its "
                                        "content is not recorded, so a replay cannot be exact"),
                  "%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("bytes) in frame 20 is past what a recording keeps"), "%s",
                  captured_logs_text());
    rt = make_runtime((ona_runtime_desc){.threads = 2, .replay_path = rec_path});
    ck_assert_msg(
        captured_logs_contain("left out the content of 2 loaded saves or reloaded files "
                              "(past what a recording keeps): the replay cannot be exact"),
        "%s", captured_logs_text());
    for (int frame = 1; frame <= 30; frame++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.5), 0);
    ck_assert(captured_logs_contain("save big, loaded in frame 1 of the recording, was past what a "
                                    "recording keeps"));
    ck_assert_uint_eq(ona_runtime_replay_diverged(rt, NULL, 0), 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_record_inputs_ffi_warns_once_at_its_line) {
    game_write("ffiuser.lua", "return {\n"
                              "  process = function(state)\n"
                              "    local ffi = require('ffi')\n"
                              "    state.n = ffi.sizeof('int')\n"
                              "  end,\n"
                              "}\n");
    game_write("preloader.lua", "return {\n"
                                "  init = function(state)\n"
                                "    state.ffi = package.preload.ffi()\n"
                                "  end,\n"
                                "}\n");
    game_write("main.lua", "ona.spawn('ffiuser.lua')\nona.spawn('preloader.lua')\n");
    ona_runtime *rt = make_runtime((ona_runtime_desc){.threads = 2, .record_path = rec_path});
    for (int frame = 1; frame <= 10; frame++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(captured_logs_contain(
                      "ffiuser.lua:3: 'ffiuser' loads the ffi library while recording: FFI calls "
                      "are not recorded"),
                  "%s", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("'ffiuser' loads the ffi library"), 1);
    ck_assert_msg(captured_logs_contain("preloader.lua:3: 'preloader' loads the ffi library"), "%s",
                  captured_logs_text());
    /* Neither a replay nor a plain run warns. */
    capture_logs_end();
    capture_logs_begin();
    char why[768];
    rt = make_runtime((ona_runtime_desc){.threads = 2, .replay_path = rec_path});
    for (int frame = 1; frame <= 10; frame++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.5), 0);
    ck_assert_uint_eq(ona_runtime_replay_diverged(rt, why, sizeof why), 0);
    ona_runtime_destroy(rt);
    ck_assert(!captured_logs_contain("ffi library"));
}
END_TEST

START_TEST(test_record_inputs_a_version_2_file_still_reads) {
    ona_recording_info info;
    ck_assert_int_eq(
        ona_recording_info_read(ONA_SOURCE_DIR "/tests/fuzz/corpus/record/valid-v2-events", &info),
        0);
    ck_assert_uint_eq(info.version, 2);
    ck_assert_uint_eq(info.frames, 3);
    ck_assert(info.ended);
}
END_TEST

static uint8_t *read_bytes(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc(*size);
    ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
    fclose(f);
    return bytes;
}

/* The offset of the first chunk tagged `tag` (its length in *len), or 0. */
static size_t find_chunk(const uint8_t *b, size_t size, char tag, uint32_t *len) {
    for (size_t at = 12; at + 9 <= size;) {
        uint32_t n = (uint32_t)b[at + 1] | (uint32_t)b[at + 2] << 8 | (uint32_t)b[at + 3] << 16 |
                     (uint32_t)b[at + 4] << 24;
        if (b[at] == (uint8_t)tag) {
            *len = n;
            return at;
        }
        at += 9 + (size_t)n;
    }
    return 0;
}

/* The CRC32 (zlib's) of `n` bytes. */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

/* Writes `bytes` with the chunk at `at` (payload `len`) given a right checksum, and expects
 * the replay and the info read to refuse it with `reason`. */
static void refused(uint8_t *bytes, size_t size, size_t at, uint32_t len, const char *reason) {
    uint32_t crc = crc32_of(bytes + at, 5 + (size_t)len);
    for (int i = 0; i < 4; i++)
        bytes[at + 5 + len + (size_t)i] = (uint8_t)(crc >> (8 * i));
    char path[700];
    snprintf(path, sizeof path, "%s/bad.onarec", game_dir());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
    fclose(f);
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(path, &info), ONA_EFORMAT);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .replay_path = path};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), ONA_EFORMAT);
    ck_assert_msg(captured_logs_contain(reason), "wanted '%s' in:\n%s", reason,
                  captured_logs_text());
}

START_TEST(test_record_inputs_corrupt_new_chunks_are_refused) {
    record_session(true);
    size_t size;
    uint8_t *bytes = read_bytes(rec_path, &size);
    uint8_t *copy = malloc(size);
    uint32_t len;
    /* A load whose save name is not one. */
    memcpy(copy, bytes, size);
    size_t at = find_chunk(copy, size, 'L', &len);
    ck_assert_uint_gt(at, 0);
    copy[at + 5 + 3] = '/'; /* frame, loader, name length, then the name's first byte */
    char reason[80];
    snprintf(reason, sizeof reason, "malformed 'L' chunk at byte %zu", at);
    refused(copy, size, at, len, reason);
    /* A reload's content naming another file than its reload. */
    memcpy(copy, bytes, size);
    at = find_chunk(copy, size, 'C', &len);
    ck_assert_uint_gt(at, 0);
    copy[at + 5 + 2] ^= 0x20; /* frame, path length, then the path's first byte */
    snprintf(reason, sizeof reason, "malformed 'C' chunk at byte %zu", at);
    refused(copy, size, at, len, reason);
    /* The new chunks in a file that says it is version 2. */
    memcpy(copy, bytes, size);
    copy[8] = 2;
    refused(copy, size, find_chunk(copy, size, 'H', &len), len, "chunk in a version 2 recording");
    /* Cut inside the last load: what came before replays. */
    at = find_chunk(bytes, size, 'C', &len);
    FILE *f = fopen(rec_path, "wb");
    ck_assert_uint_eq(fwrite(bytes, 1, at + 7, f), at + 7);
    fclose(f);
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(rec_path, &info), 0);
    ck_assert(!info.ended);
    ck_assert_uint_eq(info.frames, RELOAD - 1);
    free(copy);
    free(bytes);
}
END_TEST

int main(void) {
    Suite *s = suite_create("record_inputs");
    TCase *tc = tcase_create("record_inputs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_record_inputs_saves_replay_from_the_recording_and_stay_untouched);
    tcase_add_test(tc, test_record_inputs_a_reload_replays_its_recorded_content_at_its_frame);
    tcase_add_test(tc, test_record_inputs_loads_the_recording_lacks_get_its_last_answer);
    tcase_add_test(tc, test_record_inputs_content_past_the_bounds_is_named);
    tcase_add_test(tc, test_record_inputs_ffi_warns_once_at_its_line);
    tcase_add_test(tc, test_record_inputs_a_version_2_file_still_reads);
    tcase_add_test(tc, test_record_inputs_corrupt_new_chunks_are_refused);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
