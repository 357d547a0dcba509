/*
 * inspect.c: the inspector's server (inspect.h): libwebsockets on the runtime's own libuv loop,
 * serving the page, the JSON API and the WebSocket stream.
 *
 * Design note. The server is a libwebsockets context made with LWS_SERVER_OPTION_LIBUV over the
 * runtime's loop (a foreign loop), so its sockets are handles polled by main at the frame
 * boundary like the file watcher's: no thread of its own, and every callback runs where main
 * owns the systems. Security, in the order a request meets it:
 *  - the listening address is loopback unless inspect_any allows another;
 *  - the rate: a bucket of ONA__INSPECT_RATE requests a second for every client together (429);
 *  - the Host header must name the inspector itself (loopback only), which stops DNS rebinding,
 *    and an Origin header, when present, must be the inspector's own origin (403): a web page
 *    elsewhere in the player's browser cannot drive the game; curl and the console send none;
 *  - the token, 128 random bits unless fixed, in `Authorization: Bearer TOKEN` or `?token=TOKEN`
 *    (compared in constant time; 401 without it); WebSocket upgrades check the same (a browser
 *    cannot set headers there, so the page passes ?token=);
 *  - a body over ONA__INSPECT_BODY_MAX (413), a header over 4 KiB (libwebsockets refuses it).
 * Answers are written in 16 KiB pieces from the writeable callback, as many as the socket takes
 * without blocking, so a large document never blocks main. Refusals close the connection after the answer.
 */
#include "inspect.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

extern const unsigned char ona_inspect_page_html[];
extern const unsigned long ona_inspect_page_html_size;

enum { CHUNK = 16 << 10, TICK_MIN_NS = 50000000 /* the stream: at most 20 ticks a second */ };

static ona__inspect *inspector_of(struct lws *wsi) {
    return lws_context_user(lws_get_context(wsi));
}

/* --- Answers --------------------------------------------------------------------------------- */

void ona__inspect_reply(ona__inspect_session *s, unsigned status, char *json) {
    ona__free(s->eval_code); /* an answer ends the eval, if there was one */
    s->eval_code = NULL;
    free(s->reply);
    s->status = json ? status : 503;
    s->type = "application/json";
    s->reply = json ? json : strdup("{\"ok\":false,\"error\":\"out of memory\"}");
    s->reply_len = s->reply ? strlen(s->reply) : 0;
    s->reply_sent = 0;
    s->replying = true;
    s->headers_sent = false;
    s->close_after = status >= 400 && status != 404 && status != 409;
    lws_callback_on_writable(s->wsi);
}

static void reply_json(ona__inspect_session *s, unsigned status, json_t *j) {
    char *text = j ? json_dumps(j, ONA__INSPECT_JSON) : NULL;
    json_decref(j);
    ona__inspect_reply(s, status, text);
}

static void refuse(ona__inspect_session *s, unsigned status, const char *why) {
    s->refused = true;
    ona__inspect_reply(s, status, ona__inspect_error_text("%s", why));
}

/* Writes the next piece of the answer; -1 closes the connection. */
static int write_reply(ona__inspect *in, struct lws *wsi, ona__inspect_session *s) {
    if (!s->replying)
        return 0;
    if (!s->headers_sent) {
        unsigned char buf[LWS_PRE + 1024];
        unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        char csp[256];
        snprintf(csp, sizeof csp,
                 "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                 "img-src data:; connect-src 'self' ws://%s:%d",
                 in->host, in->port);
        if (lws_add_http_common_headers(wsi, s->status, s->type, s->reply_len, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-store", 8, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                        (const unsigned char *)"nosniff", 7, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
                                        (const unsigned char *)csp, (int)strlen(csp), &p, end) ||
            (s->close_after &&
             lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
                                          (const unsigned char *)"close", 5, &p, end)) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        s->headers_sent = true;
        if (s->reply_len) {
            lws_callback_on_writable(wsi);
            return 0;
        }
    } else {
        /* As many pieces as the socket takes now: the loop is polled once a frame. */
        static unsigned char chunk[LWS_PRE + CHUNK]; /* main only */
        bool last;
        do {
            size_t n = s->reply_len - s->reply_sent;
            n = n > CHUNK ? CHUNK : n;
            last = s->reply_sent + n == s->reply_len;
            memcpy(chunk + LWS_PRE, s->reply + s->reply_sent, n);
            if (lws_write(wsi, chunk + LWS_PRE, n,
                          last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
                return -1;
            s->reply_sent += n;
        } while (!last && !lws_send_pipe_choked(wsi));
        if (!last) {
            lws_callback_on_writable(wsi);
            return 0;
        }
    }
    s->replying = false;
    free(s->reply);
    s->reply = NULL;
    if (s->close_after)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* --- Checks ---------------------------------------------------------------------------------- */

static bool token_equal(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    unsigned char diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i % (m ? m : 1)]);
    return diff == 0;
}

static bool rate_ok(ona__inspect *in) {
    uint64_t now = ona__now_ns();
    in->bucket += (double)(now - in->bucket_ns) / 1e9 * ONA__INSPECT_RATE;
    if (in->bucket > ONA__INSPECT_RATE)
        in->bucket = ONA__INSPECT_RATE;
    in->bucket_ns = now;
    if (in->bucket < 1)
        return false;
    in->bucket -= 1;
    return true;
}

/* Why the request is refused (with its status), or NULL: Host, Origin, token. */
static const char *check_request(ona__inspect *in, struct lws *wsi, unsigned *status) {
    char value[256];
    *status = 403;
    if (!in->any) {
        int n = lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_HOST);
        if (n > 0 && strcmp(value, in->origins[0] + 7) != 0 &&
            (!in->origins[1][0] || strcmp(value, in->origins[1] + 7) != 0))
            return "the Host header does not name the inspector";
    }
    int n = lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_ORIGIN);
    if (n != 0 && (n < 0 || (strcmp(value, in->origins[0]) != 0 &&
                             (!in->origins[1][0] || strcmp(value, in->origins[1]) != 0))))
        return "cross-origin requests are refused: only the inspector's own page may call it";
    *status = 401;
    const char *given = NULL;
    char arg[128];
    if (lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_HTTP_AUTHORIZATION) > 7 &&
        strncmp(value, "Bearer ", 7) == 0)
        given = value + 7;
    else
        given = lws_get_urlarg_by_name(wsi, "token=", arg, sizeof arg);
    if (!given || !token_equal(given, in->token))
        return "a valid token is needed: Authorization: Bearer TOKEN, or ?token=TOKEN";
    return NULL;
}

/* --- Routing --------------------------------------------------------------------------------- */

static void route(ona__inspect *in, ona__inspect_session *s) {
    const char *p = s->path;
    if (!s->post && (strcmp(p, "/") == 0 || strcmp(p, "/index.html") == 0)) {
        free(s->reply);
        s->reply = malloc(ona_inspect_page_html_size);
        if (!s->reply) {
            refuse(s, 503, "out of memory");
            return;
        }
        memcpy(s->reply, ona_inspect_page_html, ona_inspect_page_html_size);
        s->reply_len = ona_inspect_page_html_size;
        s->reply_sent = 0;
        s->status = 200;
        s->type = "text/html; charset=utf-8";
        s->replying = true;
        s->headers_sent = false;
        s->close_after = false;
        lws_callback_on_writable(s->wsi);
        return;
    }
    if (!s->post && strcmp(p, "/api/systems") == 0) {
        reply_json(s, 200, ona__inspect_systems(in));
    } else if (!s->post && strcmp(p, "/api/frame") == 0) {
        reply_json(s, 200, ona__inspect_frame(in));
    } else if (!s->post && strcmp(p, "/api/messages") == 0) {
        char arg[128];
        const char *name = lws_get_urlarg_by_name(s->wsi, "system=", arg, sizeof arg);
        unsigned status;
        json_t *j = ona__inspect_messages(in, name, &status);
        reply_json(s, status, j);
    } else if (s->post && strcmp(p, "/api/eval") == 0) {
        ona__inspect_eval(in, s);
    } else if (s->post && (strcmp(p, "/api/pause") == 0 || strcmp(p, "/api/resume") == 0 ||
                           strcmp(p, "/api/step") == 0)) {
        if (p[5] == 'p')
            in->paused = true;
        else if (p[5] == 'r')
            in->paused = false;
        else {
            in->paused = true;
            in->steps++;
        }
        reply_json(s, 200,
                   json_pack("{s:b,s:b,s:I}", "ok", 1, "paused", in->paused, "frame",
                             (json_int_t)in->rt->core.frame));
    } else {
        refuse(s, 404, "no such endpoint (see the README, Inspector)");
    }
}

static void session_reset(ona__inspect_session *s) {
    free(s->body);
    free(s->reply);
    ona__free(s->eval_code);
    struct lws *wsi = s->wsi;
    memset(s, 0, sizeof *s);
    s->wsi = wsi;
}

static void session_drop(ona__inspect *in, ona__inspect_session *s) {
    for (ona__inspect_session **p = &in->pending; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    session_reset(s);
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in_,
                         size_t len) {
    ona__inspect_session *s = user;
    ona__inspect *in;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        in = inspector_of(wsi);
        session_drop(in, s);
        s->wsi = wsi;
        s->post = lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0;
        snprintf(s->path, sizeof s->path, "%s", (const char *)in_);
        unsigned status;
        const char *why;
        if (!rate_ok(in)) {
            refuse(s, 429, "too many requests: at most 500 a second");
            return 0;
        }
        if ((why = check_request(in, wsi, &status)) != NULL) {
            refuse(s, status, why);
            return 0;
        }
        if (s->post) {
            char value[32];
            long n = lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0
                         ? strtol(value, NULL, 10)
                         : 0;
            if (n > ONA__INSPECT_BODY_MAX || n < 0) {
                refuse(s, 413, "the body is too large (at most 64 KiB)");
                return 0;
            }
            if (n == 0)
                route(in, s); /* no body will come */
            return 0;
        }
        route(in, s);
        return 0;
    }
    case LWS_CALLBACK_HTTP_BODY: {
        if (s->refused)
            return 0;
        if (s->body_len + len > ONA__INSPECT_BODY_MAX) {
            refuse(s, 413, "the body is too large (at most 64 KiB)");
            return 0;
        }
        char *grown = realloc(s->body, s->body_len + len + 1);
        if (!grown) {
            refuse(s, 503, "out of memory");
            return 0;
        }
        memcpy(grown + s->body_len, in_, len);
        s->body = grown;
        s->body_len += len;
        s->body[s->body_len] = '\0';
        return 0;
    }
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (!s->refused && !s->replying && !s->eval_waiting)
            route(inspector_of(wsi), s);
        free(s->body); /* read by route, not needed after */
        s->body = NULL;
        s->body_len = 0;
        return 0;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return write_reply(inspector_of(wsi), wsi, s);
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (s)
            session_drop(inspector_of(wsi), s);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in_, len);
    }
}

/* --- The stream ------------------------------------------------------------------------------ */

typedef struct stream_client {
    uint64_t sent_seq;
    bool counted; /* established, so counted in `clients` */
} stream_client;

static int stream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                           void *in_, size_t len) {
    stream_client *c = user;
    ona__inspect *in = inspector_of(wsi);
    (void)in_;
    (void)len;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        unsigned status;
        const char *why = rate_ok(in) ? check_request(in, wsi, &status) : "too many requests";
        if (why)
            ona_log(ONA_LOG_DEBUG, "inspector", "stream refused: %s", why);
        return why != NULL;
    }
    case LWS_CALLBACK_ESTABLISHED:
        c->sent_seq = 0;
        c->counted = true;
        in->clients++;
        if (in->tick)
            lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (c && c->counted)
            in->clients--;
        if (c)
            c->counted = false;
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        if (!in->tick || c->sent_seq == in->tick_seq)
            return 0;
        unsigned char *buf = malloc(LWS_PRE + in->tick_len);
        if (!buf)
            return 0;
        memcpy(buf + LWS_PRE, in->tick, in->tick_len);
        int n = lws_write(wsi, buf + LWS_PRE, in->tick_len, LWS_WRITE_TEXT);
        free(buf);
        if (n < (int)in->tick_len)
            return -1;
        c->sent_seq = in->tick_seq;
        return 0;
    }
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"http", http_callback, sizeof(ona__inspect_session), 0, 0, NULL, 0},
    {"ona-inspect", stream_callback, sizeof(stream_client), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void tick(ona__inspect *in) {
    uint64_t now = ona__now_ns();
    if (!in->clients || now - in->tick_ns < TICK_MIN_NS)
        return;
    json_t *j = json_pack("{s:s,s:o,s:o}", "type", "tick", "frame", ona__inspect_frame(in),
                          "systems", ona__inspect_systems(in));
    char *text = j ? json_dumps(j, ONA__INSPECT_JSON) : NULL;
    json_decref(j);
    if (!text)
        return;
    free(in->tick);
    in->tick = text;
    in->tick_len = strlen(text);
    in->tick_seq++;
    in->tick_ns = now;
    lws_callback_on_writable_all_protocol(in->ctx, &protocols[1]);
}

/* --- Life ------------------------------------------------------------------------------------ */

static void lws_log(int level, const char *line) {
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    ona_log(level & LLL_ERR ? ONA_LOG_ERROR : ONA_LOG_WARN, "inspector", "libwebsockets: %.*s",
            (int)n, line);
}

/* HOST:PORT, HOST a dotted IPv4 address, PORT 0..65535. */
static bool parse_address(const char *text, char *host, size_t size, int *port) {
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t)(colon - text) >= size)
        return false;
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = '\0';
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    struct in_addr a;
    if (!colon[1] || *end || errno || p < 0 || p > 65535 || inet_pton(AF_INET, host, &a) != 1)
        return false;
    *port = (int)p;
    return true;
}

static bool valid_token(const char *t) {
    size_t n = strlen(t);
    if (n < 8 || n > 64)
        return false;
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
              *t == '_' || *t == '-' || *t == '.'))
            return false;
    return true;
}

/* Binds the address once before libwebsockets does, to tell a port in use (ONA_EBUSY) from an
 * address this machine does not have (ONA_EINVAL) in words; libwebsockets says neither. */
static int try_bind(const char *host, int port) {
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return ONA_EIO;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
    close(fd);
    if (rc == EADDRINUSE) {
        ona_log(ONA_LOG_ERROR, "inspector",
                "cannot listen on %s:%d: the port is in use (another game or program has it); "
                "choose another with --inspect %s:PORT, or PORT 0 for any free one",
                host, port, host);
        return ONA_EBUSY;
    }
    if (rc) {
        ona_log(ONA_LOG_ERROR, "inspector", "cannot listen on %s:%d: %s", host, port,
                strerror(rc));
        return rc == EADDRNOTAVAIL ? ONA_EINVAL : ONA_EIO;
    }
    return 0;
}

int ona__inspect_start(ona_runtime *rt) {
    const ona_runtime_desc *d = &rt->desc;
    char host[64];
    int port;
    if (!parse_address(d->inspect, host, sizeof host, &port)) {
        ona_log(ONA_LOG_ERROR, "inspector",
                "'%s' is not an address to listen on: give IPv4:PORT, such as 127.0.0.1:9330",
                d->inspect);
        return ONA_EINVAL;
    }
    struct in_addr a;
    inet_pton(AF_INET, host, &a);
    bool loopback = (ntohl(a.s_addr) >> 24) == 127;
    if (!loopback && !d->inspect_any) {
        ona_log(ONA_LOG_ERROR, "inspector",
                "%s is not a loopback address: the inspector lets whoever reaches it run code in "
                "the game, so it listens on 127.0.0.1 unless --inspect-any (inspect_any) allows "
                "another address",
                host);
        return ONA_EINVAL;
    }
    if (d->inspect_token && !valid_token(d->inspect_token)) {
        ona_log(ONA_LOG_ERROR, "inspector",
                "the inspector token must be 8 to 64 characters of A-Z a-z 0-9 _ . -");
        return ONA_EINVAL;
    }
    ona__inspect *in = ona__calloc(1, sizeof *in);
    if (!in)
        return ONA_ENOMEM;
    rt->inspect = in;
    in->rt = rt;
    in->any = !loopback;
    snprintf(in->host, sizeof in->host, "%s", host);
    if (d->inspect_token) {
        snprintf(in->token, sizeof in->token, "%s", d->inspect_token);
    } else {
        unsigned char bytes[16];
        if (getrandom(bytes, sizeof bytes, 0) != (ssize_t)sizeof bytes) {
            ona_log(ONA_LOG_ERROR, "inspector", "no random token: getrandom failed");
            return ONA_EIO;
        }
        for (size_t i = 0; i < sizeof bytes; i++)
            snprintf(in->token + 2 * i, 3, "%02x", bytes[i]);
    }
    in->slices = ona__calloc(ONA__INSPECT_SLICES, sizeof *in->slices);
    if (!in->slices)
        return ONA_ENOMEM;
    int rc = try_bind(host, port);
    if (rc)
        return rc;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    void *loops[] = {&rt->loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = in->host;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_DISABLE_IPV6 |
                   LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.foreign_loops = loops;
    info.user = in;
    info.pcontext = &in->ctx_alive;
    info.max_http_header_data = 4096;
    info.timeout_secs = 10;
    info.keepalive_timeout = 10;
    info.fd_limit_per_thread = 128;
    info.count_threads = 1;
    in->ctx = lws_create_context(&info);
    if (!in->ctx) {
        ona_log(ONA_LOG_ERROR, "inspector",
                "cannot serve on %s:%d (libwebsockets could not start; is "
                "libwebsockets-evlib-uv installed?)",
                host, port);
        return ONA_EIO;
    }
    in->ctx_alive = in->ctx;
    in->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(in->ctx, "default"));
    snprintf(in->origins[0], sizeof in->origins[0], "http://%s:%d", host, in->port);
    if (strcmp(host, "127.0.0.1") == 0)
        snprintf(in->origins[1], sizeof in->origins[1], "http://localhost:%d", in->port);
    if (uv_timer_init(&rt->loop, &in->idle_timer) == 0)
        in->idle_timer_ready = true;
    in->bucket = ONA__INSPECT_RATE;
    in->bucket_ns = ona__now_ns();
    rt->core.timeline = true;
    rt->core.tracing = true;
    ona_log(ONA_LOG_DEBUG, "inspector", "serving on %s:%d", host, in->port);
    return 0;
}

static void timer_closed(uv_handle_t *h) {
    (void)h;
}

void ona__inspect_stop(ona_runtime *rt) {
    ona__inspect *in = rt->inspect;
    if (!in)
        return;
    rt->core.timeline = false;
    if (in->ctx) {
        lws_context_destroy(in->ctx);
        /* Its handles close through the loop; the context is freed once they have. */
        for (int i = 0; in->ctx_alive && i < 1000; i++)
            uv_run(&rt->loop, UV_RUN_NOWAIT);
        /* With a foreign loop, the context's last stage is a second destroy, once its handles
         * have closed (lws clears ctx_alive when the context is freed). */
        if (in->ctx_alive)
            lws_context_destroy(in->ctx_alive);
        if (in->ctx_alive)
            ona_log(ONA_LOG_WARN, "inspector", "libwebsockets did not finish closing");
    }
    if (in->idle_timer_ready) {
        uv_close((uv_handle_t *)&in->idle_timer, timer_closed);
        uv_run(&rt->loop, UV_RUN_NOWAIT);
    }
    if (rt->core_ready)
        ona__inspect_watches_expire(in, true);
    free(in->tick);
    ona__free(in->slices);
    ona__free(in);
    rt->inspect = NULL;
}

/* --- Frames ---------------------------------------------------------------------------------- */

static void idle_wake(uv_timer_t *t) {
    (void)t;
}

bool ona__inspect_hold(ona_runtime *rt) {
    ona__inspect *in = rt->inspect;
    ona__inspect_run_pending(in);
    ona__inspect_watches_expire(in, false);
    if (!in->paused)
        return false;
    if (in->steps) {
        in->steps--;
        return false;
    }
    /* Paused: wait on the loop (the inspector's sockets, the watcher) up to 16 ms, so a paused
     * game neither spins nor stops answering. */
    if (in->idle_timer_ready)
        uv_timer_start(&in->idle_timer, idle_wake, 16, 0);
    uv_run(&rt->loop, UV_RUN_ONCE);
    if (in->idle_timer_ready)
        uv_timer_stop(&in->idle_timer);
    ona__inspect_run_pending(in);
    if (in->paused && in->steps) {
        in->steps--;
        return false;
    }
    return in->paused;
}

void ona__inspect_turns_done(ona_runtime *rt, uint64_t frame_start_ns, uint64_t turns_end_ns) {
    ona__inspect *in = rt->inspect;
    ona__core *core = &rt->core;
    in->slice_count = 0;
    in->slices_dropped = 0;
    for (uint32_t w = 0; w < core->thread_count; w++) {
        const ona__trace_buffer *b = &core->workers[w].trace;
        for (uint32_t i = 0; i < b->count; i++) {
            const ona__trace_event *e = &b->events[i];
            if (in->slice_count == ONA__INSPECT_SLICES) {
                in->slices_dropped++;
                continue;
            }
            ona__inspect_slice *s = &in->slices[in->slice_count++];
            s->thread = w;
            s->kind = e->kind;
            s->system = e->sys->id;
            snprintf(s->name, sizeof s->name, "%s", e->sys->name);
            s->start_ns = e->start_ns > frame_start_ns ? e->start_ns - frame_start_ns : 0;
            s->end_ns = e->end_ns > frame_start_ns ? e->end_ns - frame_start_ns : 0;
        }
    }
    in->frame = core->frame;
    in->dt = core->dt;
    in->turns_ns = turns_end_ns - frame_start_ns;
}

void ona__inspect_frame_done(ona_runtime *rt, uint64_t frame_ns, uint64_t present_ns) {
    ona__inspect *in = rt->inspect;
    in->frame_ns = frame_ns;
    in->present_ns = present_ns;
    tick(in);
}

int ona_runtime_inspect_url(ona_runtime *rt, char *out, size_t size) {
    if (!rt || !out || !size)
        return ONA_EINVAL;
    if (!rt->inspect)
        return ONA_ENOENT;
    int n = snprintf(out, size, "http://%s:%d/?token=%s", rt->inspect->host, rt->inspect->port,
                     rt->inspect->token);
    return n > 0 && (size_t)n < size ? 0 : ONA_ERANGE;
}
