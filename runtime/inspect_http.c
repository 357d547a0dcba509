/*
 * inspect_http.c: the inspector's protocols (inspect.h): the HTTP sessions (the checks, the
 * routing, the answers written in pieces) and the WebSocket stream of ticks.
 *
 * Design note. Every callback here runs on the inspector's thread, inside its loop (inspect.c).
 * Reads are answered from the newest snapshot main published, at once; actions are queued for
 * main and answered when main has run them (ona__inspect_serve_wake). Security, in the order a
 * request meets it:
 *  - the rate: a bucket of ONA__INSPECT_RATE requests a second for every client together (429);
 *  - the Host header must name the inspector itself (loopback only), which stops DNS rebinding,
 *    and an Origin header, when present, must be the inspector's own origin (403): a web page
 *    elsewhere in the player's browser cannot drive the game; curl and the console send none;
 *  - the token, 128 random bits unless fixed, in `Authorization: Bearer TOKEN` or `?token=TOKEN`
 *    (compared in constant time; 401 without it); WebSocket upgrades check the same (a browser
 *    cannot set headers there, so the page passes ?token=);
 *  - a body over ONA__INSPECT_BODY_MAX (413), a header over 4 KiB (libwebsockets refuses it).
 * Answers are written in 16 KiB pieces from the writeable callback, as many as the socket takes
 * without blocking. Refusals close the connection after the answer.
 */
#include "inspect.h"

#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char ona_inspect_page_html[];
extern const unsigned long ona_inspect_page_html_size;

enum { CHUNK = ONA__INSPECT_CHUNK, TICK_MIN_NS = 50000000 /* at most 20 ticks a second */ };

static void make_tick(ona__inspect *in, bool now);

static ona__inspect *inspector_of(struct lws *wsi) {
    return lws_context_user(lws_get_context(wsi));
}

/* --- Answers --------------------------------------------------------------------------------- */

static void reply_clear(ona__inspect_session *s) {
    free(s->owned);
    s->owned = NULL;
    ona__inspect_snap_release(s->snap);
    s->snap = NULL;
    s->reply = NULL;
    s->reply_len = 0;
}

/* Starts writing `text` (`len` bytes): owned by the session, or held through its snapshot. */
static void reply_start(ona__inspect_session *s, unsigned status, const char *type,
                        const char *text, size_t len, bool close_after) {
    s->status = status;
    s->type = type;
    s->reply = text;
    s->reply_len = len;
    s->reply_sent = 0;
    s->replying = true;
    s->headers_sent = false;
    s->close_after = close_after;
    lws_callback_on_writable(s->wsi);
}

/* Answers with JSON text (malloc'd, taken; NULL: out of memory). */
static void reply_text(ona__inspect_session *s, unsigned status, char *json) {
    reply_clear(s);
    if (!json) {
        status = 503;
        json = strdup("{\"ok\":false,\"error\":\"out of memory\"}");
    }
    s->owned = json;
    reply_start(s, status, "application/json", json, json ? strlen(json) : 0,
                status >= 400 && status != 404 && status != 409);
}

static void refuse(ona__inspect_session *s, unsigned status, const char *why) {
    s->refused = true;
    reply_text(s, status, ona__inspect_error_text("%s", why));
}

/* Answers with a document of the newest snapshot, which the session holds while it writes. */
static void reply_document(ona__inspect *in, ona__inspect_session *s,
                           const char *(*doc)(ona__inspect_snap *, size_t *)) {
    ona__inspect_take(in);
    if (!in->current) {
        refuse(s, 503, "the game has not run a frame yet; try again");
        return;
    }
    size_t len;
    const char *text = doc(in->current, &len);
    if (!text) {
        refuse(s, 503, "out of memory");
        return;
    }
    reply_clear(s);
    s->snap = in->current;
    s->snap->refs++;
    reply_start(s, 200, "application/json", text, len, false);
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
             lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close",
                                          5, &p, end)) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return -1;
        s->headers_sent = true;
        if (s->reply_len) {
            lws_callback_on_writable(wsi);
            return 0;
        }
    } else {
        /* As many pieces as the socket takes now. */
        unsigned char *chunk = in->chunk;
        bool last;
        do {
            size_t n = s->reply_len - s->reply_sent;
            n = n > CHUNK ? CHUNK : n;
            last = s->reply_sent + n == s->reply_len;
            memcpy(chunk + LWS_PRE, s->reply + s->reply_sent, n);
            if (lws_write(wsi, chunk + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) !=
                (int)n)
                return -1;
            s->reply_sent += n;
        } while (!last && !lws_send_pipe_choked(wsi));
        if (!last) {
            lws_callback_on_writable(wsi);
            return 0;
        }
    }
    s->replying = false;
    reply_clear(s);
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

/* Sends an action to main; the session waits for its answer. */
static void post(ona__inspect *in, ona__inspect_session *s, ona__inspect_act kind, const char *name,
                 const char *code, size_t code_len) {
    ona__inspect_action *a = calloc(1, sizeof *a);
    if (!a || (code && !(a->code = malloc(code_len + 1)))) {
        free(a);
        refuse(s, 503, "out of memory");
        return;
    }
    a->kind = kind;
    if (name)
        snprintf(a->name, sizeof a->name, "%s", name);
    if (code) {
        memcpy(a->code, code, code_len);
        a->code[code_len] = '\0';
        a->code_len = code_len;
    }
    a->session = s;
    s->action = a;
    ona__inspect_post(in, a);
}

/* POST /api/eval: the body is read here; the eval runs on main. */
static void eval(ona__inspect *in, ona__inspect_session *s) {
    json_error_t jerr;
    json_t *req = json_loadb(s->body ? s->body : "", s->body_len, 0, &jerr);
    const char *name = json_string_value(json_object_get(req, "system"));
    json_t *code = json_object_get(req, "code");
    if (!req || !name || !json_is_string(code))
        reply_text(
            s, 400,
            req ? ona__inspect_error_text("needs {\"system\": NAME, \"code\": LUA}")
                : ona__inspect_error_text("malformed JSON at line %d: %s", jerr.line, jerr.text));
    else if (strlen(name) >= sizeof((ona__inspect_action *)0)->name)
        reply_text(s, 404, ona__inspect_error_text("no live system of that name"));
    else
        post(in, s, ONA__ACT_EVAL, name, json_string_value(code), json_string_length(code));
    json_decref(req);
}

static void route(ona__inspect *in, ona__inspect_session *s) {
    const char *p = s->path;
    if (!s->post && (strcmp(p, "/") == 0 || strcmp(p, "/index.html") == 0)) {
        reply_clear(s);
        reply_start(s, 200, "text/html; charset=utf-8", (const char *)ona_inspect_page_html,
                    ona_inspect_page_html_size, false);
    } else if (!s->post && strcmp(p, "/api/systems") == 0) {
        reply_document(in, s, ona__inspect_snap_systems);
    } else if (!s->post && strcmp(p, "/api/frame") == 0) {
        reply_document(in, s, ona__inspect_snap_frame);
    } else if (!s->post && strcmp(p, "/api/messages") == 0) {
        char arg[128];
        const char *name = lws_get_urlarg_by_name(s->wsi, "system=", arg, sizeof arg);
        if (!name)
            reply_text(s, 400, ona__inspect_error_text("needs ?system=NAME"));
        else
            post(in, s, ONA__ACT_MESSAGES, name, NULL, 0);
    } else if (s->post && strcmp(p, "/api/eval") == 0) {
        eval(in, s);
    } else if (s->post && strcmp(p, "/api/pause") == 0) {
        post(in, s, ONA__ACT_PAUSE, NULL, NULL, 0);
    } else if (s->post && strcmp(p, "/api/step") == 0) {
        post(in, s, ONA__ACT_STEP, NULL, NULL, 0);
    } else if (s->post && strcmp(p, "/api/resume") == 0) {
        post(in, s, ONA__ACT_RESUME, NULL, NULL, 0);
    } else {
        refuse(s, 404, "no such endpoint (see the README, Inspector)");
    }
}

/* Forgets the request: an action in flight is left to main, its answer to be dropped. */
static void session_reset(ona__inspect_session *s) {
    free(s->body);
    reply_clear(s);
    if (s->action)
        s->action->session = NULL;
    struct lws *wsi = s->wsi;
    memset(s, 0, sizeof *s);
    s->wsi = wsi;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in_,
                         size_t len) {
    ona__inspect_session *s = user;
    ona__inspect *in;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        in = inspector_of(wsi);
        session_reset(s);
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
        if (!s->refused && !s->replying && !s->action)
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
            session_reset(s);
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

static int stream_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in_,
                           size_t len) {
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
        /* relaxed: main only reads whether to wake this thread after a frame. */
        atomic_store_explicit(&in->streaming, in->clients, memory_order_relaxed);
        make_tick(in, true);
        if (in->tick)
            lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (c && c->counted) {
            in->clients--;
            atomic_store_explicit(&in->streaming, in->clients, memory_order_relaxed);
        }
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

const struct lws_protocols *ona__inspect_protocols(void) {
    return protocols;
}

void ona__inspect_take(ona__inspect *in) {
    /* acquire: pairs with main's exchange, which published the snapshot's contents. */
    ona__inspect_snap *snap = atomic_exchange_explicit(&in->incoming, NULL, memory_order_acquire);
    if (!snap)
        return;
    snap->refs = 1;
    ona__inspect_snap_release(in->current);
    in->current = snap;
}

void ona__inspect_snap_release(ona__inspect_snap *snap) {
    if (snap && --snap->refs == 0)
        ona__inspect_snap_free(snap);
}

/* A tick from the newest snapshot, when it is new and the last is old enough (or `now`). */
static void make_tick(ona__inspect *in, bool now) {
    ona__inspect_take(in);
    uint64_t t = ona__now_ns();
    if (!in->current || (in->tick && in->tick_snap == in->current->seq) ||
        (!now && t - in->tick_ns < TICK_MIN_NS))
        return;
    size_t fl, sl;
    const char *frame = ona__inspect_snap_frame(in->current, &fl);
    const char *systems = ona__inspect_snap_systems(in->current, &sl);
    if (!frame || !systems)
        return;
    static const char head[] = "{\"type\":\"tick\",\"frame\":", mid[] = ",\"systems\":";
    size_t len = sizeof head - 1 + fl + sizeof mid - 1 + sl + 1;
    char *text = malloc(len + 1);
    if (!text)
        return;
    snprintf(text, len + 1, "%s%s%s%s}", head, frame, mid, systems);
    free(in->tick);
    in->tick = text;
    in->tick_len = len;
    in->tick_seq++;
    in->tick_ns = t;
    in->tick_snap = in->current->seq;
    lws_callback_on_writable_all_protocol(in->ctx, &protocols[1]);
}

void ona__inspect_serve_wake(ona__inspect *in) {
    uv_mutex_lock(&in->lock);
    ona__inspect_action *done = in->done;
    in->done = NULL;
    uv_mutex_unlock(&in->lock);
    while (done) {
        ona__inspect_action *a = done;
        done = a->next;
        if (a->session) {
            ona__inspect_session *s = a->session;
            s->action = NULL;
            reply_text(s, a->status, a->reply);
            a->reply = NULL;
        }
        free(a->code);
        free(a->reply);
        free(a);
    }
    if (in->clients)
        make_tick(in, false);
}

void ona__inspect_drop_answers(ona__inspect *in) {
    uv_mutex_lock(&in->lock);
    ona__inspect_action *done = in->done;
    in->done = NULL;
    uv_mutex_unlock(&in->lock);
    while (done) {
        ona__inspect_action *a = done;
        done = a->next;
        free(a->code);
        free(a->reply);
        free(a);
    }
}
