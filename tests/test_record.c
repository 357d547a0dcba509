/*
 * test_record.c: recording a session and replaying it. A small game (written into a scratch
 * folder, so a test can change one line of it) is driven by scripted key events for a set
 * number of frames on 2 threads and recorded; the recording replays without divergence on 1, 2
 * and 4 threads; a changed line is reported at the frame and system where it first shows; bad
 * files (garbage, another version, a flipped byte, a cut) are refused with their reason, and a
 * file cut short by a crash replays up to the cut.
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FRAMES = 90, PRESS = 10, RELEASE = 50, SEND = 20, RELOAD = 30 };

/* mover moves with the "right" key and tells counter where it is; counter, after it in the
 * order, draws what it was told in the same frame; both draw. */
static const char *const main_lua = "ona.spawn('mover.lua')\n"
                                    "ona.spawn('counter.lua', nil, {after = {'mover'}})\n";
static const char *const mover_lua =
    "local speed = 1\n"
    "return {\n"
    "  init = function(state) state.x, state.held = 0, false end,\n"
    "  process = function(state, events, dt)\n"
    "    for _, e in ipairs(events) do\n"
    "      if e.type == 'key_down' and e.key == 'right' then state.held = true end\n"
    "      if e.type == 'key_up' and e.key == 'right' then state.held = false end\n"
    "    end\n"
    "    if state.held then state.x = state.x + speed end\n"
    "    for _, m in ona.messages() do state.x = state.x + m.jump end\n"
    "    ona.gfx.rect(state.x, 10, 4, 4)\n"
    "    ona.send(ona.lookup('counter'), {x = state.x, dt = dt, who = ona.self()})\n"
    "  end,\n"
    "  reload = function(state) state.x = state.x + 100 end,\n"
    "}\n";
static const char *const counter_lua = "return {\n"
                                       "  process = function(state)\n"
                                       "    for _, m in ona.messages() do\n"
                                       "      ona.gfx.rect(m.x, 40, 2, 2)\n"
                                       "    end\n"
                                       "  end,\n"
                                       "}\n";

static char rec_path[600];

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("record");
    game_write("main.lua", main_lua);
    game_write("mover.lua", mover_lua);
    game_write("counter.lua", counter_lua);
    snprintf(rec_path, sizeof rec_path, "%s/session.onarec", game_dir());
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
}

/* A runtime on `desc` (its roots the game folder) running main.lua. */
static ona_runtime *make_runtime_from(ona_runtime_desc desc) {
    const char *roots[] = {game_dir(), NULL};
    desc.script_roots = roots;
    ona_runtime *rt = create_runtime(&desc);
    ona_system main_system;
    ona_spawn_desc sd = {.script = "main.lua"};
    ck_assert_int_eq(ona_runtime_spawn(rt, &sd, &main_system), 0);
    return rt;
}

static ona_runtime *make_runtime(uint32_t threads, const char *record, const char *replay) {
    return make_runtime_from(
        (ona_runtime_desc){.threads = threads, .record_path = record, .replay_path = replay});
}

/* Sends mover {jump = n} from C. */
static void send_jump(ona_runtime *rt, double n) {
    ona_system mover;
    ck_assert_int_eq(ona_runtime_lookup(rt, "mover", &mover), 0);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "jump", 4);
    ona_message_write_number(&w, n);
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_send(rt, mover, &m), 0);
}

static void push_key(ona_runtime *rt, ona_event_type type) {
    ona_event e = {.type = type};
    snprintf(e.as.key.name, sizeof e.as.key.name, "right");
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), 0);
}

/* Records FRAMES frames on 2 threads, pressing "right" before frame PRESS and releasing it
 * before frame RELEASE, sending mover a jump from C before frame SEND and reloading mover.lua
 * (its reload hook jumps too) before frame RELOAD; the dt varies, as measured time would. */
static void record_session_with(uint32_t turn_budget_ms) {
    ona_runtime *rt = make_runtime_from((ona_runtime_desc){
        .threads = 2, .record_path = rec_path, .turn_budget_ms = turn_budget_ms});
    for (int frame = 1; frame <= FRAMES; frame++) {
        if (frame == PRESS)
            push_key(rt, ONA_EVENT_KEY_DOWN);
        if (frame == RELEASE)
            push_key(rt, ONA_EVENT_KEY_UP);
        if (frame == SEND)
            send_jump(rt, 7);
        if (frame == RELOAD)
            ck_assert_int_eq(ona_runtime_reload(rt, "mover.lua"), 0);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60 + (frame % 7) * 0.001), 0);
    }
    ona_runtime_destroy(rt);
}

static void record_session(void) {
    record_session_with(0);
}

/* Replays the whole recording; returns the frame where it diverged (0: none), `why` filled. */
static uint64_t replay_session(uint32_t threads, char *why, size_t size) {
    ona_runtime *rt = make_runtime(threads, NULL, rec_path);
    int rc = 0, frames = 0;
    while (!ona_runtime_quit_requested(rt) && frames < FRAMES + 5) {
        /* The replay takes its own dt, events, messages from C and reloads: these are
         * ignored, and the recorded ones are played at their frames. */
        if (frames == 20)
            push_key(rt, ONA_EVENT_KEY_DOWN);
        if (frames == SEND + 3) {
            send_jump(rt, 1000);
            ck_assert_int_eq(ona_runtime_reload(rt, "mover.lua"), 0);
        }
        rc = ona_runtime_step(rt, 0.5);
        if (rc)
            break;
        frames++;
    }
    uint64_t at = ona_runtime_replay_diverged(rt, why, size);
    if (rc == 0) {
        ck_assert_msg(at == 0, "diverged without an error at %llu", (unsigned long long)at);
        ck_assert_int_eq(frames, FRAMES + 1); /* the step after the last one asks to quit */
    } else {
        ck_assert_int_eq(rc, ONA_EDIVERGED);
        ck_assert_int_eq(ona_runtime_step(rt, 0.5), ONA_EDIVERGED); /* and stays stopped */
    }
    ona_runtime_destroy(rt);
    return at;
}

START_TEST(test_record_replays_identically_on_any_thread_count) {
    record_session();
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(rec_path, &info), 0);
    ck_assert_uint_eq(info.frames, FRAMES);
    ck_assert(info.ended);
    ck_assert_str_eq(info.runtime_version, ONA_VERSION_STRING);
    ck_assert_str_eq(info.game, game_dir());
    for (uint32_t threads = 1; threads <= 4; threads *= 2) {
        char why[768];
        uint64_t at = replay_session(threads, why, sizeof why);
        ck_assert_msg(at == 0, "%u threads: diverged at frame %llu: %s\n%s", threads,
                      (unsigned long long)at, why, captured_logs_text());
    }
}
END_TEST

START_TEST(test_record_a_changed_line_diverges_at_its_frame_and_system) {
    record_session();
    /* One line changed: the cannon moves twice as fast, which shows when the key is held. */
    char changed[2048];
    snprintf(changed, sizeof changed, "local speed = 2%s", strchr(mover_lua, '\n'));
    game_write("mover.lua", changed);
    char why[768];
    uint64_t at = replay_session(2, why, sizeof why);
    ck_assert_msg(at == PRESS, "diverged at %llu: %s", (unsigned long long)at, why);
    ck_assert_msg(strstr(why, "'mover' drew") != NULL, "%s", why);
    /* The changed file is named when the replay starts; the others are not. */
    ck_assert_msg(captured_logs_contain("mover.lua changed since the recording"), "%s",
                  captured_logs_text());
    ck_assert(!captured_logs_contain("counter.lua changed"));
    ck_assert(!captured_logs_contain("main.lua changed"));
}
END_TEST

/* A changed message names the receiver, the message's number and sender and what it holds
 * now. */
START_TEST(test_record_a_changed_message_is_named_with_its_values) {
    record_session();
    const char *line = "who = ona.self()})";
    const char *at = strstr(mover_lua, line);
    ck_assert_ptr_nonnull(at);
    char changed[2048];
    snprintf(changed, sizeof changed, "%.*swho = ona.self(), hit = 'yes'})%s",
             (int)(at - mover_lua), mover_lua, at + strlen(line));
    game_write("mover.lua", changed);
    char why[768];
    uint64_t frame = replay_session(2, why, sizeof why);
    ck_assert_msg(frame == 1, "diverged at %llu: %s", (unsigned long long)frame, why);
    ck_assert_msg(strstr(why, "'counter' received message 1 from 'mover': ({") != NULL &&
                      strstr(why, "hit = \"yes\"") != NULL &&
                      strstr(why, "now, another one in the recording") != NULL,
                  "%s", why);
}
END_TEST

/* While recording, a script reading the wall clock is told (once, at its line) that a replay
 * will not see the answer; a replay does not warn. */
START_TEST(test_record_os_time_warns_while_recording) {
    game_write("clock.lua", "return {\n"
                            "  process = function(state)\n"
                            "    state.t = os.time() + os.clock()\n"
                            "  end,\n"
                            "}\n");
    game_write("main.lua", "ona.spawn('mover.lua')\n"
                           "ona.spawn('counter.lua', nil, {after = {'mover'}})\n"
                           "ona.spawn('clock.lua')\n");
    record_session();
    ck_assert_msg(captured_logs_contain("clock.lua:3: 'clock' called os.time while recording"),
                  "%s", captured_logs_text());
    ck_assert(captured_logs_contain("'clock' called os.clock while recording"));
    capture_logs_end();
    capture_logs_begin();
    char why[768];
    ck_assert_uint_eq(replay_session(2, why, sizeof why), 0);
    ck_assert(!captured_logs_contain("while recording"));
}
END_TEST

/* With resimulate the changed line's divergence is reported and the replay goes on: every step
 * succeeds up to the recording's end, and the seed and files named are the recording's. */
START_TEST(test_record_resimulate_reports_the_divergence_and_runs_to_the_end) {
    record_session();
    char changed[2048];
    snprintf(changed, sizeof changed, "local speed = 2%s", strchr(mover_lua, '\n'));
    game_write("mover.lua", changed);
    ona_runtime *rt = make_runtime_from(
        (ona_runtime_desc){.threads = 2, .replay_path = rec_path, .resimulate = true});
    int frames = 0;
    while (!ona_runtime_quit_requested(rt) && frames < FRAMES + 5) {
        ck_assert_int_eq(ona_runtime_step(rt, 0.5), 0);
        frames++;
    }
    ck_assert_int_eq(frames, FRAMES + 1);
    char why[768];
    ck_assert_uint_eq(ona_runtime_replay_diverged(rt, why, sizeof why), PRESS);
    ck_assert_msg(strstr(why, "'mover' drew") != NULL, "%s", why);
    ck_assert(captured_logs_contain("resimulating with the current files"));
    ona_runtime_destroy(rt);
}
END_TEST

/* A turn the budget interrupted is recorded; a divergence after it says a runaway interrupt
 * was involved, and in which frame. */
START_TEST(test_record_a_divergence_after_a_runaway_interrupt_says_so) {
    game_write("spin.lua", "return {\n"
                           "  process = function(state)\n"
                           "    state.n = (state.n or 0) + 1\n"
                           "    if state.n == 3 then while true do end end\n"
                           "  end,\n"
                           "}\n");
    game_write("main.lua", "ona.spawn('mover.lua')\n"
                           "ona.spawn('counter.lua', nil, {after = {'mover'}})\n"
                           "ona.spawn('spin.lua')\n");
    record_session_with(50);
    char changed[2048];
    snprintf(changed, sizeof changed, "local speed = 2%s", strchr(mover_lua, '\n'));
    game_write("mover.lua", changed);
    ona_runtime *rt = make_runtime_from(
        (ona_runtime_desc){.threads = 2, .replay_path = rec_path, .turn_budget_ms = 50});
    int rc = 0;
    for (int frames = 0; rc == 0 && !ona_runtime_quit_requested(rt) && frames < FRAMES + 5;
         frames++)
        rc = ona_runtime_step(rt, 0.5);
    ck_assert_int_eq(rc, ONA_EDIVERGED);
    char why[768];
    ck_assert_uint_eq(ona_runtime_replay_diverged(rt, why, sizeof why), PRESS);
    /* spin runs away at its third turn, and again at its restart's third. A runaway turn steps
     * aside and goes on over several frames, so whether the recording's interrupt or this
     * replay's comes first depends on timing: either is named. */
    ck_assert_msg(strstr(why, "a runaway interrupt ended a turn of 'spin' in frame ") != NULL &&
                      (strstr(why, "of the recording") != NULL ||
                       strstr(why, "of this replay") != NULL),
                  "%s", why);
    ona_runtime_destroy(rt);
}
END_TEST

static void write_bytes(const char *path, const uint8_t *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
    fclose(f);
}

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

/* A replay of `bytes` fails to start with ONA_EFORMAT, logging `reason`. */
static void refused(const uint8_t *bytes, size_t size, const char *reason) {
    char path[700];
    snprintf(path, sizeof path, "%s/bad.onarec", game_dir());
    write_bytes(path, bytes, size);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .replay_path = path};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), ONA_EFORMAT);
    ck_assert_ptr_null(rt);
    ck_assert_msg(captured_logs_contain(reason), "wanted '%s' in:\n%s", reason,
                  captured_logs_text());
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(path, &info), ONA_EFORMAT);
}

START_TEST(test_record_bad_files_are_refused_with_their_reason) {
    record_session();
    size_t size;
    uint8_t *bytes = read_bytes(rec_path, &size);
    refused((const uint8_t *)"not a recording at all", 22, "not an Ona recording");
    uint8_t *copy = malloc(size);
    memcpy(copy, bytes, size);
    copy[8] = 4; /* the format version */
    refused(copy, size, "recording format version 4; this runtime reads versions 1 to 3");
    memcpy(copy, bytes, size);
    copy[size / 2] ^= 0x40; /* a flipped bit inside a frame */
    refused(copy, size, "corrupt chunk at byte");
    refused(bytes, 20, "the recording has no header (the file was cut short)");
    /* Missing: ONA_ENOENT. */
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.script_roots = roots, .replay_path = "/nonexistent/x.onarec"};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), ONA_ENOENT);
    /* Recording and replaying at once is a misuse. */
    desc.record_path = rec_path;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), ONA_EINVAL);
    free(copy);
    free(bytes);
}
END_TEST

START_TEST(test_record_a_file_cut_by_a_crash_replays_up_to_the_cut) {
    record_session();
    size_t size;
    uint8_t *bytes = read_bytes(rec_path, &size);
    write_bytes(rec_path, bytes, size * 2 / 3); /* cut inside a frame, as a crash leaves it */
    free(bytes);
    ona_recording_info info;
    ck_assert_int_eq(ona_recording_info_read(rec_path, &info), 0);
    ck_assert(!info.ended);
    ck_assert_uint_gt(info.frames, PRESS);
    ck_assert_uint_lt(info.frames, FRAMES);
    ona_runtime *rt = make_runtime(4, NULL, rec_path);
    ck_assert(captured_logs_contain("stops inside a chunk"));
    uint32_t frames = 0;
    while (!ona_runtime_quit_requested(rt) && frames <= FRAMES) {
        ck_assert_int_eq(ona_runtime_step(rt, 0.5), 0);
        frames++;
    }
    ck_assert_uint_eq(frames, info.frames + 1); /* the step after the last one asks to quit */
    ck_assert_uint_eq(ona_runtime_replay_diverged(rt, NULL, 0), 0);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("record");
    TCase *tc = tcase_create("record");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_record_replays_identically_on_any_thread_count);
    tcase_add_test(tc, test_record_a_changed_line_diverges_at_its_frame_and_system);
    tcase_add_test(tc, test_record_a_changed_message_is_named_with_its_values);
    tcase_add_test(tc, test_record_os_time_warns_while_recording);
    tcase_add_test(tc, test_record_resimulate_reports_the_divergence_and_runs_to_the_end);
    tcase_add_test(tc, test_record_a_divergence_after_a_runaway_interrupt_says_so);
    tcase_add_test(tc, test_record_bad_files_are_refused_with_their_reason);
    tcase_add_test(tc, test_record_a_file_cut_by_a_crash_replays_up_to_the_cut);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
