/*
 * test_save.c: saves. Values round-trip through ona.save/ona.load and the C
 * functions, in one file format; bad names and values that cannot be saved are refused at the
 * author's line; a corrupt, truncated or foreign file is reported with its path and never
 * loaded; a missing one is "no such save"; and a writer killed (SIGKILL) at many points of a
 * save always leaves a file that loads as the old value or the new one.
 */
#include "test_support.h"

#include "save.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char saves[512];

static ona_runtime *make_runtime(uint32_t threads) {
    snprintf(saves, sizeof saves, "%s/saves", game_dir());
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(
        ona_runtime_create(
            &(ona_runtime_desc){.threads = threads, .script_roots = roots, .save_dir = saves}, &rt),
        0);
    ck_assert_str_eq(ona_runtime_save_dir(rt), saves);
    return rt;
}

/* A one-value message: {kind = kind, n = n, blob = `blob_size` bytes of `fill`}. */
static ona_message make_value(const char *kind, double n, size_t blob_size, char fill) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "kind", 4);
    ona_message_write_string(&w, kind, strlen(kind));
    ona_message_write_string(&w, "n", 1);
    ona_message_write_number(&w, n);
    ona_message_write_string(&w, "blob", 4);
    char *blob = malloc(blob_size + 1);
    memset(blob, fill, blob_size);
    ona_message_write_string(&w, blob, blob_size);
    free(blob);
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

/* Reads a make_value message back: its kind's first letter, n, and whether the blob is
 * `blob_size` bytes of the kind's fill ('a' for "A", 'b' for "B"). */
static bool read_value(ona_message *m, char *kind, double *n, size_t blob_size) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    bool blob_ok = false;
    *kind = '?';
    *n = -1;
    char key[16] = "";
    bool want_key = false;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END) {
        if (v.type == ONA_VALUE_TABLE_BEGIN) {
            want_key = true;
            continue;
        }
        if (v.type == ONA_VALUE_TABLE_END)
            break;
        if (want_key) {
            snprintf(key, sizeof key, "%s", v.type == ONA_VALUE_STRING ? v.as.string.bytes : "");
            want_key = false;
            continue;
        }
        want_key = true;
        if (strcmp(key, "kind") == 0 && v.type == ONA_VALUE_STRING)
            *kind = v.as.string.bytes[0];
        else if (strcmp(key, "n") == 0 && v.type == ONA_VALUE_NUMBER)
            *n = v.as.number;
        else if (strcmp(key, "blob") == 0 && v.type == ONA_VALUE_STRING) {
            char fill = *kind == 'A' ? 'a' : 'b';
            blob_ok = v.as.string.size == blob_size;
            for (size_t i = 0; blob_ok && i < blob_size; i++)
                blob_ok = v.as.string.bytes[i] == fill;
        }
    }
    return blob_ok;
}

/* --- Round trips ----------------------------------------------------------------------------- */

static const char ROUND_TRIP_LUA[] =
    "local report\n"
    "local function same(a, b, path)\n"
    "  if type(a) ~= type(b) then return path .. ': ' .. type(a) .. ' vs ' .. type(b) end\n"
    "  if type(a) ~= 'table' then\n"
    "    if a == b then return nil end\n"
    "    return path .. ': ' .. tostring(a) .. ' vs ' .. tostring(b)\n"
    "  end\n"
    "  for k, v in pairs(a) do local d = same(v, b[k], path .. '.' .. tostring(k)); if d then\n"
    "    return d end end\n"
    "  for k in pairs(b) do if a[k] == nil then return path .. '.' .. tostring(k) .. ' extra' end "
    "end\n"
    "end\n"
    "local value = {score = 12345, name = 'h\\195\\169llo\\0zero', flags = {true, false},\n"
    "  nested = {a = {b = {c = 'deep', [2.5] = -0.25}}}, list = {1, 2, 3, 4.5, -1e300},\n"
    "  [7] = 'seven', [true] = 'yes', big = string.rep('x', 100000)}\n"
    "return {\n"
    "  init = function(state, args)\n"
    "    report = args.report\n"
    "    ona.send(report, 'save ' .. tostring(ona.save('game', value)))\n"
    "    local shared = ona.string(string.rep('s', 40))\n"
    "    assert(ona.save('shared', {s = shared, short = ona.string('tiny')}))\n"
    "    assert(ona.save('number', 42))\n"
    "    assert(ona.save('false', false))\n"
    "    assert(ona.save('text', 'just a string'))\n"
    "  end,\n"
    "  process = function(state)\n"
    "    if ona.frame() ~= 2 then return end\n"
    "    local loaded, err = ona.load('game')\n"
    "    ona.send(report, loaded and ('game ' .. (same(value, loaded, 'value') or 'equal')) or "
    "err)\n"
    "    local sh = ona.load('shared')\n"
    "    ona.send(report, 'shared ' .. tostring(sh.s == string.rep('s', 40) and sh.short == "
    "'tiny'))\n"
    "    ona.send(report, 'number ' .. tostring(ona.load('number')))\n"
    "    ona.send(report, 'false ' .. tostring(ona.load('false')) .. ' ' .. select('#', "
    "ona.load('false')))\n"
    "    ona.send(report, 'text ' .. tostring(ona.load('text')))\n"
    "    local fromc = ona.load('from_c')\n"
    "    ona.send(report, 'from_c ' .. tostring(fromc and fromc.kind) .. ' ' .. tostring(fromc and "
    "fromc.n)\n"
    "      .. ' ' .. tostring(fromc and #fromc.blob))\n"
    "  end,\n"
    "}\n";

/* A native system that saves in its first turn and loads in its second. */
typedef struct native_saver {
    int saved, loaded;
    char kind;
    double n;
    bool blob_ok;
} native_saver;

static int native_saver_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    native_saver *ns = ona_ctx_user(ctx);
    if (ona_ctx_frame(ctx) == 1) {
        ona_message m = make_value("B", 7, 10, 'b');
        ns->saved = ona_ctx_save(ctx, "native", &m);
        ona_message_release(&m);
    } else if (ona_ctx_frame(ctx) == 2) {
        ona_message m;
        ns->loaded = ona_ctx_load(ctx, "native", &m);
        if (ns->loaded == 0)
            ns->blob_ok = read_value(&m, &ns->kind, &ns->n, 10);
        ona_message_release(&m);
    }
    return 0;
}

START_TEST(test_save_round_trip) {
    game_dir_begin("save-round-trip");
    game_write("round_trip.lua", ROUND_TRIP_LUA);
    ona_runtime *rt = make_runtime(2);
    /* Saved from C before the Lua system loads it. */
    ona_message m = make_value("A", 3, 1000, 'a');
    ck_assert_int_eq(ona_runtime_save(rt, "from_c", &m), 0);
    ona_message_release(&m);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "round_trip.lua", "round_trip", report, "", 0, 0);
    native_saver ns = {0};
    ona_system n;
    ck_assert_int_eq(ona_runtime_spawn_native(rt,
                                              &(ona_system_desc){.name = "native_saver",
                                                                 .process = native_saver_process,
                                                                 .user = &ns},
                                              &n),
                     0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_run(rt, 4, 0), 0);
    ASSERT_COLLECTED("save true");
    ASSERT_COLLECTED("game equal");
    ASSERT_COLLECTED("shared true");
    ASSERT_COLLECTED("number 42");
    ASSERT_COLLECTED("false false 1");
    ASSERT_COLLECTED("text just a string");
    ASSERT_COLLECTED("from_c A 3 1000");
    capture_logs_end();
    ck_assert_int_eq(ns.saved, 0);
    ck_assert_int_eq(ns.loaded, 0);
    ck_assert(ns.kind == 'B' && ns.n == 7 && ns.blob_ok);
    /* What Lua saved, C reads. */
    ck_assert_int_eq(ona_runtime_load(rt, "number", &m), 0);
    ona_message_reader r;
    ona_message_reader_begin(&r, &m);
    ona_value v;
    ck_assert_int_eq(ona_message_read(&r, &v), 0);
    ck_assert(v.type == ONA_VALUE_NUMBER && v.as.number == 42);
    ona_message_release(&m);
    /* The file is where the README says, and no temporary file is left. */
    char path[600];
    snprintf(path, sizeof path, "%s/game.save", saves);
    ck_assert_int_eq(access(path, R_OK), 0);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* --- Refusals -------------------------------------------------------------------------------- */

static const char REFUSALS_LUA[] =
    "local report\n"
    "local function try(f) local ok, e = pcall(f); ona.send(report, tostring(e)) end\n"
    "return { init = function(s, args) report = args.report\n"
    "  try(function() local _ = ona.save('', 1) end)\n"
    "  try(function() local _ = ona.save('a/b', 1) end)\n"
    "  try(function() local _ = ona.save('..', 1) end)\n"
    "  try(function() local _ = ona.save(string.rep('n', 65), 1) end)\n"
    "  try(function() local _ = ona.load('x y') end)\n"
    "  try(function() local _ = ona.save('ok', nil) end)\n"
    "  try(function() local _ = ona.save('ok', {a = {b = print}}) end)\n"
    "  try(function() local _ = ona.save('ok', {buf = ona.buffer('float', 4)}) end)\n"
    "  try(function() local _ = ona.save(string.rep('n', 64), 1) end)\n"
    "  try(function() local c = {}; c.self = c; local _ = ona.save('cyc', c) end)\n"
    "  local v, e = ona.load('never_saved'); ona.send(report, tostring(v) .. ' ' .. e)\n"
    "end, process = function() end }\n";

START_TEST(test_save_refuses_bad_names_and_values) {
    game_dir_begin("save-refusals");
    game_write("refusals.lua", REFUSALS_LUA);
    ona_runtime *rt = make_runtime(1);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "refusals.lua", "refusals", report, "", 0, 0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    ASSERT_COLLECTED("refusals.lua:4: ona.save: bad argument #1 (a save name may not be empty)");
    ASSERT_COLLECTED("refusals.lua:5: ona.save: bad argument #1 (the save name 'a/b' has a '/'");
    ASSERT_COLLECTED("refusals.lua:6: ona.save: bad argument #1 ('..' is not a save name)");
    ASSERT_COLLECTED("refusals.lua:7: ona.save: bad argument #1 (the save name is 65 bytes long");
    ASSERT_COLLECTED("refusals.lua:8: ona.load: bad argument #1 (the save name 'x y' has a ' '");
    ASSERT_COLLECTED("refusals.lua:9: ona.save: bad argument #2 (a value to save expected");
    ASSERT_COLLECTED("refusals.lua:10: ona.save: cannot save 'ok': value.a.b is a function");
    ASSERT_COLLECTED("refusals.lua:11: ona.save: save ok (");
    ASSERT_COLLECTED("value.buf is a buffer");
    ASSERT_COLLECTED(
        "refusals.lua:13: ona.save: cannot save 'cyc': value.self refers back to value "
        "(cycle)");
    ASSERT_COLLECTED("nil save never_saved (");
    ASSERT_COLLECTED("never_saved.save): no such save");
    ck_assert_int_eq(coll->count, 11); /* the 64-byte name was taken: its pcall reported true */
    capture_logs_end();
    /* The same from C. */
    ona_message m = make_value("A", 1, 1, 'a');
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_save(rt, "a/b", &m), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_save(rt, "", &m), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_save(NULL, "x", &m), ONA_EINVAL);
    ona_message out;
    ck_assert_int_eq(ona_runtime_load(rt, "a/b", &out), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_load(rt, "missing", &out), ONA_ENOENT);
    ona_message_release(&m);
    /* A buffer cannot be saved; two values are not one. */
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_buffer *b;
    ck_assert_int_eq(ona_buffer_create("float", 4, 2, &b), 0);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "pixels", 6);
    ona_message_write_buffer(&w, &b);
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_save(rt, "buffered", &m), ONA_EENCODE);
    ck_assert(captured_logs_contain("value.pixels is a buffer"));
    ona_message_release(&m);
    ona_message_init(&m);
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, 1);
    ona_message_write_number(&w, 2);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_save(rt, "two", &m), ONA_EINVAL);
    ona_message_release(&m);
    capture_logs_end();
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* A Lua string may hold a NUL, a file name may not: "slot\0" .. i would all be slot.save. */
static const char NUL_NAMES_LUA[] =
    "local report\n"
    "return { init = function(s, args) report = args.report\n"
    "  ona.send(report, 'plain ' .. tostring(ona.save('slot', {who = 'plain'})))\n"
    "  for i = 1, 3 do\n"
    "    local ok, e = pcall(ona.save, 'slot\\0' .. i, {who = 'slot ' .. i})\n"
    "    ona.send(report, tostring(ok) .. ' ' .. tostring(e))\n"
    "  end\n"
    "  local ok, e = pcall(ona.load, 'slot\\0' .. 1)\n"
    "  ona.send(report, tostring(ok) .. ' ' .. tostring(e))\n"
    "  ok, e = pcall(ona.save, 'a\\0/../../etc', 1)\n"
    "  ona.send(report, tostring(ok) .. ' ' .. tostring(e))\n"
    "  ona.send(report, 'loaded ' .. tostring(ona.load('slot').who))\n"
    "end, process = function() end }\n";

START_TEST(test_save_refuses_names_with_nul) {
    game_dir_begin("save-nul");
    game_write("nul.lua", NUL_NAMES_LUA);
    ona_runtime *rt = make_runtime(1);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "nul.lua", "nul", report, "", 0, 0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    ASSERT_COLLECTED("plain true");
    ASSERT_COLLECTED("nul.lua:5: ona.save: bad argument #1 (the save name 'slot\\0...' has "
                     "a NUL byte at byte 5)");
    ASSERT_COLLECTED("nul.lua:8: ona.load: bad argument #1 (the save name 'slot\\0...'");
    ASSERT_COLLECTED("nul.lua:10: ona.save: bad argument #1 (the save name 'a\\0...' has a "
                     "NUL byte at byte 2)");
    ASSERT_COLLECTED("loaded plain");
    ck_assert_msg(!collected_contains("false true") && !collected_contains("true true"),
                  "a NUL name was taken:\n%s", collected_text());
    capture_logs_end();
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* --- Damaged files --------------------------------------------------------------------------- */

static void patch_file(const char *path, off_t at, uint8_t byte) {
    int fd = open(path, O_WRONLY);
    ck_assert(fd >= 0);
    ck_assert_int_eq(pwrite(fd, &byte, 1, at), 1);
    close(fd);
}

static void expect_load_fails(ona_runtime *rt, const char *name, int code, const char *why) {
    ona_message out;
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_load(rt, name, &out), code);
    ck_assert_int_eq(ona_message_count(&out), 0);
    char want[900];
    snprintf(want, sizeof want, "save %s (%s/%s.save): %s", name, saves, name, why);
    ck_assert_msg(captured_logs_contain(want), "'%s' not logged:\n%s", want, captured_logs_text());
    capture_logs_end();
}

START_TEST(test_save_corrupt_files_are_reported_not_loaded) {
    game_dir_begin("save-corrupt");
    ona_runtime *rt = make_runtime(1);
    char path[600];
    ona_message m = make_value("A", 1, 5000, 'a');
    const char *names[] = {"flipped", "truncated", "header", "foreign", "empty", "longer"};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(ona_runtime_save(rt, names[i], &m), 0);
    ona_message_release(&m);
    snprintf(path, sizeof path, "%s/flipped.save", saves);
    patch_file(path, ONA__SAVE_HEADER_SIZE + 2500, 'z');
    expect_load_fails(rt, "flipped", ONA_EFORMAT, "corrupt: checksum mismatch");
    snprintf(path, sizeof path, "%s/truncated.save", saves);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(truncate(path, st.st_size - 7), 0);
    expect_load_fails(rt, "truncated", ONA_EFORMAT, "corrupt: truncated");
    snprintf(path, sizeof path, "%s/header.save", saves);
    patch_file(path, 17, 0x7F); /* the length */
    expect_load_fails(rt, "header", ONA_EFORMAT, "corrupt: header checksum mismatch");
    snprintf(path, sizeof path, "%s/foreign.save", saves);
    game_write("saves/foreign.save", "{\"score\": 10, \"this is\": \"not a save at all\"}\n");
    expect_load_fails(rt, "foreign", ONA_EFORMAT, "not a save file");
    game_write("saves/empty.save", "");
    expect_load_fails(rt, "empty", ONA_EFORMAT, "corrupt: truncated (0 bytes");
    snprintf(path, sizeof path, "%s/longer.save", saves);
    int fd = open(path, O_WRONLY | O_APPEND);
    ck_assert_int_eq(write(fd, "xx", 2), 2);
    close(fd);
    expect_load_fails(rt, "longer", ONA_EFORMAT, "corrupt: 2 bytes past the end");
    /* Lua gets nil and the same message. */
    game_write("load.lua",
               "local r; return { init = function(s, a) r = a.report\n"
               "  local v, e = ona.load('flipped'); ona.send(r, tostring(v) .. ' ' .. e)\n"
               "end, process = function() end }\n");
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "load.lua", "loader", report, "", 0, 0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    char want[700];
    snprintf(want, sizeof want, "nil save flipped (%s/flipped.save): corrupt: checksum mismatch",
             saves);
    ASSERT_COLLECTED(want);
    ck_assert(captured_logs_contain("corrupt: checksum mismatch"));
    capture_logs_end();
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* --- Crashes mid-save ------------------------------------------------------------------------ */

enum { BLOB = 1 << 20 };

/* The child: says it is ready on `ready`, then saves `b` and `a` alternately until killed. It
 * calls save.c directly: a runtime would start threads, which a child of a multi-threaded
 * process should not (ThreadSanitizer refuses to), and the file work is the same code. */
static _Noreturn void save_forever(int ready, ona_message *a, ona_message *b) {
    if (write(ready, "r", 1) != 1)
        _exit(5);
    char err[600];
    for (unsigned i = 1;; i++)
        if (ona__save_write_message(saves, "crash", i % 2 ? b : a, err, sizeof err) != 0)
            _exit(4);
}

START_TEST(test_save_survives_kill_mid_save) {
    game_dir_begin("save-crash");
    ona_runtime *rt = make_runtime(1);
    ona_message a = make_value("A", 1, BLOB, 'a'), b = make_value("B", 2, BLOB, 'b');
    ck_assert_int_eq(ona_runtime_save(rt, "crash", &a), 0);
    int seen[2] = {0, 0};
    for (int round = 0; round < 40; round++) {
        int ready[2];
        ck_assert_int_eq(pipe(ready), 0);
        fflush(NULL);
        pid_t pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            close(ready[0]);
            save_forever(ready[1], &a, &b);
        }
        close(ready[1]);
        char byte;
        ck_assert_int_eq(read(ready[0], &byte, 1), 1);
        close(ready[0]);
        /* Kill it at a different point of its saves each round: 0 to 30 ms into its loop,
         * spread over several saves (where in a save each kill lands varies with the disk). */
        struct timespec wait = {0, (long)(round * 7919 % 30000) * 1000L};
        nanosleep(&wait, NULL);
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        int ws;
        ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
        ck_assert_msg(WIFSIGNALED(ws), "the saver exited with %d", WEXITSTATUS(ws));
        ona_message m;
        int rc = ona_runtime_load(rt, "crash", &m);
        ck_assert_msg(rc == 0, "round %d: %s", round, ona_strerror(rc));
        char kind;
        double n;
        bool blob_ok = read_value(&m, &kind, &n, BLOB);
        ck_assert_msg((kind == 'A' && n == 1) || (kind == 'B' && n == 2), "round %d: %c %g", round,
                      kind, n);
        ck_assert(blob_ok);
        seen[kind == 'B']++;
        ona_message_release(&m);
    }
    ck_assert_int_eq(seen[0] + seen[1], 40);
    ona_message_release(&a);
    ona_message_release(&b);
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

/* --- The folder ------------------------------------------------------------------------------ */

START_TEST(test_save_folder_follows_xdg) {
    game_dir_begin("save-folder");
    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char want[700];
    ona_runtime *rt = NULL;
    setenv("XDG_DATA_HOME", game_dir(), 1);
    ck_assert_int_eq(
        ona_runtime_create(&(ona_runtime_desc){.threads = 1, .game_id = "my-game_1.0"}, &rt), 0);
    snprintf(want, sizeof want, "%s/ona/my-game_1.0", game_dir());
    ck_assert_str_eq(ona_runtime_save_dir(rt), want);
    ona_message m = make_value("A", 1, 1, 'a');
    ck_assert_int_eq(ona_runtime_save(rt, "first", &m), 0); /* creates ona/my-game_1.0 */
    snprintf(want, sizeof want, "%s/ona/my-game_1.0/first.save", game_dir());
    ck_assert_int_eq(access(want, R_OK), 0);
    ona_runtime_destroy(rt);
    /* A relative XDG_DATA_HOME is ignored (the XDG spec): HOME/.local/share. */
    setenv("XDG_DATA_HOME", "relative/path", 1);
    setenv("HOME", game_dir(), 1);
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.threads = 1}, &rt), 0);
    snprintf(want, sizeof want, "%s/.local/share/ona/default", game_dir());
    ck_assert_str_eq(ona_runtime_save_dir(rt), want);
    ona_runtime_destroy(rt);
    /* No folder at all: saves fail with a message, the runtime still runs. */
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.threads = 1}, &rt), 0);
    ck_assert_str_eq(ona_runtime_save_dir(rt), "");
    ck_assert_int_eq(ona_runtime_save(rt, "x", &m), ONA_ENOENT);
    ck_assert(captured_logs_contain("no save folder"));
    ona_runtime_destroy(rt);
    /* A game id that is not a name is refused. */
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.game_id = "../x"}, &rt), ONA_EINVAL);
    capture_logs_end();
    ona_message_release(&m);
    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_xdg);
    free(old_home);
    game_dir_end();
}
END_TEST

/* The checksum is the standard CRC32 (zlib's), so other tools can check a save. */
START_TEST(test_save_crc32_is_standard) {
    ck_assert_uint_eq(ona__crc32(0, "123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(ona__crc32(ona__crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    ck_assert_uint_eq(ona__crc32(0, "", 0), 0);
}
END_TEST

static Suite *save_suite(void) {
    Suite *s = suite_create("save");
    TCase *tc = tcase_create("save");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_save_round_trip);
    tcase_add_test(tc, test_save_refuses_bad_names_and_values);
    tcase_add_test(tc, test_save_refuses_names_with_nul);
    tcase_add_test(tc, test_save_corrupt_files_are_reported_not_loaded);
    tcase_add_test(tc, test_save_survives_kill_mid_save);
    tcase_add_test(tc, test_save_folder_follows_xdg);
    tcase_add_test(tc, test_save_crc32_is_standard);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(save_suite());
}
