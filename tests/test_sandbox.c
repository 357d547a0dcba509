/*
 * test_sandbox.c: sandboxed Lua systems (bindings/lua_sandbox.c) and where every system's code
 * may come from (bindings/lua_files.c), through the real runtime. A sandboxed probe
 * (tests/lua/sandbox/probe.lua) tries every escape it knows, each answer asserted with its
 * error text: the libraries taken away, bytecode in every form, getfenv/setfenv, coroutines,
 * the string metatable, C modules, paths outside the game folder or with a NUL byte, a FIFO
 * named like a module, a sandboxed system spawning an unsandboxed child; a runaway loop and a
 * memory bomb in a sandbox are stopped and named while another system runs on; a runtime made
 * with `sandbox` sandboxes every system; an unsandboxed system keeps the whole library, with its
 * modules and scripts confined all the same. The scripts are copied into a scratch game folder
 * per test, beside a FIFO.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const scripts[] = {"maker.lua", "probe.lua",  "alive.lua",
                                      "child.lua", "helper.lua", "runaway.lua",
                                      "bomb.lua",  "whole.lua",  "open.lua"};

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("sandbox");
    char from[700], to[700];
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(from, sizeof from, "%s/tests/lua/sandbox/%s", ONA_SOURCE_DIR, scripts[i]);
        snprintf(to, sizeof to, "%s/%s", game_dir(), scripts[i]);
        file_save_copy(from, to);
    }
    snprintf(to, sizeof to, "%s/pipe.lua", game_dir());
    ck_assert_int_eq(mkfifo(to, 0644), 0);
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(bool sandbox) {
    const char *roots[] = {game_dir(), NULL};
    return create_runtime(
        &(ona_runtime_desc){.threads = 2, .script_roots = roots, .sandbox = sandbox});
}

static void steps(ona_runtime *rt, int n) {
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static void spawn_with_dir(ona_runtime *rt, const char *script, ona_system report) {
    char pairs[700];
    snprintf(pairs, sizeof pairs, "dir=%s", game_dir());
    spawn_lua(rt, script, NULL, report, pairs, 0, ONA_POLICY_STOP);
}

#define OUTSIDE "is outside the game folder"

/* Every escape the probe knows is refused in words; the unsandboxed maker has everything. */
START_TEST(test_sandbox_escapes_refused) {
    ona_runtime *rt = make_runtime(false);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    spawn_with_dir(rt, "maker.lua", report);
    steps(rt, 4);
    ASSERT_COLLECTED("probe done");
    ASSERT_COLLECTED("maker: table function table userdata function escaped");
    ASSERT_COLLECTED("globals: ok nil nil nil nil nil nil nil nil nil nil nil nil");
    ASSERT_COLLECTED("kept: ok function function function string function function function "
                     "function function function");
    ASSERT_COLLECTED("require ffi: ERR probe.lua:34: module 'ffi' not found");
    ASSERT_COLLECTED("require io: ERR probe.lua:35: module 'io' not found");
    ASSERT_COLLECTED("require debug: ERR probe.lua:36: module 'debug' not found");
    ASSERT_COLLECTED("require jit.util: ERR probe.lua:37: module 'jit.util' not found");
    ASSERT_COLLECTED("loaded: ok nil nil nil nil nil");
    ASSERT_COLLECTED("require socket: ERR probe.lua:40: module 'socket' not found");
    ASSERT_COLLECTED("cpath: ok '' 2");
    ASSERT_COLLECTED("load bytecode: ok nil a binary chunk (bytecode) is refused in a sandboxed "
                     "system");
    ASSERT_COLLECTED("loadstring bytecode: ok nil a binary chunk (bytecode) is refused");
    ASSERT_COLLECTED("load reader bytecode: ok nil a binary chunk (bytecode) is refused");
    ASSERT_COLLECTED("load source: ok 2");
    ASSERT_COLLECTED("load env: ok 5");
    ASSERT_COLLECTED("require bytecode: ERR bcmod.lua: a binary chunk (bytecode) is refused");
    ASSERT_COLLECTED("dofile bytecode: ERR bcmod.lua: a binary chunk (bytecode) is refused");
    ASSERT_COLLECTED("getfenv: ok nil nil nil nil nil");
    ASSERT_COLLECTED("setfenv 0: ERR probe.lua:55: setfenv: the thread's environment (level 0) "
                     "is the runtime's");
    ASSERT_COLLECTED("setfenv runtime: ERR probe.lua:56: setfenv: the runtime's functions keep "
                     "their environment");
    ASSERT_COLLECTED("setfenv C: ERR probe.lua:57: setfenv: the runtime's functions keep");
    ASSERT_COLLECTED("setfenv own: ok own env");
    ASSERT_COLLECTED("coroutine: ok nil nil nil nil function");
    ASSERT_COLLECTED("string methods: ok X nil nil nil");
    ASSERT_COLLECTED("string tampered: ok pwned");
    ASSERT_COLLECTED("searchpath outside: ERR probe.lua:72: package.searchpath: module "
                     "'passwd': '/etc/passwd' (from package.path) " OUTSIDE);
    ASSERT_COLLECTED("require absolute: ERR probe.lua:75: require: module 'passwd': "
                     "'/etc/passwd' (from package.path) " OUTSIDE);
    ASSERT_COLLECTED("require dotdot: ERR probe.lua:77: require: module 'probe': '../probe.lua' "
                     "(from package.path) " OUTSIDE);
    ASSERT_COLLECTED("require nul: ERR probe.lua:79: require: bad argument #1 (the module name "
                     "holds a NUL byte)");
    ASSERT_COLLECTED("require fifo: ERR probe.lua:80: require: module 'pipe': pipe.lua is a FIFO "
                     "(named pipe), not a regular file");
    ASSERT_COLLECTED("require helper: ok 42");
    ASSERT_COLLECTED("loadfile outside: ERR probe.lua:82: loadfile: bad argument #1 "
                     "('/etc/passwd' " OUTSIDE);
    ASSERT_COLLECTED("loadfile dotdot: ERR probe.lua:83: loadfile: bad argument #1 "
                     "('../probe.lua' " OUTSIDE);
    ASSERT_COLLECTED("loadfile stdin: ERR probe.lua:84: loadfile: bad argument #1 (a file name "
                     "expected, got no value: a sandboxed system reads no standard input)");
    ASSERT_COLLECTED("loadfile missing: ok nil missing.lua: no such file");
    ASSERT_COLLECTED("loadfile own: ok 42");
    ASSERT_COLLECTED(
        "dofile outside: ERR probe.lua:87: dofile: bad argument #1 ('/etc/hostname' " OUTSIDE);
    ASSERT_COLLECTED("dofile nul: ERR probe.lua:88: dofile: bad argument #1 (the path holds a "
                     "NUL byte)");
    ASSERT_COLLECTED("spawn outside: ERR probe.lua:89: ona.spawn: bad argument #1 (script "
                     "'/etc/passwd' " OUTSIDE);
    ASSERT_COLLECTED("spawn dotdot: ERR probe.lua:90: ona.spawn: bad argument #1 (script "
                     "'../probe.lua' " OUTSIDE);
    ASSERT_COLLECTED("spawn nul: ERR probe.lua:91: ona.spawn: bad argument #1 (the script path "
                     "holds a NUL byte)");
    ASSERT_COLLECTED("spawn fifo: ok nil script 'pipe.lua' is a FIFO (named pipe), not a regular "
                     "file");
    ASSERT_COLLECTED("spawn unsandboxed: ERR probe.lua:93: ona.spawn: bad argument #3 "
                     "(opts.sandbox = false: a sandboxed system spawns only sandboxed systems)");
    ASSERT_COLLECTED("spawn child: ok number");
    ASSERT_COLLECTED("child: io nil ffi nil debug nil");
    ASSERT_COLLECTED("collectgarbage stop: ERR probe.lua:95: collectgarbage: 'stop' is refused "
                     "in a sandboxed system");
    ASSERT_COLLECTED("collectgarbage count: ok number");
    ASSERT_COLLECTED("save: ERR probe.lua:97: ona.save: refused in a sandboxed system (saves "
                     "live outside the game folder)");
    ASSERT_COLLECTED("load save: ERR probe.lua:98: ona.load: refused in a sandboxed system");
    ASSERT_COLLECTED("buffer ptr: ERR probe.lua:99: buffer:ptr: refused in a sandboxed system "
                     "(a raw pointer reaches all of the process's memory)");
    ASSERT_COLLECTED("lazy openers: ok boolean boolean"); /* no opener of io into any table */
    /* The probe's tampering with its string metatable stayed in its own state. */
    ASSERT_COLLECTED("alive 3 A");
    ck_assert_msg(!collected_contains("alive 3 pwned"), "%s", collected_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* A sandboxed runaway loop is interrupted by the budget and a memory bomb by the cap, each
 * named, while another system keeps its turns. */
START_TEST(test_sandbox_runaway_and_bomb_stopped) {
    ona_runtime *rt = make_runtime(false);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "alive.lua", "alive", report, "", 0, 0);
    ona_system h;
    ona_message args = make_args(report, "");
    /* The runaway's budget is short so that its frame is; the bomb has none, since how soon it
     * reaches its cap depends on the machine. */
    ck_assert_int_eq(ona_runtime_spawn(rt,
                                       &(ona_spawn_desc){.script = "runaway.lua",
                                                         .args = &args,
                                                         .budget_ms = 100,
                                                         .policy = ONA_POLICY_STOP,
                                                         .sandbox = true},
                                       &h),
                     0);
    args = make_args(report, "");
    ck_assert_int_eq(ona_runtime_spawn(rt,
                                       &(ona_spawn_desc){.script = "bomb.lua",
                                                         .args = &args,
                                                         .memory_cap = 8u << 20,
                                                         .budget_ms = ONA_BUDGET_OFF,
                                                         .policy = ONA_POLICY_STOP,
                                                         .sandbox = true},
                                       &h),
                     0);
    /* A runaway turn steps aside after a share of its budget and goes on in later frames
     * (watchdog.c), so the frames until its interrupt depend on the machine: step until it. */
    steps(rt, 8);
    for (int i = 0; i < 20000 && !captured_logs_contain("runaway: runaway turn: "); i++)
        steps(rt, 1);
    steps(rt, 2);
    ASSERT_COLLECTED("runaway turn 3");
    ck_assert_msg(!collected_contains("runaway turn 4"), "%s", collected_text());
    ck_assert_msg(captured_logs_contain("runaway: runaway turn: "), "%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain(" ms in process at runaway.lua:9"), "%s",
                  captured_logs_text());
    ASSERT_COLLECTED("bomb turn 2 false");
    ck_assert_msg(captured_logs_contain("bomb: exceeded its memory cap of 8388608 bytes"), "%s",
                  captured_logs_text());
    ASSERT_COLLECTED("alive 6 A"); /* turns after both were stopped */
    ona_runtime_destroy(rt);
}
END_TEST

/* ona_runtime_desc.sandbox: a system spawned without a sandbox of its own is sandboxed, and so
 * are its children. */
START_TEST(test_sandbox_whole_runtime) {
    ona_runtime *rt = make_runtime(true);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "whole.lua", "whole", report, "", 0, 0);
    steps(rt, 4);
    ASSERT_COLLECTED("whole: nil nil false");
    ASSERT_COLLECTED("whole child: ");
    ASSERT_COLLECTED("child: io nil ffi nil debug nil");
    /* The embedder's absolute path outside the game folder is refused for a sandbox. */
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "/etc/passwd"}, &h),
                     ONA_EPATH);
    ck_assert_msg(captured_logs_contain("script '/etc/passwd' is outside the game folder"), "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

/* An unsandboxed system keeps the whole library; its modules and ona.spawn scripts are confined
 * to the game folder all the same, and a FIFO never blocks it. */
START_TEST(test_sandbox_unsandboxed_keeps_everything) {
    ona_runtime *rt = make_runtime(false);
    ona_system report = spawn_collector(rt);
    spawn_with_dir(rt, "open.lua", report);
    steps(rt, 2);
    ASSERT_COLLECTED("open globals: ok function function function function function function "
                     "function");
    ASSERT_COLLECTED("open bytecode: ok ran");
    ASSERT_COLLECTED("open require absolute: ERR open.lua:24: require: module 'passwd': "
                     "'/etc/passwd' (from package.path) " OUTSIDE);
    ASSERT_COLLECTED("open require fifo: ERR open.lua:26: require: module 'pipe': pipe.lua is a "
                     "FIFO");
    ASSERT_COLLECTED("open spawn outside: ERR open.lua:27: ona.spawn: bad argument #1 (script "
                     "'/etc/passwd' " OUTSIDE);
    ASSERT_COLLECTED("open spawn fifo: ok nil");
    ASSERT_COLLECTED("open buffer: ok cdata");
    ASSERT_COLLECTED("open collectgarbage: ok ran");
    ona_runtime_destroy(rt);
}
END_TEST

/* A relative script root (the launcher's `ona samples/game`): require finds a module under it,
 * with the root applied once. */
START_TEST(test_sandbox_require_under_a_relative_root) {
    game_write("relmod.lua", "return { v = 42 }\n");
    game_write("reluser.lua",
               "local m = require('relmod')\n"
               "return {\n"
               "  init = function(state, args) state.report = args.report end,\n"
               "  process = function(state) ona.send(state.report, 'rel ' .. m.v) end,\n"
               "}\n");
    char dir[700];
    snprintf(dir, sizeof dir, "%s", game_dir());
    char *slash = strrchr(dir, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    ck_assert_int_eq(chdir(dir), 0);
    const char *roots[] = {slash + 1, NULL};
    ona_runtime *rt = create_runtime(&(ona_runtime_desc){.threads = 2, .script_roots = roots});
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "reluser.lua", "reluser", report, "", 0, ONA_POLICY_STOP);
    steps(rt, 2);
    ASSERT_COLLECTED("rel 42");
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *sandbox_suite(void) {
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sandbox_escapes_refused);
    tcase_add_test(tc, test_sandbox_runaway_and_bomb_stopped);
    tcase_add_test(tc, test_sandbox_whole_runtime);
    tcase_add_test(tc, test_sandbox_unsandboxed_keeps_everything);
    tcase_add_test(tc, test_sandbox_require_under_a_relative_root);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(sandbox_suite());
}
