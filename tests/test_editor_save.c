/*
 * test_editor_save.c: the editor-save driver. A headless runtime with watching on runs a
 * counter system while its script is saved the ways editors save: rename over, vim's backups
 * (rename to a backup then write; copy to a backup then rewrite in place), truncate then write,
 * a save that pauses between two halves, a module created in a folder made after start, a touch
 * with no change, and an edit of main.lua. Every case either takes effect with the system's
 * state kept, or is dropped with a reason in the log, and no half-written file ever runs.
 *
 * The watcher waits a wall-clock settle time before applying a save, so these tests wait real
 * time (stepping frames a few milliseconds apart); they never assert on how long anything took.
 */
#include "test_support.h"

#include "runtime_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static ona_runtime *rt;

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("save");
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .hot_reload = true};
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "%s\n%s", ona_strerror(rc), captured_logs_text());
}

static void teardown(void) {
    ona_runtime_destroy(rt);
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void step(void) {
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    usleep(2000);
}

/* Steps frames for `ms` of wall-clock time (a writer pausing while the game runs). */
static void step_for(double ms) {
    double end = now_ms() + ms;
    do
        step();
    while (now_ms() < end);
}

static int first_index(const char *tag) {
    for (int i = 0; i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return i;
    return -1;
}

static int last_index(const char *tag) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return i;
    return -1;
}

/* Steps until the collector has seen `tag` (the watcher waits for saves to settle). */
static void step_until(const char *tag) {
    for (int i = 0; i < 1500 && last_index(tag) < 0; i++)
        step();
    ck_assert_msg(last_index(tag) >= 0, "never saw %s; log:\n%s", tag, captured_logs_text());
}

static void step_until_log(const char *text) {
    for (int i = 0; i < 1500 && !captured_logs_contain(text); i++)
        step();
    ck_assert_msg(captured_logs_contain(text), "never logged '%s'; log:\n%s", text,
                  captured_logs_text());
}

/* The counter, version `tag`: state.n counts turns (state, kept across reloads); `hits` counts
 * them too, as module-level data of the script (reset when the script is re-run). */
static const char *counter(const char *tag) {
    static char text[1024];
    snprintf(text, sizeof text,
             "local hits = 0\n"
             "return {\n"
             "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
             "  process = function(state)\n"
             "    state.n = state.n + 1\n"
             "    hits = hits + 1\n"
             "    ona.send(state.report, '%s', state.n, hits)\n"
             "  end,\n"
             "}\n",
             tag);
    return text;
}

static const char *path_of(const char *name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", game_dir(), name);
    return path;
}

static void write_file(const char *path, const char *text, const char *mode) {
    FILE *f = fopen(path, mode);
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* Spawns the collector and counter.lua at v1 and runs until v1 reported. */
static void start_counter(void) {
    game_write("counter.lua", counter("v1"));
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    step_until("v1");
    step_for(10);
}

/* After a save of v2: it took effect with the state kept (the first v2 turn counts on from the
 * last v1 turn), and nothing warned or failed. */
static void assert_v2_with_state_kept(void) {
    step_until("v2");
    int v1 = last_index("v1"), v2 = first_index("v2");
    ck_assert_int_lt(v1, v2); /* no v1 turn after the new code came in */
    ck_assert_double_eq(coll->items[v2 + 1].number, coll->items[v1 + 1].number + 1);
    ck_assert_msg(captured_logs_contain("counter.lua: 1 reloaded"), "%s", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("warn:"), 0);
    ck_assert_int_eq(captured_logs_count("error:"), 0);
}

START_TEST(test_save_rename_over) {
    start_counter();
    game_write("counter.lua", counter("v2")); /* counter.lua.tmp renamed over it */
    assert_v2_with_state_kept();
}
END_TEST

/* vim's default (backupcopy=auto on a plain file): the file is renamed to the backup, and the
 * new text written to a new file under the name. For a moment there is no counter.lua. */
START_TEST(test_save_vim_backup_rename) {
    start_counter();
    char backup[1100];
    snprintf(backup, sizeof backup, "%s~", path_of("counter.lua"));
    ck_assert_int_eq(rename(path_of("counter.lua"), backup), 0);
    step(); /* the game runs while the name is missing */
    write_file(path_of("counter.lua"), counter("v2"), "w");
    unlink(backup);
    assert_v2_with_state_kept();
}
END_TEST

/* vim with backupcopy=yes: the file is copied to the backup, then rewritten in place. */
START_TEST(test_save_vim_backupcopy_yes) {
    start_counter();
    char backup[1100];
    snprintf(backup, sizeof backup, "%s~", path_of("counter.lua"));
    write_file(backup, counter("v1"), "w");
    write_file(path_of("counter.lua"), counter("v2"), "w");
    unlink(backup);
    assert_v2_with_state_kept();
}
END_TEST

/* Truncate, let the game run a frame on the empty file, then write: no error or warning. */
START_TEST(test_save_truncate_then_write) {
    start_counter();
    write_file(path_of("counter.lua"), "", "w");
    step();
    write_file(path_of("counter.lua"), counter("v2"), "w");
    assert_v2_with_state_kept();
}
END_TEST

/* A save that stops for 100 ms half-way (longer than the settle time): the first half is cut
 * inside the table the script returns, and never runs. It settles while the game runs and is
 * refused before any system re-runs it (the log says so: not compiling, "a save caught half-way"),
 * and the whole file is applied when the rest comes, with the state kept. */
START_TEST(test_save_two_halves_first_never_runs) {
    start_counter();
    const char *whole = counter("v2");
    const char *cut = strstr(whole, "  process = function(state)");
    ck_assert_ptr_nonnull(cut);
    char first[1024];
    snprintf(first, sizeof first, "%.*s", (int)(cut - whole), whole);
    write_file(path_of("counter.lua"), first, "w");
    step_for(100);
    ck_assert_int_lt(last_index("v2"), 0);
    write_file(path_of("counter.lua"), cut, "a");
    step_until("v2");
    int v1 = last_index("v1"), v2 = first_index("v2");
    ck_assert_int_lt(v1, v2);
    ck_assert_double_eq(coll->items[v2 + 1].number, coll->items[v1 + 1].number + 1);
    /* No system was handed the half file: only the watcher's check saw it. */
    ck_assert_msg(!captured_logs_contain("reload of"), "%s", captured_logs_text());
    ck_assert_msg(captured_logs_count("error:") == 0, "%s", captured_logs_text());
}
END_TEST

/* A module required from a folder that does not exist at start (two levels: levels/deep/): the
 * folders are made while the game runs and the module written; the script that wanted it
 * reloads, and so does a later edit of the module, now loaded, in its new folder. */
START_TEST(test_save_module_in_new_folder) {
    game_write("level.lua", "local ok, one = pcall(require, 'levels.deep.one')\n"
                            "return {\n"
                            "  init = function(state, args) state.report = args.report; "
                            "state.n = 0 end,\n"
                            "  process = function(state)\n"
                            "    state.n = state.n + 1\n"
                            "    ona.send(state.report, 'level', ok and one.x or -1, state.n)\n"
                            "  end,\n"
                            "}\n");
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "level.lua", "level", report, "", 0, 0);
    step_until("level");
    ck_assert_double_eq(coll->items[last_index("level") + 1].number, -1);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/levels", game_dir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    step();
    snprintf(dir, sizeof dir, "%s/levels/deep", game_dir());
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    game_write("levels/deep/one.lua", "return { x = 1 }\n");
    for (int i = 0; i < 1500 && coll->items[last_index("level") + 1].number != 1; i++)
        step();
    int at = last_index("level");
    ck_assert_msg(coll->items[at + 1].number == 1, "levels/deep/one.lua never loaded; log:\n%s",
                  captured_logs_text());
    ck_assert_double_gt(coll->items[at + 2].number, 1); /* state.n went on: state kept */
    game_write("levels/deep/one.lua", "return { x = 2 }\n");
    for (int i = 0; i < 1500 && coll->items[last_index("level") + 1].number != 2; i++)
        step();
    ck_assert_msg(coll->items[last_index("level") + 1].number == 2,
                  "the edit of the loaded module never reloaded; log:\n%s", captured_logs_text());
    ck_assert_int_eq(captured_logs_count("error:"), 0);
}
END_TEST

/* touch (a new mtime, the same content), and a save of the same text: nothing reloads, and the
 * script's module-level data (`hits`, reset when the script re-runs) goes on counting. */
START_TEST(test_save_touch_without_change) {
    start_counter();
    uint64_t unchanged = rt->hot.unchanged;
    ck_assert_int_eq(utimensat(AT_FDCWD, path_of("counter.lua"), NULL, 0), 0);
    for (int i = 0; i < 1500 && rt->hot.unchanged == unchanged; i++)
        step();
    ck_assert_uint_eq(rt->hot.unchanged, unchanged + 1);
    game_write("counter.lua", counter("v1")); /* rename over, same text */
    for (int i = 0; i < 1500 && rt->hot.unchanged == unchanged + 1; i++)
        step();
    ck_assert_uint_eq(rt->hot.unchanged, unchanged + 2);
    step();
    int last = last_index("v1");
    /* Every turn counted in both: hits was never reset. */
    ck_assert_double_eq(coll->items[last + 2].number, coll->items[last + 1].number);
    ck_assert(!captured_logs_contain("reloaded"));
    ck_assert_uint_eq(rt->hot.reloads, 0);
}
END_TEST

/* main.lua runs once, at start: an edit is named, with what to do, and the game runs on. */
START_TEST(test_save_main_lua_named) {
    game_write("counter.lua", counter("v1"));
    ona_system report = spawn_collector(rt);
    game_write("main.lua", "local args = ...\n"
                           "assert(ona.spawn('counter.lua', { report = args.report }))\n");
    spawn_lua(rt, "main.lua", "main", report, "", 0, 0);
    step_until("v1");
    game_write("main.lua", "local args = ...\n"
                           "assert(ona.spawn('counter.lua', { report = args.report }, "
                           "{ name = 'renamed' }))\n");
    step_until_log("main.lua changed: it ran once, at start");
    ck_assert(captured_logs_contain("restart the game"));
    int before = coll->count;
    step_for(10);
    ck_assert_int_gt(coll->count, before); /* the counter runs on */
}
END_TEST

int main(void) {
    Suite *s = suite_create("editor_save");
    TCase *tc = tcase_create("saves");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_save_rename_over);
    tcase_add_test(tc, test_save_vim_backup_rename);
    tcase_add_test(tc, test_save_vim_backupcopy_yes);
    tcase_add_test(tc, test_save_truncate_then_write);
    tcase_add_test(tc, test_save_two_halves_first_never_runs);
    tcase_add_test(tc, test_save_module_in_new_folder);
    tcase_add_test(tc, test_save_touch_without_change);
    tcase_add_test(tc, test_save_main_lua_named);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
