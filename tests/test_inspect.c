/*
 * test_inspect.c: the inspector (ona_runtime_desc.inspect) driven over loopback by a small
 * HTTP/WebSocket client (inspect_client.c): every endpoint, reads answered while no frame runs,
 * the token, Origin and Host checks, the limits, 1,000 connections, eval (raising, into a paused
 * system, into a system whose turn spans frames, during a reload), pause/step/resume, message
 * counts per sender, the stream, and the refused addresses. The page in Chromium and the window
 * while paused are test_inspect_page.c's.
 */
#include "inspect_client.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- The game -------------------------------------------------------------------------------- */

static const char *counter_lua = "VERSION = 1\n"
                                 "return {\n"
                                 "  init = function(state) state.n = 0 end,\n"
                                 "  process = function(state)\n"
                                 "    state.n = state.n + 1\n"
                                 "    while ona.receive() do end\n"
                                 "  end,\n"
                                 "}\n";

static const char *pinger_lua =
    "return {\n"
    "  process = function(state)\n"
    "    ona.send(ona.lookup('counter'), 'hello', {x = 1, name = 'ping'})\n"
    "  end,\n"
    "}\n";

/* Fails in its third turn: paused, since files are watched. */
static const char *faulty_lua = "return {\n"
                                "  init = function(state) state.turns = 0 end,\n"
                                "  process = function(state)\n"
                                "    state.turns = state.turns + 1\n"
                                "    if state.turns == 3 then error('broken on purpose') end\n"
                                "  end,\n"
                                "}\n";

/* Its turn spans two frames: it yields in the middle. */
static const char *yielder_lua = "return {\n"
                                 "  init = function(state) state.in_turn = false end,\n"
                                 "  process = function(state)\n"
                                 "    state.in_turn = true\n"
                                 "    coroutine.yield()\n"
                                 "    state.in_turn = false\n"
                                 "  end,\n"
                                 "}\n";

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)ctx, (void)state, (void)dt;
    return 0;
}

static void spawn(const char *script, const char *name) {
    ona_system h;
    ona_spawn_desc d = {.script = script, .name = name};
    ck_assert_msg(ona_runtime_spawn(rt, &d, &h) == 0, "spawn %s:\n%s", script,
                  captured_logs_text());
}

static void start(void) {
    capture_logs_begin();
    game_dir_begin("inspect");
    game_write("counter.lua", counter_lua);
    game_write("pinger.lua", pinger_lua);
    game_write("faulty.lua", faulty_lua);
    game_write("yielder.lua", yielder_lua);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc d = {.threads = 2,
                          .script_roots = roots,
                          .hot_reload = true,
                          .inspect = "127.0.0.1:0",
                          .inspect_token = TOKEN};
    ck_assert_msg(ona_runtime_create(&d, &rt) == 0, "%s", captured_logs_text());
    char url[256];
    ck_assert_int_eq(ona_runtime_inspect_url(rt, url, sizeof url), 0);
    ck_assert_msg(strstr(url, "?token=" TOKEN), "%s", url);
    inspect_client_attach();
    spawn("counter.lua", "counter");
    spawn("pinger.lua", "pinger");
    spawn("faulty.lua", "faulty");
    spawn("yielder.lua", "yielder");
    ona_system boxed;
    ona_spawn_desc bd = {.script = "counter.lua", .name = "boxed", .sandbox = true};
    ck_assert_int_eq(ona_runtime_spawn(rt, &bd, &boxed), 0);
    ona_system native;
    ona_system_desc nd = {.name = "native", .process = native_process};
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &nd, &native), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static void stop(void) {
    ona_runtime_destroy(rt);
    rt = NULL;
    game_dir_end();
    capture_logs_end();
}

/* --- Endpoints ------------------------------------------------------------------------------- */

START_TEST(test_inspect_systems_lists_every_system_with_its_state) {
    ck_assert_int_eq(GET("/api/systems"), 200);
    ASSERT_REPLY_HAS("\"name\":\"counter\"");
    ASSERT_REPLY_HAS("\"name\":\"pinger\"");
    ASSERT_REPLY_HAS("\"name\":\"native\"");
    ASSERT_REPLY_HAS("counter.lua\"");
    ASSERT_REPLY_HAS("\"state\":\"paused\"");
    ASSERT_REPLY_HAS("paused by an error at ");
    ASSERT_REPLY_HAS("faulty.lua:5: broken on purpose\"");
    ASSERT_REPLY_HAS("\"mailbox\":{\"depth\":");
    ASSERT_REPLY_HAS("\"capacity\":64");
    ASSERT_REPLY_HAS("\"turn_us\":{\"last\":");
    ASSERT_REPLY_HAS("\"heap\":{\"bytes\":");
    ASSERT_REPLY_HAS("\"order\":");
}
END_TEST

START_TEST(test_inspect_frame_has_the_last_frames_timeline) {
    ck_assert_int_eq(GET("/api/frame"), 200);
    ASSERT_REPLY_HAS("\"frame\":");
    ASSERT_REPLY_HAS("\"dt\":0.01666667");
    ASSERT_REPLY_HAS("\"present_ms\":");
    ASSERT_REPLY_HAS("\"threads\":2");
    ASSERT_REPLY_HAS("\"name\":\"counter\",\"kind\":\"turn\"");
    ASSERT_REPLY_HAS("\"start_us\":");
}
END_TEST

START_TEST(test_inspect_page_is_served_with_the_token) {
    ck_assert_int_eq(http("GET", "/?token=" TOKEN, NULL, NULL), 200);
    ASSERT_REPLY_HAS("<title>Ona inspector</title>");
    ck_assert_int_eq(http("GET", "/", NULL, NULL), 401);
}
END_TEST

START_TEST(test_inspect_messages_are_recorded_while_watched) {
    ck_assert_int_eq(GET("/api/messages?system=counter"), 200);
    ASSERT_REPLY_HAS("\"total\":0"); /* nothing was recorded before someone asked */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(GET("/api/messages?system=counter"), 200);
    ASSERT_REPLY_HAS("\"sender_name\":\"pinger\"");
    ASSERT_REPLY_HAS("\"text\":\"\\\"hello\\\", {");
    ASSERT_REPLY_HAS("x=1");
    ASSERT_REPLY_HAS("name=\\\"ping\\\"");
    ASSERT_REPLY_HAS("\"senders\":[{\"sender\":");
    ck_assert_int_eq(GET("/api/messages?system=nobody"), 404);
    ck_assert_int_eq(GET("/api/messages"), 400);
}
END_TEST

/* pinger sends counter one message a frame: once counter is watched, the edge pinger -> counter
 * carries its count, and after a whole second of frames its rate. */
START_TEST(test_inspect_counts_messages_per_sender_of_a_watched_system) {
    ck_assert_int_eq(GET("/api/frame"), 200);
    ck_assert_msg(!strstr(req.reply, "\"to_name\":\"counter\""), "an edge before watching");
    ck_assert_int_eq(GET("/api/messages?system=counter"), 200);
    uint64_t t0 = (uint64_t)time(NULL);
    for (int i = 0; i < 10 || (uint64_t)time(NULL) < t0 + 3; i++) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(20000); /* fewer frames than a watch lasts (600) */
    }
    ck_assert_int_eq(GET("/api/messages?system=counter"), 200);
    ASSERT_REPLY_HAS("\"sender_name\":\"pinger\",\"count\":");
    const char *rate = strstr(strstr(req.reply, "\"senders\":"), "\"rate\":");
    ck_assert_ptr_nonnull(rate);
    ck_assert_msg(strtod(rate + 7, NULL) > 0, "no rate: %s", req.reply);
    ck_assert_int_eq(GET("/api/frame"), 200);
    ASSERT_REPLY_HAS("\"from_name\":\"pinger\",\"to\":");
    ASSERT_REPLY_HAS("\"to_name\":\"counter\",\"count\":");
}
END_TEST

/* At most 16 systems are watched at once: a 17th is refused until one expires. */
START_TEST(test_inspect_watches_at_most_sixteen_systems) {
    for (int i = 0; i < 12; i++) {
        char name[16];
        snprintf(name, sizeof name, "extra%d", i);
        spawn("counter.lua", name);
    }
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    const char *names[] = {"counter", "pinger", "faulty", "yielder", "boxed", "native"};
    char path[64];
    for (int i = 0; i < 17; i++) {
        if (i < 6)
            snprintf(path, sizeof path, "/api/messages?system=%s", names[i]);
        else
            snprintf(path, sizeof path, "/api/messages?system=extra%d", i - 6);
        ck_assert_int_eq(GET(path), i < 16 ? 200 : 503);
    }
    ASSERT_REPLY_HAS("too many systems watched at once (16)");
    ck_assert_int_eq(GET("/api/messages?system=counter"), 200); /* watched already: still fine */
}
END_TEST

/* The server has a thread of its own: with no frame stepped at all, a read is still answered. */
START_TEST(test_inspect_reads_are_answered_between_frames) {
    req = (request){.method = "GET", .path = "/api/systems", .headers = AUTH};
    ck_assert_int_eq(run_request_stepping(false), 200);
    ASSERT_REPLY_HAS("\"name\":\"counter\"");
    req = (request){.method = "GET", .path = "/api/frame", .headers = AUTH};
    ck_assert_int_eq(run_request_stepping(false), 200);
    ASSERT_REPLY_HAS("\"frame\":5,");
}
END_TEST

START_TEST(test_inspect_stream_sends_ticks) {
    req = (request){.method = "GET", .path = "/stream?token=" TOKEN, .websocket = true};
    ck_assert_int_eq(run_request(), 101);
    ASSERT_REPLY_HAS("\"type\":\"tick\"");
    ASSERT_REPLY_HAS("\"name\":\"counter\"");
    ASSERT_REPLY_HAS("\"timeline\":");
    req = (request){.method = "GET", .path = "/stream", .websocket = true};
    ck_assert_int_ne(run_request(), 101);
    req = (request){.method = "GET",
                    .path = "/stream?token=" TOKEN,
                    .websocket = true,
                    .headers = "Origin: http://evil.example\r\n"};
    ck_assert_int_ne(run_request(), 101);
}
END_TEST

/* --- Security and limits --------------------------------------------------------------------- */

START_TEST(test_inspect_refuses_a_missing_or_wrong_token) {
    ck_assert_int_eq(http("GET", "/api/systems", NULL, NULL), 401);
    ASSERT_REPLY_HAS("token");
    ck_assert_int_eq(http("GET", "/api/systems", "Authorization: Bearer wrong-token-99\r\n", NULL),
                     401);
    ck_assert_int_eq(http("GET", "/api/systems?token=test-token-123", NULL, NULL), 401);
    ck_assert_int_eq(http("POST", "/api/pause", NULL, "{}"), 401);
    ck_assert_int_eq(http("GET", "/api/systems?token=" TOKEN, NULL, NULL), 200);
}
END_TEST

START_TEST(test_inspect_refuses_other_origins_and_hosts) {
    ck_assert_int_eq(http("POST", "/api/eval", AUTH "Origin: http://evil.example\r\n",
                          "{\"system\":\"counter\",\"code\":\"1\"}"),
                     403);
    ASSERT_REPLY_HAS("cross-origin");
    char own[128];
    snprintf(own, sizeof own, AUTH "Origin: http://127.0.0.1:%d\r\n", port);
    ck_assert_int_eq(http("GET", "/api/systems", own, NULL), 200);
    snprintf(own, sizeof own, AUTH "Origin: http://127.0.0.1:%d\r\n", port + 1);
    ck_assert_int_eq(http("GET", "/api/systems", own, NULL), 403);
    ck_assert_int_eq(http("GET", "/api/systems", AUTH "Origin: null\r\n", NULL), 403);
}
END_TEST

START_TEST(test_inspect_refuses_oversized_and_malformed_bodies) {
    static char big[80 << 10];
    memset(big, 'a', sizeof big - 1);
    req = (request){.method = "POST",
                    .path = "/api/eval",
                    .headers = AUTH,
                    .body = big,
                    .body_len = sizeof big - 1};
    ck_assert_int_eq(run_request(), 413);
    ck_assert_int_eq(POST("/api/eval", "{\"system\": \"counter\", \"code\": "), 400);
    ASSERT_REPLY_HAS("malformed JSON");
    ck_assert_int_eq(POST("/api/eval", "[1, 2]"), 400);
    ck_assert_int_eq(POST("/api/eval", "{\"system\": 3, \"code\": \"1\"}"), 400);
    ck_assert_int_eq(GET("/api/nothing"), 404);
    ck_assert_int_eq(GET("/api/eval"), 404); /* eval is a POST */
}
END_TEST

START_TEST(test_inspect_survives_a_thousand_connections) {
    req = (request){.method = "GET", .path = "/api/frame", .headers = AUTH, .cycles = 1000};
    ck_assert_int_eq(run_request(), 200);
    ASSERT_REPLY_HAS("\"frame\":");
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(GET("/api/systems"), 200);
}
END_TEST

/* --- Eval ------------------------------------------------------------------------------------ */

START_TEST(test_inspect_eval_reads_and_changes_the_state) {
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"state.n > 0\"}"), 200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"true\"}");
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"state.n = -1e9\"}"),
                     200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"\"}");
    /* The next turn sees it: n counts on from -1e9 (the client's round trips let frames run
     * meanwhile). */
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"state.n < 0, 1, 'x'\"}"),
                     200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"true\\t1\\tx\"}");
}
END_TEST

START_TEST(test_inspect_eval_that_raises_fails_alone) {
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"error('boom')\"}"), 200);
    ASSERT_REPLY_HAS("\"ok\":false");
    ASSERT_REPLY_HAS("boom");
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"1 +\"}"), 200);
    ASSERT_REPLY_HAS("\"ok\":false");
    ASSERT_REPLY_HAS("eval:1:");
    ck_assert_int_eq(GET("/api/systems"), 200);
    const char *counter = strstr(req.reply, "\"name\":\"counter\"");
    ck_assert_ptr_nonnull(counter);
    ck_assert_msg(strncmp(strstr(counter, "\"errors\":"), "\"errors\":0,", 11) == 0,
                  "the eval's error counted as the system's: %.600s", counter);
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"state.n ~= nil\"}"),
                     200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"true\"}");
}
END_TEST

START_TEST(test_inspect_eval_into_a_paused_system) {
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"faulty\",\"code\":\"state.turns\"}"), 200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"3\"}");
}
END_TEST

START_TEST(test_inspect_eval_never_runs_inside_a_turn) {
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(POST("/api/eval", "{\"system\":\"yielder\",\"code\":\"state.in_turn\"}"),
                         200);
        ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"false\"}");
    }
}
END_TEST

START_TEST(test_inspect_eval_refuses_native_sandboxed_and_unknown_systems) {
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"native\",\"code\":\"1\"}"), 400);
    ASSERT_REPLY_HAS("native");
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"nobody\",\"code\":\"1\"}"), 404);
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"boxed\",\"code\":\"state.n = 0\"}"), 409);
    ASSERT_REPLY_HAS("'boxed' is sandboxed");
}
END_TEST

START_TEST(test_inspect_eval_while_the_game_reloads) {
    game_write("counter.lua", "VERSION = 2\n"
                              "return { process = function(state) state.n = state.n + 1 end }\n");
    ck_assert_int_eq(ona_runtime_reload(rt, "counter.lua"), 0);
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":\"VERSION\"}"), 200);
    ck_assert_msg(strcmp(req.reply, "{\"ok\":true,\"result\":\"1\"}") == 0 ||
                      strcmp(req.reply, "{\"ok\":true,\"result\":\"2\"}") == 0,
                  "%s", req.reply);
    ck_assert_int_eq(
        POST("/api/eval", "{\"system\":\"counter\",\"code\":\"VERSION, state.n > 0\"}"), 200);
    ck_assert_str_eq(req.reply, "{\"ok\":true,\"result\":\"2\\ttrue\"}");
}
END_TEST

/* --- Pause, step, resume --------------------------------------------------------------------- */

static uint64_t frames(void) {
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    return st.frames;
}

START_TEST(test_inspect_pause_step_resume) {
    ck_assert_int_eq(POST("/api/pause", "{}"), 200);
    ASSERT_REPLY_HAS("\"paused\":true");
    uint64_t at = frames();
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(frames(), at);
    /* An eval still answers while paused, and its effect shows in the data at once: the held
     * game publishes a snapshot after an action (counter's heap holds the 2 MB string). */
    ck_assert_int_eq(GET("/api/frame"), 200);
    ASSERT_REPLY_HAS("\"paused\":true");
    ck_assert_int_eq(POST("/api/eval", "{\"system\":\"counter\",\"code\":"
                                       "\"state.big = string.rep('x', 2000000) return state.n\"}"),
                     200);
    ASSERT_REPLY_HAS("\"ok\":true");
    ck_assert_uint_eq(named_stats(rt, "counter").memory > 2000000, 1);
    req = (request){.method = "GET", .path = "/api/systems", .headers = AUTH};
    ck_assert_int_eq(run_request_stepping(false), 200);
    const char *bytes = strstr(strstr(req.reply, "\"name\":\"counter\""), "\"bytes\":");
    ck_assert_msg(bytes && strtol(bytes + 8, NULL, 10) > 2000000, "%.800s", req.reply);
    ck_assert_int_eq(POST("/api/step", "{}"), 200);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(frames(), at + 1);
    ck_assert_int_eq(POST("/api/resume", "{}"), 200);
    ASSERT_REPLY_HAS("\"paused\":false");
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_gt(frames(), at + 3);
}
END_TEST

/* Frames in the recording: the client steps the runtime while it waits for the pause's reply
 * (inspect_client.c), so a slow build (TSan) plays many frames before the pause lands. */
enum { RECORDED_FRAMES = 400 };

/* A pause holds the step before the frame is planned: a replay paused from the inspector takes
 * no recorded frame while it is held, so it plays every frame and diverges nowhere. */
START_TEST(test_inspect_pause_keeps_a_replays_frames) {
    ona_runtime_destroy(rt);
    char rec[600];
    snprintf(rec, sizeof rec, "%s/paused.onarec", game_dir());
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc d = {.threads = 1, .script_roots = roots, .record_path = rec};
    ck_assert_msg(ona_runtime_create(&d, &rt) == 0, "%s", captured_logs_text());
    spawn("counter.lua", "counter");
    spawn("pinger.lua", "pinger");
    for (int i = 0; i < RECORDED_FRAMES; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ona_runtime_destroy(rt);
    d = (ona_runtime_desc){.threads = 1,
                           .script_roots = roots,
                           .replay_path = rec,
                           .inspect = "127.0.0.1:0",
                           .inspect_token = TOKEN};
    ck_assert_msg(ona_runtime_create(&d, &rt) == 0, "%s", captured_logs_text());
    inspect_client_attach();
    spawn("counter.lua", "counter");
    spawn("pinger.lua", "pinger");
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(POST("/api/pause", "{}"), 200);
    uint64_t at = frames();
    ck_assert_uint_lt(at, RECORDED_FRAMES);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(frames(), at);
    ck_assert_int_eq(POST("/api/resume", "{}"), 200);
    for (int i = 0; i < RECORDED_FRAMES + 10 && !ona_runtime_quit_requested(rt); i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(ona_runtime_quit_requested(rt));
    ck_assert_uint_eq(frames(), RECORDED_FRAMES);
    ck_assert_msg(!captured_logs_contain("diverged"), "%s", captured_logs_text());
}
END_TEST

/* --- Addresses ------------------------------------------------------------------------------- */

static int create_with(const char *address, bool any, const char *token) {
    ona_runtime *other = NULL;
    ona_runtime_desc d = {
        .threads = 1, .inspect = address, .inspect_any = any, .inspect_token = token};
    int rc = ona_runtime_create(&d, &other);
    ona_runtime_destroy(other);
    return rc;
}

START_TEST(test_inspect_refuses_bad_addresses_and_tokens) {
    capture_logs_begin();
    ck_assert_int_eq(create_with("10.1.2.3:0", false, NULL), ONA_EINVAL);
    ck_assert(captured_logs_contain("not a loopback address"));
    ck_assert(captured_logs_contain("--inspect-any"));
    ck_assert_int_eq(create_with("localhost", false, NULL), ONA_EINVAL);
    ck_assert_int_eq(create_with("127.0.0.1:99999", false, NULL), ONA_EINVAL);
    ck_assert_int_eq(create_with("300.0.0.1:80", false, NULL), ONA_EINVAL);
    ck_assert(captured_logs_contain("is not an address to listen on"));
    /* Allowed, but this machine has no such address. */
    ck_assert_int_eq(create_with("203.0.113.9:0", true, NULL), ONA_EINVAL);
    ck_assert_int_eq(create_with("127.0.0.1:0", false, "short"), ONA_EINVAL);
    ck_assert(captured_logs_contain("token must be"));
    capture_logs_end();
}
END_TEST

START_TEST(test_inspect_refuses_a_port_in_use) {
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%d", port);
    capture_logs_begin();
    ck_assert_int_eq(create_with(address, false, NULL), ONA_EBUSY);
    ck_assert(captured_logs_contain("the port is in use"));
    capture_logs_end();
}
END_TEST

START_TEST(test_inspect_is_off_unless_asked) {
    ona_runtime *off;
    ck_assert_int_eq(ona_runtime_create(&(ona_runtime_desc){.threads = 1}, &off), 0);
    char url[128];
    ck_assert_int_eq(ona_runtime_inspect_url(off, url, sizeof url), ONA_ENOENT);
    ona_runtime_destroy(off);
    ck_assert_int_eq(ona_runtime_inspect_url(rt, url, 8), ONA_ERANGE);
    ck_assert_int_eq(ona_runtime_inspect_url(NULL, url, sizeof url), ONA_EINVAL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("inspect");
    TCase *api = tcase_create("api");
    tcase_add_checked_fixture(api, start, stop);
    tcase_set_timeout(api, 240);
    tcase_add_test(api, test_inspect_systems_lists_every_system_with_its_state);
    tcase_add_test(api, test_inspect_frame_has_the_last_frames_timeline);
    tcase_add_test(api, test_inspect_page_is_served_with_the_token);
    tcase_add_test(api, test_inspect_messages_are_recorded_while_watched);
    tcase_add_test(api, test_inspect_counts_messages_per_sender_of_a_watched_system);
    tcase_add_test(api, test_inspect_reads_are_answered_between_frames);
    tcase_add_test(api, test_inspect_watches_at_most_sixteen_systems);
    tcase_add_test(api, test_inspect_stream_sends_ticks);
    tcase_add_test(api, test_inspect_refuses_a_missing_or_wrong_token);
    tcase_add_test(api, test_inspect_refuses_other_origins_and_hosts);
    tcase_add_test(api, test_inspect_refuses_oversized_and_malformed_bodies);
    tcase_add_test(api, test_inspect_survives_a_thousand_connections);
    tcase_add_test(api, test_inspect_eval_reads_and_changes_the_state);
    tcase_add_test(api, test_inspect_eval_that_raises_fails_alone);
    tcase_add_test(api, test_inspect_eval_into_a_paused_system);
    tcase_add_test(api, test_inspect_eval_never_runs_inside_a_turn);
    tcase_add_test(api, test_inspect_eval_refuses_native_sandboxed_and_unknown_systems);
    tcase_add_test(api, test_inspect_eval_while_the_game_reloads);
    tcase_add_test(api, test_inspect_pause_step_resume);
    tcase_add_test(api, test_inspect_pause_keeps_a_replays_frames);
    tcase_add_test(api, test_inspect_refuses_a_port_in_use);
    tcase_add_test(api, test_inspect_is_off_unless_asked);
    suite_add_tcase(s, api);
    TCase *addr = tcase_create("addresses");
    tcase_add_test(addr, test_inspect_refuses_bad_addresses_and_tokens);
    suite_add_tcase(s, addr);
    return run_suite(s);
}
