/*
 * test_trace.c: the Chrome trace timeline: the file is valid JSON (parsed with jansson), with
 * one turn slice per turn of systems that never park, parked slices for systems that do, frame
 * slices, and thread/system names.
 */
#include "test_support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

/* --- JSON through jansson ------------------------------------------------------------------- */

/* The whole text as one JSON value, or NULL when it is not valid JSON (RFC 8259). Strict:
 * jansson rejects trailing text, duplicate keys are refused too, and a top level that is not an
 * object or array is not a trace file. */
static json_t *parse_json(const char *text, json_error_t *error) {
    return json_loads(text, JSON_REJECT_DUPLICATES, error);
}

static bool valid_json(const char *text) {
    json_error_t error;
    json_t *root = parse_json(text, &error);
    json_decref(root);
    return root != NULL;
}

/* The string member `key` of object `o`, or NULL when missing or not a string. */
static const char *member_string(const json_t *o, const char *key) {
    return json_string_value(json_object_get(o, key));
}

/* How many events have name `name` (NULL: any) and category `cat` (NULL: any). */
static int count_events(const json_t *events, const char *name, const char *cat) {
    int n = 0;
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *en = member_string(e, "name"), *ec = member_string(e, "cat");
        if ((!name || (en && strcmp(en, name) == 0)) && (!cat || (ec && strcmp(ec, cat) == 0)))
            n++;
    }
    return n;
}

/* Whether some event has name `name` and args.name `arg_name`. */
static bool has_event_with_arg_name(const json_t *events, const char *name, const char *arg_name) {
    size_t i;
    const json_t *e;
    json_array_foreach(events, i, e) {
        const char *en = member_string(e, "name");
        const char *an = member_string(json_object_get(e, "args"), "name");
        if (en && strcmp(en, name) == 0 && an && strcmp(an, arg_name) == 0)
            return true;
    }
    return false;
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

START_TEST(test_trace_parser_rejects_broken_json) {
    /* The check the trace must pass is strict (jansson with the flags above). */
    ck_assert(valid_json("{\"a\":[1,2.5,-3e2,true,false,null,\"x\\n\"]}"));
    ck_assert(!valid_json("{\"a\":[1,2,]}"));
    ck_assert(!valid_json("{\"a\" 1}"));
    ck_assert(!valid_json("[01]"));
    ck_assert(!valid_json("{\"a\":\"unterminated}"));
    ck_assert(!valid_json("{} {}"));
    ck_assert(!valid_json("{\"a\":1,\"a\":2}"));
}
END_TEST

START_TEST(test_trace_one_slice_per_turn) {
    capture_logs_begin();
    ona_runtime_desc desc = {
        .threads = 2, .script_roots = roots, .delivery = ONA_DELIVERY_IMMEDIATE};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_system none = {0};
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "quiet%d", i);
        spawn_lua(rt, "counter.lua", name, none, "", 0, 0);
    }
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "ping.lua", "ping", report, "peer=pong serve=true rounds=20", 0, 0);
    spawn_lua(rt, "ping.lua", "pong", report, "peer=ping serve=false rounds=20", 0, 0);
    char path[] = "/tmp/ona-trace-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(ona_runtime_trace_begin(rt, path), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_trace_end(rt), 0);
    char *text = read_all(path);
    json_error_t error;
    json_t *root = parse_json(text, &error);
    ck_assert_msg(root != NULL, "not JSON (line %d: %s):\n%.2000s", error.line, error.text, text);
    json_t *events = json_object_get(root, "traceEvents");
    ck_assert_msg(json_is_array(events), "no traceEvents array:\n%.2000s", text);
    /* The counters never park: each of their turns is exactly one slice. */
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "quiet%d", i);
        ck_assert_int_eq(count_events(events, name, "turn"), 5);
    }
    /* Ping-pong parks on every receive: more slices than turns, and parked time recorded. */
    ck_assert_int_gt(count_events(events, "ping", "turn"), 5);
    ck_assert_int_gt(count_events(events, NULL, "parked"), 0);
    ck_assert_int_eq(count_events(events, NULL, "frame"), 5);
    ck_assert(has_event_with_arg_name(events, "thread_name", "main"));
    ck_assert(has_event_with_arg_name(events, "thread_name", "ona-worker-1"));
    ck_assert(has_event_with_arg_name(events, "thread_name", "pong"));
    json_decref(root);
    free(text);
    unlink(path);
    ck_assert_int_eq(ona_runtime_trace_begin(rt, "/nonexistent/dir/trace.json"), ONA_EIO);
    ona_runtime_destroy(rt);
    collector_free();
    capture_logs_end();
}
END_TEST

int main(void) {
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_trace_parser_rejects_broken_json);
    tcase_add_test(tc, test_trace_one_slice_per_turn);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
