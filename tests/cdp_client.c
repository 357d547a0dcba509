/*
 * cdp_client.c: the page tests' DevTools-protocol client (cdp_client.h).
 */
#include "cdp_client.h"

#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cdp {
    pid_t pid;
    int to, from; /* our ends: commands to its fd 3, answers from its fd 4 */
    char *buf;    /* what was read and not parsed yet */
    size_t len, cap;
    int next_id;
    char session[128];
    char error[1024];
};

static char open_error[1024];

static void set_error(cdp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(cdp *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c ? c->error : open_error, sizeof open_error, fmt, ap);
    va_end(ap);
}

const char *cdp_error(const cdp *c) {
    return c ? c->error : open_error;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The next whole message (NUL-terminated JSON), read until `deadline`; NULL when none came. */
static json_t *read_message(cdp *c, double deadline) {
    for (;;) {
        char *end = c->len ? memchr(c->buf, '\0', c->len) : NULL;
        if (end) {
            size_t n = (size_t)(end - c->buf);
            json_error_t err;
            json_t *m = json_loadb(c->buf, n, 0, &err);
            memmove(c->buf, end + 1, c->len - n - 1);
            c->len -= n + 1;
            if (!m)
                set_error(c, "unreadable DevTools message: %s", err.text);
            return m;
        }
        double left = deadline - now_s();
        if (left <= 0) {
            set_error(c, "Chromium did not answer within %d s", CDP_WAIT_S);
            return NULL;
        }
        struct pollfd p = {.fd = c->from, .events = POLLIN};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        if (c->len + 65536 > c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 1 << 20;
            char *grown = realloc(c->buf, cap);
            if (!grown) {
                set_error(c, "out of memory");
                return NULL;
            }
            c->buf = grown;
            c->cap = cap;
        }
        ssize_t k = read(c->from, c->buf + c->len, c->cap - c->len);
        if (k <= 0) {
            set_error(c, "Chromium closed its DevTools pipe");
            return NULL;
        }
        c->len += (size_t)k;
    }
}

/* Sends a command (`params` taken) to the page's session, or to the browser (`browser`), and
 * returns its result (the caller frees it), or NULL with the error. */
static json_t *call(cdp *c, const char *method, json_t *params, bool browser) {
    int id = ++c->next_id;
    json_t *m = json_pack("{s:i,s:s,s:o}", "id", id, "method", method, "params",
                          params ? params : json_object());
    if (m && !browser && c->session[0])
        json_object_set_new(m, "sessionId", json_string(c->session));
    char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
    json_decref(m);
    if (!text) {
        set_error(c, "out of memory");
        return NULL;
    }
    size_t n = strlen(text) + 1, off = 0;
    while (off < n) {
        ssize_t k = write(c->to, text + off, n - off);
        if (k <= 0) {
            free(text);
            set_error(c, "cannot write to Chromium: %s", strerror(errno));
            return NULL;
        }
        off += (size_t)k;
    }
    free(text);
    double deadline = now_s() + CDP_WAIT_S;
    for (;;) {
        json_t *answer = read_message(c, deadline);
        if (!answer)
            return NULL;
        if (json_integer_value(json_object_get(answer, "id")) != id) {
            json_decref(answer); /* an event, or another command's answer */
            continue;
        }
        json_t *error = json_object_get(answer, "error");
        json_t *result = json_object_get(answer, "result");
        if (error || !result) {
            char *e = error ? json_dumps(error, JSON_COMPACT) : NULL;
            set_error(c, "%s failed: %s", method, e ? e : "no result");
            free(e);
            json_decref(answer);
            return NULL;
        }
        json_incref(result);
        json_decref(answer);
        return result;
    }
}

static bool call_ok(cdp *c, const char *method, json_t *params) {
    json_t *r = call(c, method, params, false);
    json_decref(r);
    return r != NULL;
}

/* Moves `fd` above the three standard ones and the child's 3 and 4, close-on-exec. */
static int high_fd(int fd) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return moved;
}

cdp *cdp_open(const char *chromium, const char *profile_dir, const char *log_path, int width,
              int height) {
    int cmd[2], ans[2];
    if (pipe(cmd) != 0 || pipe(ans) != 0) {
        set_error(NULL, "pipe: %s", strerror(errno));
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        cmd[i] = high_fd(cmd[i]);
        ans[i] = high_fd(ans[i]);
    }
    cdp *c = calloc(1, sizeof *c);
    char profile[1200], size[64];
    snprintf(profile, sizeof profile, "--user-data-dir=%s", profile_dir);
    snprintf(size, sizeof size, "--window-size=%d,%d", width, height);
    char *argv[] = {(char *)chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-extensions",
                    "--remote-debugging-pipe",
                    profile,
                    size,
                    "about:blank",
                    NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, cmd[0], 3);
    posix_spawn_file_actions_adddup2(&fa, ans[1], 4);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path, O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    char **env = child_environment();
    int rc = c ? posix_spawn(&c->pid, chromium, &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(cmd[0]);
    close(ans[1]);
    if (rc != 0) {
        set_error(NULL, "cannot start %s: %s", chromium, strerror(rc));
        close(cmd[1]);
        close(ans[0]);
        free(c);
        return NULL;
    }
    c->to = cmd[1];
    c->from = ans[0];
    json_t *target = call(c, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), true);
    const char *id = json_string_value(json_object_get(target, "targetId"));
    json_t *attached = id ? call(c, "Target.attachToTarget",
                                 json_pack("{s:s,s:b}", "targetId", id, "flatten", 1), true)
                          : NULL;
    const char *session = json_string_value(json_object_get(attached, "sessionId"));
    if (session)
        snprintf(c->session, sizeof c->session, "%s", session);
    json_decref(target);
    json_decref(attached);
    if (!session || !call_ok(c, "Page.enable", NULL) || !call_ok(c, "Runtime.enable", NULL) ||
        !call_ok(c, "Emulation.setDeviceMetricsOverride",
                 json_pack("{s:i,s:i,s:i,s:b}", "width", width, "height", height,
                           "deviceScaleFactor", 1, "mobile", 0))) {
        snprintf(open_error, sizeof open_error, "%s", c->error);
        cdp_close(c);
        return NULL;
    }
    return c;
}

void cdp_close(cdp *c) {
    if (!c)
        return;
    json_decref(call(c, "Browser.close", NULL, true));
    close(c->to);
    close(c->from);
    int status;
    double deadline = now_s() + CDP_WAIT_S;
    while (waitpid(c->pid, &status, WNOHANG) == 0) {
        if (now_s() > deadline) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
            break;
        }
        usleep(20000);
    }
    free(c->buf);
    free(c);
}

bool cdp_navigate(cdp *c, const char *url) {
    return call_ok(c, "Page.navigate", json_pack("{s:s}", "url", url));
}

json_t *cdp_eval(cdp *c, const char *expr) {
    json_t *r =
        call(c, "Runtime.evaluate",
             json_pack("{s:s,s:b,s:b}", "expression", expr, "returnByValue", 1, "awaitPromise", 1),
             false);
    if (!r)
        return NULL;
    json_t *exc = json_object_get(r, "exceptionDetails");
    if (exc) {
        char *e = json_dumps(exc, JSON_COMPACT);
        set_error(c, "'%s' threw: %.600s", expr, e ? e : "?");
        free(e);
        json_decref(r);
        return NULL;
    }
    json_t *value = json_object_get(json_object_get(r, "result"), "value");
    json_t *out = value ? json_incref(value) : json_null();
    json_decref(r);
    return out;
}

bool cdp_wait_for(cdp *c, const char *expr) {
    double deadline = now_s() + CDP_WAIT_S;
    while (now_s() < deadline) {
        json_t *v = cdp_eval(c, expr);
        bool yes = json_is_true(v);
        json_decref(v);
        if (yes)
            return true;
        usleep(100000);
    }
    set_error(c, "waited %d s for: %s", CDP_WAIT_S, expr);
    return false;
}

static bool key(cdp *c, const char *type, const char *k, const char *code, int vk,
                const char *text) {
    json_t *p = json_pack("{s:s,s:s}", "type", type, "key", k);
    if (code)
        json_object_set_new(p, "code", json_string(code));
    if (vk)
        json_object_set_new(p, "windowsVirtualKeyCode", json_integer(vk));
    if (text) {
        json_object_set_new(p, "text", json_string(text));
        json_object_set_new(p, "unmodifiedText", json_string(text));
    }
    return call_ok(c, "Input.dispatchKeyEvent", p);
}

bool cdp_type(cdp *c, const char *text, bool enter) {
    for (const char *p = text; *p; p++) {
        char ch[2] = {*p, '\0'};
        if (!key(c, "keyDown", ch, NULL, 0, ch) || !key(c, "keyUp", ch, NULL, 0, NULL))
            return false;
    }
    return !enter || (key(c, "keyDown", "Enter", "Enter", 13, "\r") &&
                      key(c, "keyUp", "Enter", "Enter", 13, NULL));
}

/* Standard base64 (the screenshot's data) into `out`; the bytes written. */
static size_t base64_decode(const char *in, unsigned char *out) {
    static signed char map[256];
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    memset(map, -1, sizeof map);
    for (int i = 0; i < 64; i++)
        map[(unsigned char)digits[i]] = (signed char)i;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (; *in; in++) {
        int v = map[(unsigned char)*in];
        if (v < 0)
            continue; /* padding, line breaks */
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    return n;
}

bool cdp_screenshot(cdp *c, const char *path) {
    json_t *r = call(c, "Page.captureScreenshot", json_pack("{s:s}", "format", "png"), false);
    const char *data = json_string_value(json_object_get(r, "data"));
    unsigned char *png = data ? malloc(strlen(data)) : NULL;
    size_t n = png ? base64_decode(data, png) : 0;
    FILE *f = n ? fopen(path, "wb") : NULL;
    bool ok = f && fwrite(png, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        set_error(c, "no screenshot written to %s", path);
    free(png);
    json_decref(r);
    return ok;
}
