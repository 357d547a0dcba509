/*
 * test_hot_reload.c: hot reload against real files in a temporary folder while a headless
 * runtime runs: new behaviour after a save with the state kept and the reload hook called,
 * queued messages all delivered in order across a reload, a broken save logged with file:line
 * while the old code keeps running (and fixing it reloads), a rename-style save, required
 * modules and captured functions, the C API trigger, and a broken shader that keeps the old
 * program.
 */
#include "test_support.h"

#include "runtime_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("reload");
}

static void teardown(void) {
    game_dir_end();
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(bool watch, ona_video video, const char *shader_dir) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2,
                             .script_roots = roots,
                             .hot_reload = watch,
                             .video = video,
                             .window = {.width = 64, .height = 64, .shader_dir = shader_dir}};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    ck_assert_msg(rc == 0, "%s\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

/* The last text item the collector got, and the number after it. */
static const item *last_tagged(const char *tag) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return &coll->items[i];
    return NULL;
}

/* Steps frames until the collector has seen `tag` (file events arrive asynchronously). */
static void step_until(ona_runtime *rt, const char *tag) {
    for (int i = 0; i < 200 && !last_tagged(tag); i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_msg(last_tagged(tag) != NULL, "never saw %s; log:\n%s", tag, captured_logs_text());
}

static const char *COUNTER_V1 =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    ona.send(state.report, 'v1', state.n, state.migrated == true)\n"
    "  end,\n"
    "}\n";

static const char *COUNTER_V2 =
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.n = 0 end,\n"
    "  reload = function(state) state.migrated = true end,\n"
    "  process = function(state)\n"
    "    state.n = state.n + 1\n"
    "    ona.send(state.report, 'v2', state.n, state.migrated == true)\n"
    "  end,\n"
    "}\n";

START_TEST(test_hot_reload_new_code_keeps_state_and_calls_hook) {
    game_write("counter.lua", COUNTER_V1);
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    step_until(rt, "v1");
    ona_runtime_step(rt, 1.0 / 60);
    double before = last_tagged("v1")[1].number;
    ck_assert(before >= 2);
    game_write("counter.lua", COUNTER_V2);
    step_until(rt, "v2");
    const item *v2 = last_tagged("v2");
    /* The count went on from where v1 left it: the state table was kept. */
    ck_assert_msg(v2[1].number > before, "%g after %g", v2[1].number, before);
    ck_assert(v2[2].boolean); /* reload(state) ran */
    ck_assert(captured_logs_contain("counter.lua: 1 reloaded"));
    ona_system_stats st;
    ona_system h;
    ona_runtime_lookup(rt, "counter", &h);
    ona_runtime_system_stats(rt, h, &st);
    ck_assert_uint_eq(st.errors, 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_hot_reload_broken_save_keeps_old_code_then_fix_reloads) {
    game_write("counter.lua", COUNTER_V1);
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    step_until(rt, "v1");
    game_write_in_place("counter.lua",
                        "return {\n  process = function(state)\n    local = 1\n  end,\n}\n");
    for (int i = 0; i < 200 && !captured_logs_contain("reload of"); i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    ck_assert_msg(captured_logs_contain("counter.lua:3:"), "%s", captured_logs_text());
    ck_assert(captured_logs_contain("the old code keeps running"));
    /* Still running v1, counting on. */
    int seen = coll->count;
    ona_runtime_step(rt, 1.0 / 60);
    ona_runtime_step(rt, 1.0 / 60);
    ck_assert_int_gt(coll->count, seen);
    ck_assert(last_tagged("v2") == NULL);
    game_write("counter.lua", COUNTER_V2);
    step_until(rt, "v2");
    ona_runtime_destroy(rt);
}
END_TEST

/* A receiver that takes one message a turn and forwards it; its mailbox is kept full by a
 * sender. Reloading the receiver must not lose or reorder anything. */
static const char *SLOW_V1 = "return {\n"
                             "  init = function(state, args) state.report = args.report end,\n"
                             "  process = function(state)\n"
                             "    local from, v = ona.try_receive()\n"
                             "    if from then ona.send(state.report, 'v1', v) end\n"
                             "  end,\n"
                             "}\n";
static const char *SLOW_V2 = "return {\n"
                             "  init = function(state, args) state.report = args.report end,\n"
                             "  process = function(state)\n"
                             "    local from, v = ona.try_receive()\n"
                             "    if from then ona.send(state.report, 'v2', v) end\n"
                             "  end,\n"
                             "}\n";
static const char *FLOOD = "return {\n"
                           "  process = function(state)\n"
                           "    if state.done then return end\n"
                           "    local to = ona.lookup('slow')\n"
                           "    for i = 1, 40 do ona.send(to, i) end\n"
                           "    state.done = true\n"
                           "  end,\n"
                           "}\n";

START_TEST(test_hot_reload_keeps_queued_messages_in_order) {
    game_write("slow.lua", SLOW_V1);
    game_write("flood.lua", FLOOD);
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "slow.lua", "slow", report, "", 4, 0);
    spawn_lua(rt, "flood.lua", "flood", report, "", 0, 0);
    for (int i = 0; i < 5; i++)
        ona_runtime_step(rt, 1.0 / 60);
    game_write("slow.lua", SLOW_V2);
    step_until(rt, "v2");
    for (int i = 0; i < 60; i++)
        ona_runtime_step(rt, 1.0 / 60);
    /* 1..40 exactly once, in order, the tag switching from v1 to v2 once. */
    int next = 1;
    bool switched = false;
    for (int i = 0; i + 1 < coll->count; i += 2) {
        const char *tag = coll->items[i].text;
        if (strcmp(tag, "v2") == 0)
            switched = true;
        else
            ck_assert_msg(!switched, "v1 after v2");
        ck_assert_int_eq((int)coll->items[i + 1].number, next);
        next++;
    }
    ck_assert_int_eq(next, 41);
    ona_runtime_destroy(rt);
}
END_TEST

static const char *USES_MODULE =
    "local helper = require('helper')\n"
    "return {\n"
    "  init = function(state, args) state.report = args.report; state.fn = helper.value end,\n"
    "  process = function(state)\n"
    "    ona.send(state.report, 'module', helper.value(), 'captured', state.fn())\n"
    "  end,\n"
    "}\n";

START_TEST(test_hot_reload_required_module_and_captured_functions) {
    game_write("helper.lua", "return { value = function() return 1 end }\n");
    game_write("user.lua", USES_MODULE);
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "user.lua", "user", report, "", 0, 0);
    step_until(rt, "module");
    ck_assert(last_tagged("module")[1].number == 1);
    game_write("helper.lua", "return { value = function() return 2 end }\n");
    for (int i = 0; i < 200 && last_tagged("module")[1].number != 2; i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    const item *m = last_tagged("module");
    ck_assert_msg(m[1].number == 2, "module still returns %g\n%s", m[1].number,
                  captured_logs_text());
    /* state.fn was captured from the old module before the reload: it runs the new code. */
    ck_assert(m[3].number == 2);
    ona_runtime_destroy(rt);
}
END_TEST

/* Many systems on one module reload in parallel on the runtime's threads: every one of them
 * gets the new code, with its state kept, and main counts them all. */
START_TEST(test_hot_reload_many_systems_in_parallel) {
    enum { SYSTEMS = 64 };
    game_write("helper.lua", "return { value = function() return 1 end }\n");
    game_write("user.lua", USES_MODULE);
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    for (int i = 0; i < SYSTEMS; i++)
        spawn_lua(rt, "user.lua", "user", report, "", 0, 0);
    step_until(rt, "module");
    game_write("helper.lua", "return { value = function() return 2 end }\n");
    ck_assert_int_eq(ona_runtime_reload(rt, "helper.lua"), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(captured_logs_contain("helper.lua: 64 reloaded"), "%s", captured_logs_text());
    for (int i = 0; i < 3; i++) /* the collector takes a frame's sends in the next frame */
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    /* The last turn of each of the 64 ran the new code, and so did its captured function. */
    int twos = 0, seen = 0;
    for (int i = coll->count - 1; i >= 0 && seen < SYSTEMS; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "module") == 0) {
            seen++;
            twos += coll->items[i + 1].number == 2 && coll->items[i + 3].number == 2;
        }
    ck_assert_int_eq(twos, SYSTEMS);
    ona_runtime_destroy(rt);
}
END_TEST

/* A reload re-runs the changed module, the modules that required it, and the script; another
 * module is not re-run and keeps its module-level data. */
START_TEST(test_hot_reload_only_what_changed_and_its_requirers) {
    game_write("stable.lua", "local count = 0\n"
                             "return { bump = function() count = count + 1; return count end }\n");
    game_write("tune.lua", "return { x = 1 }\n");
    game_write("uses.lua", "local tune = require('tune')\n"
                           "return { x = tune.x * 10 } -- taken once, when this module runs\n");
    game_write("mix.lua", "local stable, uses = require('stable'), require('uses')\n"
                          "return {\n"
                          "  init = function(state, args) state.report = args.report end,\n"
                          "  process = function(state)\n"
                          "    ona.send(state.report, 'mix', stable.bump(), uses.x)\n"
                          "  end,\n"
                          "}\n");
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "mix.lua", "mix", report, "", 0, 0);
    step_until(rt, "mix");
    ck_assert_double_eq(last_tagged("mix")[2].number, 10);
    game_write("tune.lua", "return { x = 2 }\n");
    for (int i = 0; i < 300 && last_tagged("mix")[2].number != 20; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    const item *m = last_tagged("mix");
    ck_assert_msg(m[2].number == 20, "uses.lua was not re-run: %g\n%s", m[2].number,
                  captured_logs_text());
    /* stable.lua was not re-run: its count went on over the reload. */
    ck_assert_double_gt(m[1].number, 2);
    game_write("stable.lua", "local count = 100\n"
                             "return { bump = function() count = count + 1; return count end }\n");
    for (int i = 0; i < 300 && last_tagged("mix")[1].number < 100; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(2000);
    }
    ck_assert_double_gt(last_tagged("mix")[1].number, 100); /* re-run: new module-level data */
    ona_runtime_destroy(rt);
}
END_TEST

/* The reload runs with the state's JIT compiler off (its code runs once), then switches it back
 * on: new code is compiled as before, and a script that switched the compiler off keeps it off. */
static const char *JIT_SYSTEM =
    "local util = require('jit.util')\n"
    "local function traces()\n"
    "  local n = 0\n"
    "  while util.traceinfo(n + 1) do n = n + 1 end\n"
    "  return n\n"
    "end\n"
    "return {\n"
    "  init = function(state, args)\n"
    "    state.report = args.report\n"
    "    if args.off then jit.off() end\n"
    "  end,\n"
    "  process = function(state)\n"
    "    local before, x = traces(), 0\n"
    "    for i = 1, 2000 do x = x + i %% 7 end\n"
    "    ona.send(state.report, '%s', ona.name(), jit.status(), traces() - before, x)\n"
    "  end,\n"
    "}\n";

static const item *last_from(const char *tag, const char *name) {
    for (int i = coll->count - 1; i >= 1; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, name) == 0 &&
            coll->items[i - 1].type == ONA_VALUE_STRING &&
            strcmp(coll->items[i - 1].text, tag) == 0)
            return &coll->items[i];
    return NULL;
}

START_TEST(test_hot_reload_keeps_the_jit_as_the_script_left_it) {
    char text[1024];
    snprintf(text, sizeof text, JIT_SYSTEM, "v1");
    game_write("jitted.lua", text);
    ona_runtime *rt = make_runtime(false, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "jitted.lua", "on", report, "", 0, 0);
    spawn_lua(rt, "jitted.lua", "off", report, "off=true", 0, 0);
    step_until(rt, "v1");
    snprintf(text, sizeof text, JIT_SYSTEM, "v2");
    game_write_in_place("jitted.lua", text);
    ck_assert_int_eq(ona_runtime_reload(rt, "jitted.lua"), 0);
    for (int i = 0; i < 50 && !(last_from("v2", "on") && last_from("v2", "off")); i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    const item *on = last_from("v2", "on"), *off = last_from("v2", "off");
    ck_assert_msg(on && off, "no v2 report\n%s", captured_logs_text());
    ck_assert(on[1].boolean);            /* switched back on after the reload */
    ck_assert_double_gt(on[2].number, 0); /* and the new code's loop was compiled */
    ck_assert(!off[1].boolean);          /* the script's jit.off() stands */
    ck_assert_double_eq(off[2].number, 0);
    ck_assert_double_eq(on[3].number, off[3].number);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_hot_reload_c_api_without_watching) {
    game_write("counter.lua", COUNTER_V1);
    ona_runtime *rt = make_runtime(false, ONA_VIDEO_NONE, NULL);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "counter.lua", "counter", report, "", 0, 0);
    step_until(rt, "v1");
    game_write_in_place("counter.lua", COUNTER_V2);
    /* Not watching: nothing changes by itself... */
    for (int i = 0; i < 5; i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    ck_assert(last_tagged("v2") == NULL);
    /* ...until the embedder asks. */
    ck_assert_int_eq(ona_runtime_reload(rt, "counter.lua"), 0);
    step_until(rt, "v2");
    ck_assert_int_eq(ona_runtime_reload(rt, NULL), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

static void copy_shader(const char *name, const char *inject) {
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/shaders/%s", ONA_SOURCE_DIR, name);
    snprintf(to, sizeof to, "%s/shaders/%s", game_dir(), name);
    FILE *in = fopen(from, "r");
    FILE *out = fopen(to, "w");
    ck_assert(in && out);
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        if (inject && strstr(line, "void main"))
            fputs(inject, out);
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

START_TEST(test_hot_reload_broken_shader_keeps_old_program) {
    char shaders[300];
    snprintf(shaders, sizeof shaders, "%s/shaders", game_dir());
    ck_assert_int_eq(mkdir(shaders, 0700), 0);
    copy_shader("sprite.vert", NULL);
    copy_shader("sprite.frag", NULL);
    game_write("draw.lua", "return { process = function() ona.gfx.clear(1, 0, 0) "
                           "ona.gfx.text(2, 2, 'X', { scale = 4 }) end }\n");
    ona_runtime *rt = make_runtime(true, ONA_VIDEO_OFFSCREEN, shaders);
    ona_spawn_desc d = {.script = "draw.lua"};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
    ona_runtime_step(rt, 1.0 / 60);
    copy_shader("sprite.frag", "this is not GLSL;\n");
    for (int i = 0; i < 200 && !captured_logs_contain("sprite.frag:"); i++) {
        ona_runtime_step(rt, 1.0 / 60);
        usleep(2000);
    }
    ck_assert_msg(captured_logs_contain("sprite.frag:"), "%s", captured_logs_text());
    /* Frames still render with the old program. */
    char shot[400];
    snprintf(shot, sizeof shot, "%s/shot.png", game_dir());
    ck_assert_int_eq(ona_runtime_screenshot(rt, shot), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(access(shot, R_OK), 0);
    ona_runtime_destroy(rt);
}
END_TEST

/* The runtime's event loop exists whether or not files are watched, and main runs what is ready
 * on it once a frame: a timer due now fires at the next step, not before, and not again. The
 * watcher's handles share the loop with it and still deliver changes. */
static int timer_fired;
static void on_timer(uv_timer_t *t) {
    (void)t;
    timer_fired++;
}

START_TEST(test_hot_reload_runtime_loop_runs_timers_once_a_frame) {
    for (int watch = 0; watch <= 1; watch++) {
        ona_runtime *rt = make_runtime(watch, ONA_VIDEO_NONE, NULL);
        uv_timer_t timer;
        ck_assert_int_eq(uv_timer_init(&rt->loop, &timer), 0);
        timer_fired = 0;
        ck_assert_int_eq(uv_timer_start(&timer, on_timer, 0, 0), 0);
        ck_assert_int_eq(timer_fired, 0);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_int_eq(timer_fired, 1);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_int_eq(timer_fired, 1);
        /* Left open on purpose: destroy closes what the loop still holds. */
        ona_runtime_destroy(rt);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("hot_reload");
    TCase *tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_hot_reload_new_code_keeps_state_and_calls_hook);
    tcase_add_test(tc, test_hot_reload_broken_save_keeps_old_code_then_fix_reloads);
    tcase_add_test(tc, test_hot_reload_keeps_queued_messages_in_order);
    tcase_add_test(tc, test_hot_reload_required_module_and_captured_functions);
    tcase_add_test(tc, test_hot_reload_c_api_without_watching);
    tcase_add_test(tc, test_hot_reload_many_systems_in_parallel);
    tcase_add_test(tc, test_hot_reload_only_what_changed_and_its_requirers);
    tcase_add_test(tc, test_hot_reload_keeps_the_jit_as_the_script_left_it);
    tcase_add_test(tc, test_hot_reload_runtime_loop_runs_timers_once_a_frame);
    tcase_add_test(tc, test_hot_reload_broken_shader_keeps_old_program);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
