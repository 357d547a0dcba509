/*
 * test_lua_pool.c: Lua states built ahead of their spawns (bindings/lua_pool.c). A system that
 * takes one behaves as one whose state was built at its spawn: the same math.random draws, the
 * same globals and loaded modules (nothing left by an earlier system), the same counted memory,
 * the same refusal of a cap its build does not fit in. The comparison runs the same spawns twice:
 * once with the ready states, once under a pass-through allocator hook (ready states are made
 * only while the hook is libc's, so there every state is built at its spawn). The ready states
 * are topped up between frames, and a spawn inside a turn takes one too.
 */
#include "test_support.h"

#include "lua_host.h"
#include "runtime_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
}

static uint32_t ready(ona_runtime *rt) {
    return ona__lua_prebuilt_count(&rt->core);
}

/* Leaves a global, a changed library and a loaded module behind, then ends. */
static const char LITTER_LUA[] = "leftover = 'litter'\n"
                                 "string.litter = true\n"
                                 "package.loaded.litter = {}\n"
                                 "return { process = function() end }\n";

/* Reports, from its chunk and init: math.random draws, the global names and package.loaded's
 * names in pairs order (sorted where the LuaJIT's hash seed is not fixed; as a count and a
 * checksum, since a report holds 160 bytes), what the litterer left, and the counted memory at
 * the end of the chunk. */
static const char REPORT_LUA[] =
    "local at_chunk = ona.memory()\n"
    "local gc_at_chunk = collectgarbage('count')\n"
    "local function names(t, sorted)\n"
    "  local list = {}\n"
    "  for k in pairs(t) do list[#list + 1] = tostring(k) end\n"
    "  if sorted then table.sort(list) end\n"
    "  local text, h = table.concat(list, ','), 0\n"
    "  for i = 1, #text do h = (h * 31 + text:byte(i)) % 2147483647 end\n"
    "  return #list .. ':' .. h .. (text:find('leftover') and ':leftover' or '')\n"
    "end\n"
    "return { init = function(state, args)\n"
    "  local a, b = math.random(), math.random(1000000)\n"
    "  ona.send(args.report, ('%.17g|%d|%s|%s|%s|%s|%s|%d|%.17g'):format(a, b,\n"
    "    names(_G, args.sorted), names(package.loaded, args.sorted), tostring(leftover),\n"
    "    tostring(string.litter), tostring(package.loaded.litter), at_chunk, gc_at_chunk))\n"
    "end, process = function() end }\n";

/* A runtime whose states are built ahead (`prebuilt`), or, under a hook that is not libc's
 * (failing nothing), one where every state is built at its spawn. */
static ona_runtime *runtime_for(bool prebuilt, uint32_t threads, uint64_t seed) {
    if (!prebuilt)
        fault_alloc_begin(LONG_MAX, false);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc d = {.threads = threads, .script_roots = roots, .seed = seed};
    return create_runtime(&d);
}

static void runtime_done(ona_runtime *rt, bool prebuilt) {
    ona_runtime_destroy(rt);
    if (!prebuilt)
        fault_alloc_end();
}

/* The same run in a runtime whose states are built ahead (`prebuilt`) or at each spawn: a
 * litterer that ends, then a reporter. The report, malloc'd. */
static char *report_run(bool prebuilt) {
    ona_runtime *rt = runtime_for(prebuilt, 2, 11);
    ck_assert_uint_eq(ready(rt), prebuilt ? ONA__LUA_PREBUILT : 0);
    ona_system report = spawn_collector(rt);
    ona_system litter = spawn_lua(rt, "litter.lua", "litter", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(ona_runtime_kill(rt, litter), 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    uint32_t before = ready(rt);
    ck_assert_uint_eq(before, prebuilt ? ONA__LUA_PREBUILT : 0);
    spawn_lua(rt, "report.lua", "report", report,
              ONA_LUAJIT_FIXED_SEED ? "sorted=false" : "sorted=true", 0, 0);
    /* The reporter took a ready state (or there was none to take). */
    ck_assert_uint_eq(ready(rt), prebuilt ? before - 1 : 0);
    ck_assert_int_eq(ona_runtime_run(rt, 2, 0), 0);
    ck_assert_int_eq(coll->count, 1);
    char *text = strdup(coll->items[0].text);
    runtime_done(rt, prebuilt);
    collector_free();
    return text;
}

START_TEST(test_lua_pool_state_as_fresh) {
    game_dir_begin("pool-fresh");
    game_write("litter.lua", LITTER_LUA);
    game_write("report.lua", REPORT_LUA);
    char *built_ahead = report_run(true);
    char *built_at_spawn = report_run(false);
    ck_assert_str_eq(built_ahead, built_at_spawn);
    /* Nothing of the litterer (which took a ready state too) reached the reporter. */
    ck_assert_msg(strstr(built_ahead, "|nil|nil|nil|") != NULL, "%s", built_ahead);
    ck_assert_ptr_null(strstr(built_ahead, "leftover"));
    free(built_ahead);
    free(built_at_spawn);
    game_dir_end();
}
END_TEST

/* A cap the common part of a state does not fit in fails the spawn as it does without the ready
 * states: the same code and the same reason. */
static int capped_spawn(bool prebuilt, char *reason, size_t size) {
    ona_runtime *rt = runtime_for(prebuilt, 1, 0);
    ona_spawn_desc sd = {.script = "report.lua", .memory_cap = 16384};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &sd, &h);
    const char *at = strstr(captured_logs_text(), "report.lua: exceeded its memory cap");
    snprintf(reason, size, "%s", at ? at : "(no reason logged)");
    *strchrnul(reason, '\n') = '\0';
    /* The refused spawn took a ready state and left the rest. */
    ck_assert_uint_eq(ready(rt), prebuilt ? ONA__LUA_PREBUILT - 1 : 0);
    runtime_done(rt, prebuilt);
    return rc;
}

START_TEST(test_lua_pool_cap_refused_as_fresh) {
    game_dir_begin("pool-cap");
    game_write("report.lua", REPORT_LUA);
    char ahead[256], at_spawn[256];
    ck_assert_int_eq(capped_spawn(true, ahead, sizeof ahead), ONA_ENOMEM);
    capture_logs_end();
    capture_logs_begin();
    ck_assert_int_eq(capped_spawn(false, at_spawn, sizeof at_spawn), ONA_ENOMEM);
    ck_assert_str_eq(ahead, at_spawn);
    ck_assert_ptr_nonnull(strstr(ahead, "of 16384 bytes while loading"));
    game_dir_end();
}
END_TEST

/* The ready states are topped up between frames; a burst past them builds its own; a spawn
 * inside a turn (on a worker) takes one. */
static const char SPAWNER_LUA[] = "return { init = function(state, args)\n"
                                  "  for i = 1, args.n do\n"
                                  "    ona.spawn('child.lua', { report = args.report },\n"
                                  "              { name = 'child' .. i })\n"
                                  "  end\n"
                                  "end, process = function() end }\n";
static const char CHILD_LUA[] = "return { init = function(state, args)\n"
                                "  ona.send(args.report, ona.name() .. ' ' .. math.random(1000))\n"
                                "end, process = function() end }\n";

START_TEST(test_lua_pool_refilled_between_frames) {
    game_dir_begin("pool-refill");
    game_write("spawner.lua", SPAWNER_LUA);
    game_write("child.lua", CHILD_LUA);
    ona_runtime *rt = runtime_for(true, 2, 0);
    ona_system report = spawn_collector(rt);
    ck_assert_uint_eq(ready(rt), ONA__LUA_PREBUILT);
    /* A burst of more spawns than ready states, between frames. */
    for (int i = 0; i < ONA__LUA_PREBUILT + 2; i++)
        spawn_lua(rt, "child.lua", "burst", report, "", 0, 0);
    ck_assert_uint_eq(ready(rt), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* Topped up at the frame's start; the children's turns took none. */
    ck_assert_uint_eq(ready(rt), ONA__LUA_PREBUILT);
    /* Three spawns inside a turn. */
    spawn_lua(rt, "spawner.lua", "spawner", report, "n=3", 0, 0);
    ck_assert_uint_eq(ready(rt), ONA__LUA_PREBUILT - 1);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(ready(rt), ONA__LUA_PREBUILT - 3);
    ck_assert_int_eq(ona_runtime_run(rt, 3, 0), 0);
    ck_assert_uint_eq(ready(rt), ONA__LUA_PREBUILT);
    ck_assert_int_eq(coll->count, ONA__LUA_PREBUILT + 2 + 3);
    ASSERT_COLLECTED("child3 ");
    ck_assert_int_eq(captured_logs_count("error"), 0);
    runtime_done(rt, true);
    collector_free();
    game_dir_end();
}
END_TEST

int main(void) {
    Suite *s = suite_create("lua_pool");
    TCase *tc = tcase_create("lua_pool");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_lua_pool_state_as_fresh);
    tcase_add_test(tc, test_lua_pool_cap_refused_as_fresh);
    tcase_add_test(tc, test_lua_pool_refilled_between_frames);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
