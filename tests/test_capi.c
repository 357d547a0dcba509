/*
 * test_capi.c: the embedding API refuses misuse (ona/runtime.h): NULL pointers, descs out of
 * range and enums out of their lists get ONA_EINVAL; the main-thread functions called from
 * another thread, or from inside a system's callback, get ONA_ETHREAD and change nothing. The
 * cases come from the reliability review's C reproducers (capi.c, wrongthread.c). The race test
 * steps frames on main while a second thread keeps calling the main-thread functions: under
 * TSan it shows that a refused call reads nothing main owns.
 */
#include "test_support.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define SCRIPTS ONA_SOURCE_DIR "/tests/games/capi"

static const char *const roots[] = {SCRIPTS, NULL};

static ona_runtime *make_runtime(void) {
    ona_runtime *rt = NULL;
    ck_assert_int_eq(
        ona_runtime_create(&(ona_runtime_desc){.threads = 2, .script_roots = roots}, &rt), 0);
    return rt;
}

static int create_rc(ona_runtime_desc desc) {
    ona_runtime *rt = NULL;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc == 0)
        ona_runtime_destroy(rt);
    else
        ck_assert_ptr_null(rt);
    return rc;
}

/* --- NULLs and bad descs --------------------------------------------------------------------- */

START_TEST(test_capi_create_refuses_bad_descs) {
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_create(NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.max_systems = ONA_MAX_SYSTEMS + 1}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.mailbox_capacity = 0x80000001u}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.threads = 100000}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.default_policy = 7}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.video = 9}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.window = {.vsync = 5}}), ONA_EINVAL);
    ck_assert_int_eq(create_rc((ona_runtime_desc){.window = {.width = -1}}), ONA_EINVAL);
    ck_assert(captured_logs_contain("ona_runtime_create: a desc field is out of range"));
    capture_logs_end();
    /* The largest values are taken. */
    ck_assert_int_eq(create_rc((ona_runtime_desc){.threads = 2,
                                                  .max_systems = ONA_MAX_SYSTEMS,
                                                  .mailbox_capacity = ONA_MAX_MAILBOX_CAPACITY,
                                                  .default_policy = ONA_POLICY_STOP}),
                     0);
    /* An empty list of roots is the default root. */
    ck_assert_int_eq(
        create_rc((ona_runtime_desc){.threads = 1, .script_roots = (const char *const[]){NULL}}),
        0);
}
END_TEST

START_TEST(test_capi_null_arguments) {
    ona_runtime *rt = make_runtime();
    ona_system sys = {0};
    capture_logs_begin();
    ona_runtime_destroy(NULL);
    /* The string builder (the capi reproducer's builder_null): NULL is refused, never touched. */
    ona_string_builder_init(NULL);
    ck_assert_int_eq(ona_string_builder_append(NULL, "x", 1), ONA_EINVAL);
    ck_assert_int_eq(ona_string_builder_append_cstr(NULL, "x"), ONA_EINVAL);
    ck_assert_int_eq(ona_string_builder_finish(NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn(NULL, NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn(rt, NULL, &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){0}, &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua"}, NULL),
                     ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn_native(rt, NULL, &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &(ona_system_desc){0}, &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn_native(NULL, &(ona_system_desc){.name = "x"}, &sys),
                     ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_kill(NULL, sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_kill(rt, (ona_system){0}), ONA_ESTALE);
    ck_assert_int_eq(ona_runtime_lookup(rt, NULL, &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_lookup(rt, "idle", NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_send(rt, sys, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_send(NULL, sys, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_step(NULL, 0.016), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_step(rt, -1.0), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_step(rt, NAN), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_step(rt, INFINITY), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_run(NULL, 1, 0), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_run(rt, 1, NAN), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_push_event(rt, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_push_event(rt, &(ona_event){.type = 999}), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_screenshot(rt, NULL), ONA_EINVAL);
    ona_texture tex;
    ck_assert_int_eq(ona_runtime_texture_load(rt, NULL, &tex), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_texture_load(rt, "nope.png", NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_texture_size(rt, (ona_texture){12345}, NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_reload(rt, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_reload(rt, "/does/not/exist.lua"), ONA_ENOENT);
    ck_assert_int_eq(ona_runtime_trace_begin(rt, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_trace_begin(NULL, "x.json"), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_trace_end(NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_trace_end(rt), 0); /* none being written */
    ck_assert_int_eq(ona_runtime_stats_get(NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_stats_get(rt, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_system_stats(rt, sys, NULL), ONA_EINVAL);
    ck_assert_uint_eq(ona_runtime_systems(NULL, NULL, 5), 0);
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 5), 0);
    ona_runtime_quit(NULL);
    ck_assert(!ona_runtime_quit_requested(NULL));
    ck_assert_int_eq(ona_runtime_stop_signal(NULL), 0);
    ck_assert_int_eq(ona_runtime_video_mode(NULL), ONA_VIDEO_NONE);
    int w = 1, h = 1;
    ona_runtime_video_size(NULL, &w, &h);
    ck_assert(w == 0 && h == 0);
    ona_runtime_video_size(rt, NULL, NULL);
    /* ctx functions with a NULL ctx. */
    ck_assert_uint_eq(ona_ctx_self(NULL).id, 0);
    ck_assert_ptr_null(ona_ctx_runtime(NULL));
    ck_assert_ptr_null(ona_ctx_user(NULL));
    ck_assert_uint_eq(ona_ctx_frame(NULL), 0);
    ona_ctx_quit(NULL);
    ck_assert(!ona_runtime_quit_requested(rt));
    ona_message m;
    ona_message_init(&m);
    ck_assert_int_eq(ona_ctx_try_send(NULL, sys, &m), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_try_receive(NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_spawn(NULL, &(ona_spawn_desc){.script = "idle.lua"}, &sys),
                     ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_lookup(NULL, "idle", &sys), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_kill(NULL, sys), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_draw(NULL, (ona_texture){0}, 0, NULL, 0), ONA_EINVAL);
    capture_logs_end();
    /* Nothing above changed the runtime. */
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_capi_spawn_descs_out_of_range) {
    ona_runtime *rt = make_runtime();
    ona_system sys = {7};
    char longname[ONA_MAX_NAME_BYTES + 2];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    capture_logs_begin();
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .policy = 42}, &sys),
        ONA_EINVAL);
    ck_assert_uint_eq(sys.id, 0);
    ck_assert(captured_logs_contain("policy is not DEFAULT, RESTART or STOP"));
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = longname}, &sys),
        ONA_EINVAL);
    ck_assert(captured_logs_contain("longer than ONA_MAX_NAME_BYTES"));
    ck_assert_int_eq(
        ona_runtime_spawn(
            rt, &(ona_spawn_desc){.script = "idle.lua", .mailbox_capacity = 0x80000001u}, &sys),
        ONA_EINVAL);
    ck_assert_int_eq(
        ona_runtime_spawn_native(rt, &(ona_system_desc){.name = "p", .policy = 9}, &sys),
        ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &(ona_system_desc){.name = longname}, &sys),
                     ONA_EINVAL);
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "m", .mailbox_capacity = 0x80000001u}, &sys),
        ONA_EINVAL);
    /* The arguments of a refused spawn are still released (ASan sees a leak otherwise). */
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_string(&w, "payload", 7);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .policy = 3, .args = &args},
                          &sys),
        ONA_EINVAL);
    capture_logs_end();
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 0);
    /* The longest name is taken. */
    longname[ONA_MAX_NAME_BYTES] = '\0';
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = longname}, &sys), 0);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, sys, &st), 0);
    ck_assert_str_eq(st.name, longname);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- The wrong thread ------------------------------------------------------------------------ */

typedef struct calls {
    int step, spawn, spawn_native, kill, send, reload, trace_begin, trace_end, push_event, stats,
        system_stats, run, reload_shaders;
    uint32_t systems;
} calls;

/* Calls every main-thread function once and records what each returned. */
static void call_main_only(ona_runtime *rt, ona_system target, calls *c) {
    ona_system s = {0};
    c->step = ona_runtime_step(rt, 0.016);
    c->spawn = ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = "t"}, &s);
    c->spawn_native = ona_runtime_spawn_native(rt, &(ona_system_desc){.name = "n"}, &s);
    c->kill = ona_runtime_kill(rt, target);
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, 1);
    ona_message_writer_end(&w);
    c->send = ona_runtime_send(rt, target, &m);
    ona_message_release(&m);
    c->reload = ona_runtime_reload(rt, "idle.lua");
    c->trace_begin = ona_runtime_trace_begin(rt, "/tmp/ona-capi-trace.json");
    c->trace_end = ona_runtime_trace_end(rt);
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    strcpy(e.as.key.name, "space");
    c->push_event = ona_runtime_push_event(rt, &e);
    ona_runtime_stats rs;
    c->stats = ona_runtime_stats_get(rt, &rs);
    ona_system_stats ss;
    c->system_stats = ona_runtime_system_stats(rt, target, &ss);
    ona_system list[8];
    c->systems = ona_runtime_systems(rt, list, 8);
    c->run = ona_runtime_run(rt, 1, 0.016);
    c->reload_shaders = ona_runtime_reload_shaders(rt);
    /* Refused too: it logs and leaves the runtime alone. */
    ona_runtime_destroy(rt);
}

static void assert_all_refused(const calls *c) {
    ck_assert_int_eq(c->step, ONA_ETHREAD);
    ck_assert_int_eq(c->spawn, ONA_ETHREAD);
    ck_assert_int_eq(c->spawn_native, ONA_ETHREAD);
    ck_assert_int_eq(c->kill, ONA_ETHREAD);
    ck_assert_int_eq(c->send, ONA_ETHREAD);
    ck_assert_int_eq(c->reload, ONA_ETHREAD);
    ck_assert_int_eq(c->trace_begin, ONA_ETHREAD);
    ck_assert_int_eq(c->trace_end, ONA_ETHREAD);
    ck_assert_int_eq(c->push_event, ONA_ETHREAD);
    ck_assert_int_eq(c->stats, ONA_ETHREAD);
    ck_assert_int_eq(c->system_stats, ONA_ETHREAD);
    ck_assert_uint_eq(c->systems, 0);
    ck_assert_int_eq(c->run, ONA_ETHREAD);
    ck_assert_int_eq(c->reload_shaders, ONA_ETHREAD);
}

typedef struct other_args {
    ona_runtime *rt;
    ona_system target;
    calls c;
} other_args;

static void *other_thread(void *arg) {
    other_args *a = arg;
    call_main_only(a->rt, a->target, &a->c);
    return NULL;
}

START_TEST(test_capi_second_thread_is_refused) {
    ona_runtime *rt = make_runtime();
    ona_system idle;
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = "idle"}, &idle), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    other_args a = {.rt = rt, .target = idle};
    capture_logs_begin();
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, other_thread, &a), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert(captured_logs_contain("ona_runtime_destroy called from another thread"));
    capture_logs_end();
    assert_all_refused(&a.c);
    /* Nothing changed: one system, alive, and the runtime still steps. */
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 1);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, idle, &st), 0);
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ona_runtime_destroy(rt);
}
END_TEST

/* A native system that calls the main-thread functions from inside its process callback (on
 * whichever thread runs it) and ona_ctx_spawn, which is the way to spawn there. */
typedef struct reenter {
    calls c;
    int ctx_spawn;
    bool done;
} reenter;

static ona_system reenter_target;

static int reenter_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    reenter *r = ona_ctx_user(ctx);
    if (!r->done) {
        r->done = true;
        call_main_only(ona_ctx_runtime(ctx), reenter_target, &r->c);
        ona_system s;
        r->ctx_spawn = ona_ctx_spawn(
            ctx, &(ona_spawn_desc){.script = "idle.lua", .name = "from_callback"}, &s);
    }
    return 0;
}

START_TEST(test_capi_inside_a_callback_is_refused) {
    ona_runtime *rt = make_runtime();
    ck_assert_int_eq(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = "idle"},
                                       &reenter_target),
                     0);
    static reenter r;
    memset(&r, 0, sizeof r);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "reenter", .process = reenter_process, .user = &r},
            &sys),
        0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ck_assert(r.done);
    ck_assert(captured_logs_contain("from inside a system's callback"));
    capture_logs_end();
    assert_all_refused(&r.c);
    ck_assert_int_eq(r.ctx_spawn, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ona_system found;
    ck_assert_int_eq(ona_runtime_lookup(rt, "from_callback", &found), 0);
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 3);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Values Lua refuses are refused from C too (new_api.c) ---------------------------------- */

START_TEST(test_capi_pure_functions_refuse_what_lua_refuses) {
    capture_logs_begin();
    ona_sprite out[4];
    ck_assert_uint_eq(ona_shape_quad(NULL, 0, out, 4), 0);
    ck_assert(captured_logs_contain("ona_shape_quad: p is NULL"));
    ck_assert_uint_eq(ona_shape_line(0, 0, 1, 1, &(ona_shape_style){.cap = 99}, out, 4), 0);
    ck_assert(captured_logs_contain("ona_shape_line: style->cap is not"));
    ck_assert_uint_eq(ona_shape_circle(0, 0, 5, &(ona_shape_style){.mode = 42}, out, 4), 0);
    ck_assert(captured_logs_contain("ona_shape_circle: style->mode is not"));
    ck_assert_uint_eq(ona_shape_rect(0, 0, 1, 1, &(ona_shape_style){.width = NAN}, out, 4), 0);
    ck_assert(captured_logs_contain("ona_shape_rect: style->width must be"));
    ck_assert_ptr_null(ona_shape_style_error(NULL));
    ck_assert_ptr_null(ona_shape_style_error(&(ona_shape_style){.mode = ONA_SHAPE_LINE}));
    ck_assert_uint_eq(ona_shape_rect(0, 0, 1, 1, NULL, out, 4), 1);
    ona_random r;
    ona_random_seed(&r, 7);
    ck_assert(ona_random_int(&r, 10, 5) == 10);
    ck_assert(captured_logs_contain("ona_random_int: the range is empty: 10 > 5"));
    double x = ona_random_float(&r, -INFINITY, INFINITY);
    ck_assert_msg(isfinite(x), "ona_random_float(-inf, inf) = %g", x);
    ck_assert(captured_logs_contain("ona_random_float: the bounds must be finite numbers"));
    ck_assert(isnan(ona_random_float(&r, NAN, 1)) == false);
    for (int i = 0; i < 100; i++) { /* bounds whose difference overflows a double */
        x = ona_random_float(&r, -1e308, 1e308);
        ck_assert_msg(isfinite(x) && x >= -1e308 && x < 1e308, "%g", x);
    }
    capture_logs_end();
}
END_TEST

typedef struct refusals {
    bool done;
    int camera_nan, camera_negative, line_cap, circle_mode, rect_width, fine;
} refusals;

static int refusals_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    refusals *r = ona_ctx_user(ctx);
    if (r->done)
        return 0;
    r->done = true;
    r->camera_nan = ona_ctx_camera(ctx, &(ona_camera_desc){.zoom = NAN});
    r->camera_negative = ona_ctx_camera(ctx, &(ona_camera_desc){.zoom = -2});
    r->line_cap = ona_ctx_line(ctx, 0, 0, 0, 1, 1, &(ona_shape_style){.cap = 99});
    r->circle_mode = ona_ctx_circle(ctx, 0, 0, 0, 5, &(ona_shape_style){.mode = 42});
    r->rect_width = ona_ctx_rect(ctx, 0, 0, 0, 1, 1, &(ona_shape_style){.width = -3});
    r->fine = ona_ctx_camera(ctx, &(ona_camera_desc){.zoom = 2});
    return 0;
}

START_TEST(test_capi_native_calls_refuse_what_lua_refuses) {
    ona_runtime *rt = make_runtime();
    static refusals r;
    memset(&r, 0, sizeof r);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "refusals", .process = refusals_process, .user = &r},
            &sys),
        0);
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ck_assert(r.done);
    ck_assert_int_eq(r.camera_nan, ONA_EINVAL);
    ck_assert_int_eq(r.camera_negative, ONA_EINVAL);
    ck_assert_int_eq(r.line_cap, ONA_EINVAL);
    ck_assert_int_eq(r.circle_mode, ONA_EINVAL);
    ck_assert_int_eq(r.rect_width, ONA_EINVAL);
    ck_assert_int_eq(r.fine, 0);
    ck_assert(captured_logs_contain("refusals: ona_ctx_camera: desc->zoom must be > 0"));
    ck_assert(captured_logs_contain("refusals: ona_ctx_line: style->cap is not"));
    ck_assert(captured_logs_contain("refusals: ona_ctx_circle: style->mode is not"));
    ck_assert(captured_logs_contain("refusals: ona_ctx_rect: style->width must be"));
    capture_logs_end();
    ona_runtime_destroy(rt);
}
END_TEST

/* A TEXT event whose 32 bytes hold no NUL is refused; 31 bytes reach Lua whole, not one more. */
START_TEST(test_capi_text_event_must_end_in_its_field) {
    ona_runtime *rt = make_runtime();
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "text_reader.lua", "reader", report, "", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ona_event e;
    memset(&e, 'A', sizeof e);
    e.type = ONA_EVENT_TEXT;
    capture_logs_begin();
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), ONA_EINVAL);
    ck_assert(captured_logs_contain("ona_runtime_push_event: a TEXT event's text has no NUL"));
    memset(&e, 'A', sizeof e);
    e.type = ONA_EVENT_KEY_DOWN;
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), ONA_EINVAL);
    memset(&e, 'B', sizeof e);
    e.type = ONA_EVENT_TEXT;
    e.as.text.text[31] = '\0';
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    ck_assert_msg(collected_contains("text 31 BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"), "%s\n%s",
                  collected_text(), captured_logs_text());
    capture_logs_end();
    ona_runtime_destroy(rt);
    collector_free();
}
END_TEST

/* wrongthread.c: a second thread keeps calling spawn, kill, trace and the statistics while main
 * steps frames. Every call is refused and, under TSan, none of them races with the frames. */
static atomic_bool race_stop;

static void *race_thread(void *arg) {
    ona_runtime *rt = arg;
    long refused = 0, other = 0;
    /* relaxed: a stop flag; the join orders the rest. */
    while (!atomic_load_explicit(&race_stop, memory_order_relaxed)) {
        ona_system s = {0};
        int rc = ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = "t"}, &s);
        rc == ONA_ETHREAD ? refused++ : other++;
        ona_runtime_kill(rt, (ona_system){1}) == ONA_ETHREAD ? refused++ : other++;
        ona_runtime_trace_begin(rt, "/tmp/ona-capi-race.json") == ONA_ETHREAD ? refused++ : other++;
        ona_runtime_trace_end(rt) == ONA_ETHREAD ? refused++ : other++;
        ona_system list[16];
        ona_runtime_systems(rt, list, 16) == 0 ? refused++ : other++;
        ona_runtime_stats st;
        ona_runtime_stats_get(rt, &st) == ONA_ETHREAD ? refused++ : other++;
    }
    return (void *)(intptr_t)(other ? -1 : refused);
}

START_TEST(test_capi_second_thread_races_nothing) {
    ona_runtime *rt = make_runtime();
    ona_system idle;
    ck_assert_int_eq(
        ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "idle.lua", .name = "idle"}, &idle), 0);
    atomic_store_explicit(&race_stop, false, memory_order_relaxed);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, race_thread, rt), 0);
    for (int f = 0; f < 200; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 0.016), 0);
    atomic_store_explicit(&race_stop, true, memory_order_relaxed);
    void *result;
    ck_assert_int_eq(pthread_join(th, &result), 0);
    ck_assert_msg((intptr_t)result >= 0, "a call from the second thread was not refused");
    ck_assert_uint_eq(ona_runtime_systems(rt, NULL, 0), 1);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *s = suite_create("capi");
    TCase *tc = tcase_create("capi");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_capi_create_refuses_bad_descs);
    tcase_add_test(tc, test_capi_null_arguments);
    tcase_add_test(tc, test_capi_spawn_descs_out_of_range);
    tcase_add_test(tc, test_capi_second_thread_is_refused);
    tcase_add_test(tc, test_capi_inside_a_callback_is_refused);
    tcase_add_test(tc, test_capi_second_thread_races_nothing);
    tcase_add_test(tc, test_capi_pure_functions_refuse_what_lua_refuses);
    tcase_add_test(tc, test_capi_native_calls_refuse_what_lua_refuses);
    tcase_add_test(tc, test_capi_text_event_must_end_in_its_field);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
