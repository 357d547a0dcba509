/*
 * test_trace.c: the Chrome trace timeline: the file is valid JSON (checked by a strict
 * recursive-descent parser here, no library), with one turn slice per turn of systems that
 * never park, parked slices for systems that do, frame slices, and thread/system names.
 */
#include "test_support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

/* --- A strict JSON parser (RFC 8259 grammar, no extensions) --------------------------------- */

typedef struct parser {
    const char *p;
    int depth;
} parser;

static bool value(parser *ps);

static void ws(parser *ps) {
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static bool string(parser *ps) {
    if (*ps->p != '"')
        return false;
    ps->p++;
    while (*ps->p && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            ps->p++;
            if (*ps->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)ps->p[i]))
                        return false;
                ps->p += 5;
                continue;
            }
            if (!strchr("\"\\/bfnrt", *ps->p) || !*ps->p)
                return false;
        }
        ps->p++;
    }
    if (*ps->p != '"')
        return false;
    ps->p++;
    return true;
}

static bool number(parser *ps) {
    const char *start = ps->p;
    if (*ps->p == '-')
        ps->p++;
    if (!isdigit((unsigned char)*ps->p))
        return false;
    if (*ps->p == '0')
        ps->p++;
    else
        while (isdigit((unsigned char)*ps->p))
            ps->p++;
    if (*ps->p == '.') {
        ps->p++;
        if (!isdigit((unsigned char)*ps->p))
            return false;
        while (isdigit((unsigned char)*ps->p))
            ps->p++;
    }
    if (*ps->p == 'e' || *ps->p == 'E') {
        ps->p++;
        if (*ps->p == '+' || *ps->p == '-')
            ps->p++;
        if (!isdigit((unsigned char)*ps->p))
            return false;
        while (isdigit((unsigned char)*ps->p))
            ps->p++;
    }
    return ps->p > start;
}

static bool container(parser *ps, char open, char close, bool object) {
    if (*ps->p != open || ++ps->depth > 64)
        return false;
    ps->p++;
    ws(ps);
    if (*ps->p == close) {
        ps->p++;
        ps->depth--;
        return true;
    }
    for (;;) {
        ws(ps);
        if (object) {
            if (!string(ps))
                return false;
            ws(ps);
            if (*ps->p++ != ':')
                return false;
            ws(ps);
        }
        if (!value(ps))
            return false;
        ws(ps);
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p != close)
            return false;
        ps->p++;
        ps->depth--;
        return true;
    }
}

static bool value(parser *ps) {
    switch (*ps->p) {
    case '{':
        return container(ps, '{', '}', true);
    case '[':
        return container(ps, '[', ']', false);
    case '"':
        return string(ps);
    case 't':
        return strncmp(ps->p, "true", 4) == 0 ? (ps->p += 4, true) : false;
    case 'f':
        return strncmp(ps->p, "false", 5) == 0 ? (ps->p += 5, true) : false;
    case 'n':
        return strncmp(ps->p, "null", 4) == 0 ? (ps->p += 4, true) : false;
    default:
        return number(ps);
    }
}

static bool valid_json(const char *text) {
    parser ps = {text, 0};
    ws(&ps);
    if (!value(&ps))
        return false;
    ws(&ps);
    return *ps.p == '\0';
}

static int count(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
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
    ck_assert(valid_json("{\"a\":[1,2.5,-3e2,true,false,null,\"x\\n\"]}"));
    ck_assert(!valid_json("{\"a\":[1,2,]}"));
    ck_assert(!valid_json("{\"a\" 1}"));
    ck_assert(!valid_json("[01]"));
    ck_assert(!valid_json("{\"a\":\"unterminated}"));
    ck_assert(!valid_json("{} {}"));
}
END_TEST

START_TEST(test_trace_one_slice_per_turn) {
    capture_logs_begin();
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
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
    ck_assert_msg(valid_json(text), "not JSON:\n%.2000s", text);
    /* The counters never park: each of their turns is exactly one slice. */
    for (int i = 0; i < 3; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "{\"name\":\"quiet%d\",\"cat\":\"turn\"", i);
        ck_assert_int_eq(count(text, needle), 5);
    }
    /* Ping-pong parks on every receive: more slices than turns, and parked time recorded. */
    ck_assert_int_gt(count(text, "{\"name\":\"ping\",\"cat\":\"turn\""), 5);
    ck_assert_int_gt(count(text, "\"cat\":\"parked\""), 0);
    ck_assert_int_eq(count(text, "\"cat\":\"frame\""), 5);
    ck_assert(strstr(text, "\"thread_name\",\"args\":{\"name\":\"main\"}") != NULL);
    ck_assert(strstr(text, "\"thread_name\",\"args\":{\"name\":\"ona-worker-1\"}") != NULL);
    ck_assert(strstr(text, "\"args\":{\"name\":\"pong\"}") != NULL);
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
