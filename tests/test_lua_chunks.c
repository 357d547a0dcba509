/*
 * test_lua_chunks.c: the game's Lua files compiled once for all its systems
 * (bindings/lua_chunks.c). Many systems of one script, or requiring one module, parse it once;
 * a file changed on disk is compiled again and its new code runs; what a system loads from the
 * kept bytecode reports errors at the same file:line as its source would; a hot reload of a
 * script shared by several systems parses it once; a binary chunk is never kept, so a sandboxed
 * system cannot be handed one.
 */
#include "test_support.h"

#include "lua_host.h"
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
}

static ona__lua_chunks *chunks(ona_runtime *rt) {
    ona__lua_runtime *host = rt->core.host_state[ONA__HOST_SCRIPT];
    ck_assert_ptr_nonnull(host);
    return &host->chunks;
}

static uint64_t compiles(ona_runtime *rt) {
    return atomic_load_explicit(&chunks(rt)->compiles, memory_order_relaxed);
}

static uint64_t reuses(ona_runtime *rt) {
    return atomic_load_explicit(&chunks(rt)->reuses, memory_order_relaxed);
}

static ona_runtime *runtime(void) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc d = {.threads = 2, .script_roots = roots};
    return create_runtime(&d);
}

/* Reports its version and what the module `shared` says, from init. */
static const char *const V1 = "local shared = require('shared')\n"
                              "return { init = function(state, args)\n"
                              "  ona.send(args.report, 'v1 ' .. shared.word)\n"
                              "end, process = function() end }\n";
static const char *const V2 = "local shared = require('shared')\n"
                              "return { init = function(state, args)\n"
                              "  ona.send(args.report, 'v2 ' .. shared.word)\n"
                              "end, process = function() end }\n";

START_TEST(test_lua_chunks_many_systems_parse_once) {
    game_dir_begin("chunks-once");
    game_write("sys.lua", V1);
    game_write("shared.lua", "return { word = 'hello' }\n");
    ona_runtime *rt = runtime();
    ona_system report = spawn_collector(rt);
    uint64_t before = compiles(rt);
    for (int i = 0; i < 6; i++)
        spawn_lua(rt, "sys.lua", "sys", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(coll->count, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_str_eq(coll->items[i].text, "v1 hello");
    /* The script and the module, each once; the other five systems took their bytecode. */
    ck_assert_uint_eq(compiles(rt) - before, 2);
    ck_assert_uint_ge(reuses(rt), 10);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

START_TEST(test_lua_chunks_changed_file_compiled_again) {
    game_dir_begin("chunks-changed");
    game_write("sys.lua", V1);
    game_write("shared.lua", "return { word = 'hello' }\n");
    ona_runtime *rt = runtime();
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "sys.lua", "a", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 1, 0), 0);
    /* The same size, written at once: only the content tells the two apart. */
    ck_assert_uint_eq(strlen(V1), strlen(V2));
    game_write_in_place("sys.lua", V2);
    game_write_in_place("shared.lua", "return { word = 'howdy' }\n");
    spawn_lua(rt, "sys.lua", "b", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(coll->count, 2);
    ck_assert_str_eq(coll->items[0].text, "v1 hello");
    ck_assert_str_eq(coll->items[1].text, "v2 howdy");
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

START_TEST(test_lua_chunks_errors_name_the_line) {
    game_dir_begin("chunks-lines");
    game_write("bad.lua", "return { process = function()\n"
                          "  local x = 1\n"
                          "  error('boom ' .. x)\n"
                          "end }\n");
    ona_runtime *rt = runtime();
    ona_spawn_desc sd = {.script = "bad.lua", .policy = ONA_POLICY_STOP};
    ona_system a, b;
    ck_assert_int_eq(ona_runtime_spawn(rt, &sd, &a), 0);
    ck_assert_int_eq(ona_runtime_spawn(rt, &sd, &b), 0);
    ck_assert_uint_ge(reuses(rt), 1); /* the second came from the kept bytecode */
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    /* Both failures name the file and line, and the traceback's frame, as source would. */
    ck_assert_int_eq(captured_logs_count("bad.lua:3: boom 1"), 2);
    ck_assert_msg(captured_logs_count("bad.lua:3: in function") >= 2, "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
    game_dir_end();
}
END_TEST

START_TEST(test_lua_chunks_reload_parses_once) {
    game_dir_begin("chunks-reload");
    game_write("sys.lua", "return { process = function(state, events, dt)\n"
                          "  if not state.said then state.said = true end\n"
                          "end, reload = function(state) ona.send(ona.lookup('collector'), "
                          "'old') end }\n");
    ona_runtime *rt = runtime();
    ona_system report = spawn_collector(rt);
    (void)report;
    for (int i = 0; i < 4; i++)
        spawn_lua(rt, "sys.lua", "sys", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 1, 0), 0);
    game_write("sys.lua", "return { process = function(state, events, dt)\n"
                          "  if not state.said then state.said = true end\n"
                          "end, reload = function(state) ona.send(ona.lookup('collector'), "
                          "'new') end }\n");
    uint64_t before = compiles(rt);
    char path[4096];
    snprintf(path, sizeof path, "%s/sys.lua", game_dir());
    ck_assert_int_eq(ona_runtime_reload(rt, path), 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(coll->count, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_str_eq(coll->items[i].text, "new");
    /* The four systems ran the new script; it was parsed once (the reload's own compile check
     * runs in a scratch state, outside the kept chunks). */
    ck_assert_uint_eq(compiles(rt) - before, 1);
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

/* A module file of bytecode: an ordinary system loads it (uncached), a sandboxed one is refused
 * it even after the ordinary one loaded it. */
START_TEST(test_lua_chunks_bytecode_never_kept) {
    game_dir_begin("chunks-binary");
    /* Bytecode of `return { word = 'bin' }`, made by this runtime's LuaJIT. */
    game_write("maker.lua",
               "local dir = ...\n"
               "local f = assert(io.open(dir.dir .. '/binmod.lua', 'wb'))\n"
               "f:write(string.dump(loadstring(\"return { word = 'bin' }\")))\n"
               "f:close()\n");
    game_write("plain.lua", "local m = require('binmod')\n"
                            "return { init = function(s, args) ona.send(args.report, m.word) end,\n"
                            "  process = function() end }\n");
    ona_runtime *rt = runtime();
    ona_system report = spawn_collector(rt);
    char pairs[4200];
    snprintf(pairs, sizeof pairs, "dir=%s", game_dir());
    spawn_lua(rt, "maker.lua", "maker", (ona_system){0}, pairs, 0, 0);
    spawn_lua(rt, "plain.lua", "plain", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(coll->count, 1);
    ck_assert_str_eq(coll->items[0].text, "bin");
    ona_spawn_desc sd = {.script = "plain.lua", .sandbox = true, .policy = ONA_POLICY_STOP};
    ona_system boxed;
    ck_assert_int_ne(ona_runtime_spawn(rt, &sd, &boxed), 0);
    ck_assert_msg(captured_logs_contain("a binary chunk (bytecode) is refused"), "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
    collector_free();
    game_dir_end();
}
END_TEST

int main(void) {
    Suite *s = suite_create("lua_chunks");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lua_chunks_many_systems_parse_once);
    tcase_add_test(tc, test_lua_chunks_changed_file_compiled_again);
    tcase_add_test(tc, test_lua_chunks_errors_name_the_line);
    tcase_add_test(tc, test_lua_chunks_reload_parses_once);
    tcase_add_test(tc, test_lua_chunks_bytecode_never_kept);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
