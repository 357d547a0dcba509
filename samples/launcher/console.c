/*
 * console.c: `ona console [IP:PORT | URL] [--token TOKEN]`, a terminal REPL into a running game's
 * inspector (a game started with --inspect): systems, frame, eval NAME CODE, messages NAME,
 * pause, step, resume.
 *
 * Design note. The console is a client of the inspector's JSON API and nothing else: each
 * command is one HTTP request made with libwebsockets' client (its own context, served until the
 * answer is complete), answered JSON read with jansson; line editing and history are libedit's
 * readline interface (history kept in ~/.ona_console_history). The token comes from --token, the
 * address's ?token= (the line the game printed, pasted whole), or $ONA_INSPECT_TOKEN. Unlike the
 * rest of the launcher it uses these libraries directly: it never touches a runtime.
 */
#include "launcher.h"

#include <editline/readline.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct call {
    const char *method, *path, *body, *token;
    char host[80];
    int status;
    char *reply;
    size_t reply_len;
    const char *error;
    bool done, closed, body_sent;
} call;

static int client_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                           void *in, size_t len) {
    call *c = user;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: {
        unsigned char **p = in, *end = *p + len;
        char auth[128];
        int n = snprintf(auth, sizeof auth, "Bearer %s", c->token);
        if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION,
                                         (const unsigned char *)auth, n, p, end))
            return -1;
        if (c->body) {
            if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                             (const unsigned char *)"application/json", 16, p,
                                             end) ||
                lws_add_http_header_content_length(wsi, strlen(c->body), p, end))
                return -1;
            lws_client_http_body_pending(wsi, 1);
            lws_callback_on_writable(wsi);
        }
        return 0;
    }
    case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE: {
        if (!c->body || c->body_sent)
            return 0;
        size_t n = strlen(c->body);
        unsigned char *buf = malloc(LWS_PRE + n + 1);
        if (!buf)
            return -1;
        memcpy(buf + LWS_PRE, c->body, n);
        int w = lws_write(wsi, buf + LWS_PRE, n, LWS_WRITE_HTTP_FINAL);
        free(buf);
        c->body_sent = true;
        lws_client_http_body_pending(wsi, 0);
        return w < (int)n ? -1 : 0;
    }
    case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
        c->status = (int)lws_http_client_http_response(wsi);
        return 0;
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ: {
        char *grown = realloc(c->reply, c->reply_len + len + 1);
        if (!grown)
            return -1;
        memcpy(grown + c->reply_len, in, len);
        c->reply = grown;
        c->reply_len += len;
        c->reply[c->reply_len] = '\0';
        return 0;
    }
    case LWS_CALLBACK_RECEIVE_CLIENT_HTTP: {
        char buf[LWS_PRE + 4096];
        char *p = buf + LWS_PRE;
        int n = (int)sizeof buf - LWS_PRE;
        return lws_http_client_read(wsi, &p, &n) < 0 ? -1 : 0;
    }
    case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
        c->done = true;
        return -1; /* one request a connection: closed before request() returns */
    case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
        c->closed = true;
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        c->error = "cannot connect (is the game running with --inspect?)";
        c->closed = true;
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static const struct lws_protocols client_protocols[] = {
    {"http", client_callback, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

typedef struct console {
    struct lws_context *ctx;
    char host[64];
    int port;
    char token[80];
} console;

/* Makes one request and waits for its answer: the parsed JSON, or NULL with the reason said. */
static json_t *request(console *con, const char *method, const char *path, const char *body) {
    call c = {.method = method, .path = path, .body = body, .token = con->token};
    snprintf(c.host, sizeof c.host, "%s:%d", con->host, con->port);
    struct lws_client_connect_info cc;
    memset(&cc, 0, sizeof cc);
    cc.context = con->ctx;
    cc.address = con->host;
    cc.port = con->port;
    cc.path = path;
    cc.host = c.host;
    cc.method = method;
    cc.alpn = "http/1.1";
    cc.protocol = "http";
    cc.userdata = &c;
    if (!lws_client_connect_via_info(&cc))
        c.error = c.error ? c.error : "cannot connect";
    while (!c.closed && !(c.error && !c.done))
        lws_service(con->ctx, 0);
    json_t *j = NULL;
    if (c.error || !c.done) {
        fprintf(stderr, "ona console: %s:%d: %s\n", con->host, con->port,
                c.error ? c.error : "the connection closed before the answer");
    } else {
        json_error_t err;
        j = c.reply ? json_loads(c.reply, 0, &err) : NULL;
        if (!j)
            fprintf(stderr, "ona console: answer %d: %s\n", c.status, c.reply ? c.reply : "");
        else if (c.status == 401)
            fprintf(stderr, "ona console: the token was refused (--token TOKEN, or the ?token= "
                            "the game printed)\n");
    }
    free(c.reply);
    return j;
}

static const char *str(json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double num(json_t *o, const char *key) {
    return json_number_value(json_object_get(o, key));
}

static void print_systems(json_t *list) {
    printf("%-20s %-10s %9s %8s %9s %9s %8s %5s  %s\n", "system", "state", "mailbox", "turns",
           "last us", "mean us", "heap KB", "order", "detail");
    size_t i;
    json_t *s;
    json_array_foreach(list, i, s) {
        json_t *mb = json_object_get(s, "mailbox"), *t = json_object_get(s, "turn_us");
        char mailbox[32];
        snprintf(mailbox, sizeof mailbox, "%.0f/%.0f", num(mb, "depth"), num(mb, "capacity"));
        printf("%-20.20s %-10s %9s %8.0f %9.1f %9.1f %8.0f %5.0f  %s\n", str(s, "name"),
               str(s, "state"), mailbox, num(s, "turns"), num(t, "last"), num(t, "mean"),
               num(json_object_get(s, "heap"), "bytes") / 1024.0, num(s, "order"),
               str(s, "detail"));
    }
}

static void print_answer(json_t *j) {
    if (json_is_false(json_object_get(j, "ok"))) {
        printf("error: %s\n", str(j, "error"));
        return;
    }
    json_t *result = json_object_get(j, "result");
    if (result) {
        printf("%s\n", json_string_value(result));
        return;
    }
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(7));
    if (text)
        printf("%s\n", text);
    free(text);
}

static void print_messages(json_t *j) {
    if (json_is_false(json_object_get(j, "ok"))) {
        printf("error: %s\n", str(j, "error"));
        return;
    }
    size_t i;
    json_t *m;
    json_t *list = json_object_get(j, "messages");
    if (!json_array_size(list))
        printf("(no message yet: recording began with this command; ask again)\n");
    json_array_foreach(list, i, m) {
        const char *from = json_string_value(json_object_get(m, "sender_name"));
        printf("frame %-8.0f from %-16s %s\n", num(m, "frame"), from ? from : "?", str(m, "text"));
    }
}

/* Percent-encodes a system's name for the query. */
static void encode(const char *in, char *out, size_t size) {
    size_t n = 0;
    for (; *in && n + 4 < size; in++) {
        unsigned char c = (unsigned char)*in;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_' || c == '-' || c == '.')
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "%%%02X", c);
    }
    out[n] = '\0';
}

static const char *help_text =
    "  systems              every system: state, mailbox, turns, time per turn, heap\n"
    "  frame                the last frame: number, dt, times, its turns per thread\n"
    "  eval NAME CODE       run Lua in system NAME between its turns (`state` is its state)\n"
    "  messages NAME        the last messages NAME received (recorded while you watch)\n"
    "  pause | step | resume\n"
    "  help | quit\n";

/* Runs one command line; false to quit. */
static bool command(console *con, char *line) {
    while (*line == ' ' || *line == '\t')
        line++;
    char *rest = line + strcspn(line, " \t");
    if (*rest)
        *rest++ = '\0';
    while (*rest == ' ' || *rest == '\t')
        rest++;
    json_t *j = NULL;
    if (!*line) {
        return true;
    } else if (strcmp(line, "quit") == 0 || strcmp(line, "exit") == 0) {
        return false;
    } else if (strcmp(line, "help") == 0) {
        fputs(help_text, stdout);
    } else if (strcmp(line, "systems") == 0) {
        if ((j = request(con, "GET", "/api/systems", NULL)) != NULL) {
            if (json_is_array(j))
                print_systems(j);
            else
                print_answer(j);
        }
    } else if (strcmp(line, "frame") == 0) {
        if ((j = request(con, "GET", "/api/frame", NULL)) != NULL) {
            json_object_del(j, "timeline");
            print_answer(j);
        }
    } else if (strcmp(line, "pause") == 0 || strcmp(line, "step") == 0 ||
               strcmp(line, "resume") == 0) {
        char path[32];
        snprintf(path, sizeof path, "/api/%s", line);
        if ((j = request(con, "POST", path, "{}")) != NULL)
            printf("%s at frame %.0f\n", json_is_true(json_object_get(j, "paused")) ? "paused"
                                                                                    : "running",
                   num(j, "frame"));
    } else if (strcmp(line, "messages") == 0 && *rest) {
        char name[200], path[256];
        encode(rest, name, sizeof name);
        snprintf(path, sizeof path, "/api/messages?system=%s", name);
        if ((j = request(con, "GET", path, NULL)) != NULL)
            print_messages(j);
    } else if (strcmp(line, "eval") == 0 && *rest && rest[strcspn(rest, " \t")]) {
        char *code = rest + strcspn(rest, " \t");
        *code++ = '\0';
        json_t *body = json_pack("{s:s,s:s}", "system", rest, "code", code);
        char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
        json_decref(body);
        if (text && (j = request(con, "POST", "/api/eval", text)) != NULL)
            print_answer(j);
        free(text);
    } else {
        printf("unknown command '%s'%s; these are:\n%s", line,
               strcmp(line, "eval") == 0 || strcmp(line, "messages") == 0 ? " (it needs a name)"
                                                                          : "",
               help_text);
    }
    json_decref(j);
    return true;
}

/* "IP:PORT", "http://IP:PORT/?token=T" or nothing (the default address). */
static bool parse_target(console *con, const char *text) {
    if (strncmp(text, "http://", 7) == 0)
        text += 7;
    const char *token = strstr(text, "?token=");
    if (token && !con->token[0])
        snprintf(con->token, sizeof con->token, "%.*s", (int)strcspn(token + 7, "&#"), token + 7);
    const char *colon = strchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof con->host)
        return false;
    snprintf(con->host, sizeof con->host, "%.*s", (int)(colon - text), text);
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || (*end && *end != '/') || port <= 0 || port > 65535)
        return false;
    con->port = (int)port;
    return true;
}

int ona__launcher_console(int argc, char **argv) {
    console con = {0};
    const char *target = ONA__LAUNCHER_INSPECT_DEFAULT;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--token") == 0 && i + 1 < argc)
            snprintf(con.token, sizeof con.token, "%s", argv[++i]);
        else if (strncmp(argv[i], "--token=", 8) == 0)
            snprintf(con.token, sizeof con.token, "%s", argv[i] + 8);
        else if (argv[i][0] != '-')
            target = argv[i];
        else {
            fprintf(stderr, "usage: ona console [IP:PORT | URL] [--token TOKEN]\n");
            return 2;
        }
    }
    if (!parse_target(&con, target)) {
        fprintf(stderr, "ona console: '%s' is not an inspector's address (IP:PORT, or the URL "
                        "the game printed)\n",
                target);
        return 2;
    }
    if (!con.token[0] && getenv("ONA_INSPECT_TOKEN"))
        snprintf(con.token, sizeof con.token, "%s", getenv("ONA_INSPECT_TOKEN"));
    if (!con.token[0]) {
        fprintf(stderr, "ona console: no token: give --token TOKEN or the whole URL the game "
                        "printed (ona: inspector at http://...?token=...)\n");
        return 2;
    }
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = client_protocols;
    con.ctx = lws_create_context(&info);
    if (!con.ctx) {
        fprintf(stderr, "ona console: libwebsockets could not start\n");
        return 1;
    }
    char history[1024] = "";
    if (getenv("HOME"))
        snprintf(history, sizeof history, "%s/.ona_console_history", getenv("HOME"));
    bool tty = isatty(STDIN_FILENO);
    if (tty) {
        using_history();
        if (history[0])
            read_history(history);
        printf("ona console: %s:%d (help for the commands)\n", con.host, con.port);
    }
    char *line;
    while ((line = tty ? readline("ona> ") : NULL) != NULL || !tty) {
        char piped[4096];
        if (!tty) {
            if (!fgets(piped, sizeof piped, stdin))
                break;
            piped[strcspn(piped, "\n")] = '\0';
            line = strdup(piped);
            if (!line)
                break;
        }
        if (tty && *line)
            add_history(line);
        bool go_on = command(&con, line);
        free(line);
        fflush(stdout);
        if (!go_on)
            break;
    }
    if (tty && history[0])
        write_history(history);
    lws_context_destroy(con.ctx);
    return 0;
}
