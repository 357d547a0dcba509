/*
 * inspect.c: the inspector's server (inspect.h): starting and stopping libwebsockets on the
 * runtime's own libuv loop, and the frames (pause and step, the timeline, the stream's tick).
 * The requests and the stream are answered in inspect_http.c.
 *
 * Design note. The server is a libwebsockets context made with LWS_SERVER_OPTION_LIBUV over the
 * runtime's loop (a foreign loop), so its sockets are handles polled by main at the frame
 * boundary like the file watcher's: no thread of its own, and every callback runs where main
 * owns the systems. The listening address is loopback unless inspect_any allows another; the
 * checks each request meets are listed in inspect_http.c.
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
    info.protocols = ona__inspect_protocols();
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
    ona__inspect_tick(in);
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
