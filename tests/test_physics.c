/*
 * test_physics.c: ona.physics and ona_physics_* on Box2D (README, Physics): a ball comes to rest
 * on a box where Box2D puts it (the Lua world against the same world built through the C API,
 * and the geometry), contacts begin and end with the users and a normal from a to b, the same
 * digest of three worlds kicked by another system on 1, 2 and 4 threads, every misuse raising
 * at the author's line, destroyed bodies, worlds refused by messages, Box2D's bytes counted
 * against the system's cap (a world past it freed, the system failing cleanly when uncaught),
 * rays and boxes sorted, and the physics sample headless.
 */
#include "test_support.h"

#include "ona/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/physics", NULL};
static const char *const sample_roots[] = {ONA_SOURCE_DIR "/samples/physics", NULL};

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static ona_runtime *runtime_on(uint32_t threads) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots};
    return create_runtime(&desc);
}

/* The world of rest.lua through the C API: the ball's centre after `steps` steps. */
static void rest_in_c(int steps, float *x, float *y, bool *awake) {
    ona_physics_world_desc wd = {.gravity_y = 900, .meter = 64};
    ona_physics_world *w = NULL;
    ck_assert_int_eq(ona_physics_world_create(&wd, &w), 0);
    ona_physics_body_desc d;
    ona_physics_body_defaults(&d);
    d.x = 160, d.y = 200, d.width = 200, d.height = 20;
    ona_physics_body ground, ball;
    ck_assert_int_eq(ona_physics_body_create(w, &d, &ground), 0);
    ona_physics_body_defaults(&d);
    d.type = ONA_PHYSICS_DYNAMIC, d.shape = ONA_PHYSICS_CIRCLE;
    d.x = 160, d.y = 0, d.radius = 10, d.friction = 0.3f;
    ck_assert_int_eq(ona_physics_body_create(w, &d, &ball), 0);
    ck_assert_uint_eq(ground, 1);
    ck_assert_uint_eq(ball, 2);
    for (int i = 0; i < steps; i++)
        ck_assert_int_eq(ona_physics_step(w, (float)(1.0 / 60), NULL, NULL), 0);
    ck_assert_int_eq(ona_physics_body_position(w, ball, x, y), 0);
    ck_assert_int_eq(ona_physics_body_awake(w, ball, awake), 0);
    ona_physics_world_destroy(w);
}

START_TEST(test_ball_rests_where_box2d_says) {
    ona_runtime *rt = runtime_on(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "rest.lua", "rest", report, "steps=300", 0, 0);
    for (int f = 0; f < 3; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(coll->count == 8, "%s\n%s", collected_text(), captured_logs_text());
    ck_assert_str_eq(coll->items[0].text, "rest");
    double x = coll->items[1].number, y = coll->items[2].number;
    float cx, cy;
    bool awake;
    rest_in_c(300, &cx, &cy, &awake);
    /* Bit for bit the same world as the C API's. */
    ck_assert_msg((float)x == cx && (float)y == cy, "lua (%.9g, %.9g) c (%.9g, %.9g)", x, y, cx,
                  cy);
    /* Where the geometry puts it: on the box's top (190), less Box2D's skin (0.01 m = 0.64 px),
     * within its allowed penetration (0.005 m = 0.32 px); asleep, still. */
    ck_assert_msg(fabs(x - 160) < 1e-3, "x %.9g", x);
    ck_assert_msg(y > 180 - 0.64 - 0.01 && y < 180 + 0.33, "y %.9g", y);
    ck_assert_double_eq(coll->items[3].number, 0);
    ck_assert_double_eq(coll->items[4].number, 0);
    ck_assert(!coll->items[5].boolean);
    ck_assert(!awake);
    /* Box2D's bytes are the system's: the world alone is past 100 KiB (its stack allocator),
     * and ona.memory() grew by at least that. */
    ck_assert_msg(coll->items[7].number > 100 * 1024, "world %.0f bytes", coll->items[7].number);
    ck_assert_msg(coll->items[6].number >= 100 * 1024, "ona.memory() grew by %.0f",
                  coll->items[6].number);
}
END_TEST

START_TEST(test_contacts_begin_and_end) {
    ona_runtime *rt = runtime_on(2);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "contacts.lua", "contacts", report, "", 0, 0);
    for (int f = 0; f < 95; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(!captured_logs_contain("error"), "%s", captured_logs_text());
    /* ground is body 1, the sensor 2, the ball 3: a is the lower. */
    int begin_sensor = 0, end_sensor = 0, begin_ground = 0, end_ground = 0, normal = 0;
    for (int i = 0; i < coll->count; i++) {
        int frame;
        char type[8], a[16], b[16];
        const char *t = coll->items[i].text;
        if (strncmp(t, "normal", 6) == 0) {
            ck_assert_msg(strncmp(t, "normal 0.000 -1.000", 19) == 0 ||
                              strncmp(t, "normal -0.000 -1.000", 20) == 0,
                          "%s", t);
            normal++;
            continue;
        }
        if (strncmp(t, "destroyed", 9) == 0) {
            ck_assert_msg(strstr(t, "contacts.lua:") &&
                              strstr(t, "body:position: the body was destroyed"),
                          "%s", t);
            continue;
        }
        ck_assert_int_eq(sscanf(t, "%d %7s %15s %15s", &frame, type, a, b), 4);
        ck_assert_str_eq(b, "ball");
        bool begin = strcmp(type, "begin") == 0;
        ck_assert(begin || strcmp(type, "end") == 0);
        if (strcmp(a, "sensor") == 0)
            *(begin ? &begin_sensor : &end_sensor) = frame;
        else if (strcmp(a, "ground") == 0)
            *(begin ? &begin_ground : &end_ground) = frame;
        else
            ck_abort_msg("unexpected contact %s", t);
    }
    ck_assert_msg(begin_sensor > 0 && end_sensor > begin_sensor && begin_ground > end_sensor, "%s",
                  collected_text());
    ck_assert_int_eq(end_ground, 80); /* the ball's destruction ends it, in the next step */
    ck_assert_int_eq(normal, 1);
}
END_TEST

/* Three piles kicked by the kicker, on `threads` threads: their digests, by pile. */
static void piles_on(uint32_t threads, char *out, size_t size) {
    ona_runtime *rt = runtime_on(threads);
    ona_system report = spawn_collector(rt);
    for (int p = 1; p <= 3; p++) {
        char name[8], args[32];
        snprintf(name, sizeof name, "pile%d", p);
        snprintf(args, sizeof args, "index=%d frames=120", p);
        spawn_lua(rt, "pile.lua", name, report, args, 0, 0);
    }
    spawn_lua(rt, "kicker.lua", "kicker", report, "", 0, 0);
    for (int f = 0; f < 121; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(coll->count == 3, "%s\n%s", collected_text(), captured_logs_text());
    out[0] = 0;
    for (int p = 1; p <= 3; p++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "pile%d ", p);
        for (int i = 0; i < coll->count; i++)
            if (strncmp(coll->items[i].text, prefix, strlen(prefix)) == 0) {
                ck_assert_msg(strstr(coll->items[i].text, "contacts=0 ") == NULL, "no contacts");
                strncat(out, coll->items[i].text, size - strlen(out) - 1);
            }
    }
    collector_free();
}

START_TEST(test_same_digest_on_1_2_and_4_threads) {
    /* Each pile's contact count, the hash of every body's exact position and angle, and its
     * first body's. */
    static char one[1024], two[1024], four[1024];
    piles_on(1, one, sizeof one);
    piles_on(2, two, sizeof two);
    piles_on(4, four, sizeof four);
    ck_assert_str_eq(one, two);
    ck_assert_str_eq(one, four);
}
END_TEST

START_TEST(test_bad_arguments_raise_at_the_authors_line) {
    ona_runtime *rt = runtime_on(1);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "bad.lua", "bad", report, "", 0, 0);
    for (int f = 0; f < 3; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    static const char *const expect[] = {
        "ona.physics.world: bad argument #1 (meter (pixels per meter) must be a number > 0",
        "ona.physics.world: bad argument #1 (gravity must be a table {gx, gy} of finite",
        "world:body: bad argument #2 (radius must be a number larger than Box2D's slop",
        "world:body: bad argument #2 (shape must be \"box\", \"circle\", \"polygon\"",
        "world:body: bad argument #2 (type must be \"static\", \"dynamic\" or \"kinematic\")",
        "world:body: bad argument #2 (unknown field 'colour'",
        "world:body: bad argument #2 (a polygon's points must make a convex polygon",
        "world:body: bad argument #2 (points must be a flat list",
        "world:body: bad argument #2 (user must be a value a message can carry: user is a f",
        "world:body: bad argument #2 (x must be a finite number)",
        "world:step: bad argument #2 (dt must be a number of seconds > 0 and <= 1)",
        "world:step: call it on a world (world:...), not with '.'",
        "body:impulse: bad argument #2 (number expected, got string)",
        "world:raycast: bad argument #5 (number expected, got no value)",
        "is an ona.physics world, which belongs to the system that made it",
        "msg.body is an ona.physics body, which belongs to its world's system",
        "body:position: the body was destroyed (body:destroy())",
        "body:destroy: the body was destroyed (body:destroy())",
        "world:step: the world was destroyed (world:destroy())",
    };
    size_t n = sizeof expect / sizeof expect[0];
    ck_assert_msg(coll->count == (int)(3 * n + 1), "%d items:\n%s\n%s", coll->count,
                  collected_text(), captured_logs_text());
    for (size_t i = 0; i < n; i++) {
        const item *what = &coll->items[3 * i], *line = what + 1, *msg = what + 2;
        ck_assert_str_eq(what->text, "bad");
        char where[32];
        snprintf(where, sizeof where, "bad.lua:%d: ", (int)line->number);
        ck_assert_msg(strstr(msg->text, where) != NULL, "#%zu: '%s' lacks '%s'", i, msg->text,
                      where);
        ck_assert_msg(strstr(msg->text, expect[i]) != NULL, "#%zu: '%s' lacks '%s'", i, msg->text,
                      expect[i]);
    }
    ck_assert_str_eq(coll->items[3 * n].text, "done");
}
END_TEST

static ona_system spawn_capped(ona_runtime *rt, ona_system report, const char *pairs, size_t cap) {
    ona_message args = make_args(report, pairs);
    /* No turn budget: its growing loop is long under valgrind or on a loaded machine, and the
     * budget is not what this test is about. */
    ona_spawn_desc d = {.script = "memory.lua",
                        .name = "memory",
                        .args = &args,
                        .memory_cap = cap,
                        .budget_ms = ONA_BUDGET_OFF};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &h), 0);
    return h;
}

START_TEST(test_memory_cap_frees_the_world) {
    ona_runtime *rt = runtime_on(2);
    ona_system report = spawn_collector(rt);
    spawn_capped(rt, report, "", 3u << 20);
    for (int f = 0; f < 2; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_system_stats st = named_stats(rt, "memory");
    ck_assert_uint_eq(st.errors, 0);
    ck_assert_uint_le(st.memory_peak, 3u << 20);
    ona_runtime_destroy(rt);
    ck_assert_msg(coll->count == 7, "%s\n%s", collected_text(), captured_logs_text());
    ck_assert_str_eq(coll->items[0].text, "grew");
    ck_assert(coll->items[1].number > 100 * 1024);
    ck_assert_msg(strstr(coll->items[2].text, "memory.lua:") &&
                      strstr(coll->items[2].text, "the world went past the system's memory cap of "
                                                  "3145728 bytes and was freed"),
                  "%s", coll->items[2].text);
    ck_assert_str_eq(coll->items[3].text, "after");
    ck_assert_msg(strstr(coll->items[4].text, "world:count: the world was freed when it went past"),
                  "%s", coll->items[4].text);
    ck_assert_str_eq(coll->items[5].text, "again");
    ck_assert_double_eq(coll->items[6].number, 1);
}
END_TEST

START_TEST(test_memory_cap_uncaught_fails_the_system) {
    ona_runtime *rt = runtime_on(2);
    ona_system report = spawn_collector(rt);
    spawn_capped(rt, report, "uncaught=true", 2u << 20);
    for (int f = 0; f < 3; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(captured_logs_contain("memory.lua:") &&
                      captured_logs_contain("the world went past the system's memory cap"),
                  "%s", captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_filters_kinematic_rays_boxes_from_lua) {
    ona_runtime *rt = runtime_on(1);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "queries.lua", "queries", report, "", 0, 0);
    for (int f = 0; f < 3; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    ck_assert_msg(coll->count == 7, "%s\n%s", collected_text(), captured_logs_text());
    /* The ghosts pass through each other (their masks leave out their category), both land. */
    ck_assert_str_eq(coll->items[0].text, "filter 0 2");
    /* A kinematic body moves at its velocity, untouched by gravity: 60 px in 1 s. */
    ck_assert_str_eq(coll->items[1].text, "kinematic 360.00 100.00");
    /* The ray along y = 295 from x = -50 meets the ground's left side (x = 0) first. */
    ck_assert_str_eq(coll->items[2].text, "ray ground 0.00 0.111 true");
    /* Down x = 100: both ghosts, resting in the same place (they do not collide), so at the
     * same fraction and in body order, then the ground. */
    ck_assert_str_eq(coll->items[3].text, "rays ghost1 ghost2 ground");
    ck_assert_str_eq(coll->items[4].text, "query ground ghost1 ghost2 arrow");
    ck_assert_str_eq(coll->items[5].text, "drawn 4");
    ck_assert_str_eq(coll->items[6].text, "mass 0.0000"); /* kinematic: 0 whatever its density */
}
END_TEST

/* Counts a C world's bytes; refuses past `cap`. */
typedef struct counter {
    ptrdiff_t bytes, cap;
} counter;

static bool count_charge(void *user, ptrdiff_t bytes) {
    counter *c = user;
    if (bytes > 0 && c->cap && c->bytes + bytes > c->cap)
        return false;
    c->bytes += bytes;
    return true;
}

START_TEST(test_c_api_rays_boxes_and_memory) {
    counter c = {0};
    ona_physics_world_desc wd = {
        .gravity_y = 900, .meter = 50, .charge = count_charge, .charge_user = &c};
    ona_physics_world *w = NULL;
    ck_assert_int_eq(ona_physics_world_create(&wd, &w), 0);
    ck_assert_int_eq((size_t)c.bytes, ona_physics_world_memory(w));
    ona_physics_body_desc d;
    ona_physics_body ids[5];
    for (int i = 0; i < 5; i++) { /* boxes at x = 100, 200, ... 500, made right to left */
        ona_physics_body_defaults(&d);
        d.x = (float)(500 - 100 * i), d.y = 100, d.width = 20, d.height = 20;
        ck_assert_int_eq(ona_physics_body_create(w, &d, &ids[i]), 0);
        ck_assert_uint_eq(ids[i], (uint32_t)i + 1);
    }
    ck_assert_int_eq((size_t)c.bytes, ona_physics_world_memory(w));
    const ona_physics_hit *hits;
    size_t n;
    ck_assert_int_eq(ona_physics_raycast(w, 0, 100, 1000, 100, true, &hits, &n), 0);
    ck_assert_uint_eq(n, 5);
    for (size_t i = 0; i < n; i++) { /* nearest first: x = 90, 190, ... */
        ck_assert_uint_eq(hits[i].body, 5 - i);
        ck_assert_float_eq_tol(hits[i].x, 90 + 100 * (float)i, 0.01f);
        ck_assert_float_eq_tol(hits[i].nx, -1, 1e-5f);
    }
    ck_assert_int_eq(ona_physics_raycast(w, 1000, 100, 0, 100, false, &hits, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(hits[0].body, 1);
    const ona_physics_body *found;
    ck_assert_int_eq(ona_physics_query(w, 150, 0, 450, 200, &found, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(found[0], 2); /* by number, not by position */
    ck_assert_uint_eq(found[1], 3);
    ck_assert_uint_eq(found[2], 4);
    ck_assert_int_eq(ona_physics_body_destroy(w, 3), 0);
    ck_assert_int_eq(ona_physics_body_destroy(w, 3), ONA_ESTALE);
    float x, y;
    ck_assert_int_eq(ona_physics_body_position(w, 3, &x, &y), ONA_ESTALE);
    ck_assert_int_eq(ona_physics_body_position(w, 99, &x, &y), ONA_ESTALE);
    ck_assert_int_eq(ona_physics_query(w, 150, 0, 450, 200, &found, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(ona_physics_world_bodies(w), 4);
    /* Bad descs say why. */
    ona_physics_body_defaults(&d);
    d.shape = ONA_PHYSICS_CIRCLE;
    ck_assert_ptr_nonnull(ona_physics_body_error(w, &d));
    ck_assert_int_eq(ona_physics_body_create(w, &d, &ids[0]), ONA_EINVAL);
    ck_assert_int_eq(ona_physics_step(w, 0, NULL, NULL), ONA_EINVAL);
    /* A cap just above what the world holds: bodies until one is refused; the world is then
     * broken and has given every byte back. */
    c.cap = c.bytes + 4096;
    int rc = 0;
    for (int i = 0; i < 10000 && rc == 0; i++) {
        ona_physics_body b;
        ona_physics_body_defaults(&d);
        d.type = ONA_PHYSICS_DYNAMIC, d.x = (float)(i % 50) * 30, d.y = 300, d.width = 10,
        d.height = 10;
        rc = ona_physics_body_create(w, &d, &b);
    }
    ck_assert_int_eq(rc, ONA_ENOMEM);
    ck_assert_int_eq(c.bytes, 0);
    ck_assert_int_eq(ona_physics_step(w, 1.0f / 60, NULL, NULL), ONA_ENOMEM);
    ck_assert_int_eq(ona_physics_body_position(w, 1, &x, &y), ONA_ENOMEM);
    ona_physics_world_destroy(w);
    ck_assert_int_eq(c.bytes, 0);
    /* A whole normal life gives every byte back too. */
    c.cap = 0;
    ck_assert_int_eq(ona_physics_world_create(&wd, &w), 0);
    ona_physics_body_defaults(&d);
    d.shape = ONA_PHYSICS_CHAIN;
    float pts[] = {0, 0, 0, 100, 100, 100, 100, 0};
    d.points = pts, d.point_count = 4, d.loop = true;
    ck_assert_int_eq(ona_physics_body_create(w, &d, &ids[0]), 0);
    ona_physics_outline_view v;
    ck_assert_int_eq(ona_physics_outline(w, ids[0], &v), 0);
    ck_assert_uint_eq(v.count, 4);
    ck_assert(v.closed);
    ck_assert_int_eq(ona_physics_step(w, 1.0f / 60, NULL, NULL), 0);
    ck_assert(c.bytes > 0);
    ona_physics_world_destroy(w);
    ck_assert_int_eq(c.bytes, 0);
}
END_TEST

/* The sample headless with its pilot on `threads` threads: every report, as one text. */
static void sample_on(uint32_t threads, char *out, size_t size, double *max_x, int *hits) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = sample_roots};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, "autoplay=1", 0, 0);
    for (int f = 0; f < 400; f++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    assert_game_clean(rt, 4); /* the collector, pilot, physics, hud */
    ona_runtime_destroy(rt);
    out[0] = 0;
    *max_x = 0;
    *hits = 0;
    for (int i = 0; i < coll->count; i++) {
        char part[192];
        if (coll->items[i].type == ONA_VALUE_STRING)
            snprintf(part, sizeof part, "%s ", coll->items[i].text);
        else
            snprintf(part, sizeof part, "%a ", coll->items[i].number);
        strncat(out, part, size - strlen(out) - 1);
        if (strcmp(coll->items[i].text, "ball") == 0 && coll->items[i + 1].number > *max_x)
            *max_x = coll->items[i + 1].number;
        if (strcmp(coll->items[i].text, "hits") == 0)
            *hits = (int)coll->items[i + 1].number;
    }
    collector_free();
}

START_TEST(test_sample_plays_the_same_on_1_and_2_threads) {
    static char one[16384], two[16384];
    double x1, x2;
    int h1, h2;
    sample_on(1, one, sizeof one, &x1, &h1);
    sample_on(2, two, sizeof two, &x2, &h2);
    ck_assert_msg(x1 > 400, "the ball got to x %.1f only", x1); /* it starts at 80 */
    ck_assert_msg(h1 > 0, "the ball hit no crate");
    ck_assert_str_eq(one, two);
}
END_TEST

static Suite *physics_suite(void) {
    Suite *s = suite_create("physics");
    TCase *tc = tcase_create("physics");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ball_rests_where_box2d_says);
    tcase_add_test(tc, test_contacts_begin_and_end);
    tcase_add_test(tc, test_same_digest_on_1_2_and_4_threads);
    tcase_add_test(tc, test_bad_arguments_raise_at_the_authors_line);
    tcase_add_test(tc, test_memory_cap_frees_the_world);
    tcase_add_test(tc, test_memory_cap_uncaught_fails_the_system);
    tcase_add_test(tc, test_filters_kinematic_rays_boxes_from_lua);
    tcase_add_test(tc, test_c_api_rays_boxes_and_memory);
    tcase_add_test(tc, test_sample_plays_the_same_on_1_and_2_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(physics_suite());
}
