/*
 * inspect.c: the inspector's server (inspect.h): its thread, which runs libwebsockets on a libuv
 * loop of its own, and the frames (pause and step, the timeline, the snapshot each frame
 * publishes). The requests and the stream are answered in inspect_http.c, the actions run in
 * inspect_act.c.
 *
 * Design note. The server has a thread of its own so that a read never waits for main: a large
 * answer leaves as fast as the socket takes it, whatever the frame is doing. The listening
 * address is loopback unless inspect_any allows another; the checks each request meets are
 * listed in inspect_http.c. Start binds once on main (to say which error in words), then the
 * thread makes the context and says whether it could; stop wakes the thread, which destroys the
 * context on its loop, and joins it.
 */
#include "inspect.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

/* --- The thread ----------------------------------------------------------------------------- */

static void thread_woken(uv_async_t *h) {
    ona__inspect *in = h->data;
    ona__inspect_serve_wake(in);
}

static void main_woken(uv_async_t *h) {
    (void)h; /* the actions run in ona__inspect_hold, right after the loop's poll */
}

static void close_walk(uv_handle_t *h, void *arg) {
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* The inspector's thread: makes the context on its own loop, serves until stop, destroys it. */
static void serve(void *arg) {
    ona__inspect *in = arg;
    pthread_setname_np(pthread_self(), "ona-inspector");
    /* Below the game's threads: when the cores are busy, the game's frame comes first. */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) != 0)
        ona_log(ONA_LOG_DEBUG, "inspector", "its thread keeps the game's priority");
    int rc = uv_loop_init(&in->loop) == 0 ? 0 : ONA_EIO;
    bool loop_ready = rc == 0;
    if (!rc && uv_async_init(&in->loop, &in->wake, thread_woken) != 0)
        rc = ONA_EIO;
    if (!rc && !(in->chunk = malloc(LWS_PRE + ONA__INSPECT_CHUNK)))
        rc = ONA_ENOMEM;
    in->wake.data = in;
    if (!rc) {
        in->bucket = ONA__INSPECT_RATE;
        in->bucket_ns = ona__now_ns();
        lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
        void *loops[] = {&in->loop};
        struct lws_context_creation_info info;
        memset(&info, 0, sizeof info);
        info.port = in->port;
        info.iface = in->host;
        info.protocols = ona__inspect_protocols();
        info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_DISABLE_IPV6 |
                       LWS_SERVER_OPTION_VALIDATE_UTF8 |
                       LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
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
                    in->host, in->port);
            rc = ONA_EIO;
        } else {
            in->ctx_alive = in->ctx;
            /* Written before the first request is read (the loop runs after this). */
            in->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(in->ctx, "default"));
            snprintf(in->origins[0], sizeof in->origins[0], "http://%s:%d", in->host, in->port);
            if (strcmp(in->host, "127.0.0.1") == 0)
                snprintf(in->origins[1], sizeof in->origins[1], "http://localhost:%d", in->port);
        }
    }
    in->start_rc = rc;
    uv_sem_post(&in->started);
    /* acquire: pairs with stop's release store. */
    while (!rc && !atomic_load_explicit(&in->stopping, memory_order_acquire))
        uv_run(&in->loop, UV_RUN_ONCE);
    if (in->ctx) {
        lws_context_destroy(in->ctx);
        /* Its handles close through the loop; the context is freed once they have. */
        for (int i = 0; in->ctx_alive && i < 1000; i++)
            uv_run(&in->loop, UV_RUN_NOWAIT);
        /* With a foreign loop, the context's last stage is a second destroy, once its handles
         * have closed (lws clears ctx_alive when the context is freed). */
        if (in->ctx_alive)
            lws_context_destroy(in->ctx_alive);
        if (in->ctx_alive)
            ona_log(ONA_LOG_WARN, "inspector", "libwebsockets did not finish closing");
    }
    ona__inspect_drop_answers(in);
    ona__inspect_snap_free(in->current);
    in->current = NULL;
    free(in->tick);
    in->tick = NULL;
    free(in->chunk);
    in->chunk = NULL;
    if (loop_ready) {
        uv_walk(&in->loop, close_walk, NULL);
        uv_run(&in->loop, UV_RUN_DEFAULT);
        uv_loop_close(&in->loop);
    }
}

void ona__inspect_post(ona__inspect *in, ona__inspect_action *a) {
    uv_mutex_lock(&in->lock);
    a->next = in->to_main;
    in->to_main = a;
    uv_mutex_unlock(&in->lock);
    uv_async_send(&in->main_wake);
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
        ona_log(ONA_LOG_ERROR, "inspector", "cannot listen on %s:%d: %s", host, port, strerror(rc));
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
    in->port = port;
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
    if (uv_mutex_init(&in->lock) != 0)
        return ONA_EIO;
    in->lock_ready = true;
    if (uv_async_init(&rt->loop, &in->main_wake, main_woken) != 0)
        return ONA_EIO;
    in->main_wake_ready = true;
    if (uv_timer_init(&rt->loop, &in->idle_timer) == 0)
        in->idle_timer_ready = true;
    if (uv_sem_init(&in->started, 0) != 0)
        return ONA_EIO;
    uv_thread_options_t opts = {.flags = UV_THREAD_HAS_STACK_SIZE, .stack_size = 1 << 20};
    if (uv_thread_create_ex(&in->thread, &opts, serve, in) != 0) {
        uv_sem_destroy(&in->started);
        ona_log(ONA_LOG_ERROR, "inspector", "cannot start the inspector's thread");
        return ONA_EIO;
    }
    in->thread_started = true;
    uv_sem_wait(&in->started); /* the thread wrote start_rc and port before posting */
    uv_sem_destroy(&in->started);
    if (in->start_rc)
        return in->start_rc;
    rt->core.timeline = true;
    rt->core.tracing = true;
    ona_log(ONA_LOG_DEBUG, "inspector", "serving on %s:%d", host, in->port);
    return 0;
}

static void handle_closed(uv_handle_t *h) {
    (void)h;
}

void ona__inspect_stop(ona_runtime *rt) {
    ona__inspect *in = rt->inspect;
    if (!in)
        return;
    rt->core.timeline = false;
    if (in->thread_started) {
        /* release: the thread's acquire load sees it after the wake. */
        atomic_store_explicit(&in->stopping, true, memory_order_release);
        if (in->start_rc == 0)
            uv_async_send(&in->wake);
        uv_thread_join(&in->thread);
    }
    if (in->idle_timer_ready)
        uv_close((uv_handle_t *)&in->idle_timer, handle_closed);
    if (in->main_wake_ready)
        uv_close((uv_handle_t *)&in->main_wake, handle_closed);
    if (in->idle_timer_ready || in->main_wake_ready)
        uv_run(&rt->loop, UV_RUN_NOWAIT);
    if (rt->core_ready)
        ona__inspect_watches_update(in, true);
    ona__inspect_actions_free(in);
    ona__inspect_snap_free(atomic_exchange_explicit(&in->incoming, NULL, memory_order_acquire));
    if (in->lock_ready)
        uv_mutex_destroy(&in->lock);
    ona__free(in->slices);
    ona__free(in);
    rt->inspect = NULL;
}

/* --- Frames ---------------------------------------------------------------------------------- */

static void idle_wake(uv_timer_t *t) {
    (void)t;
}

/* Hands the thread a snapshot of the game now; one it did not take yet is dropped. */
static void publish(ona__inspect *in) {
    ona__inspect_snap *snap = ona__inspect_snap_make(in);
    if (!snap)
        return;
    /* acq_rel: the thread's exchange acquires what was written into it; an old one it never took
     * comes back, made by this thread. */
    ona__inspect_snap_free(atomic_exchange_explicit(&in->incoming, snap, memory_order_acq_rel));
    /* relaxed: only whether to wake it for the stream. */
    if (atomic_load_explicit(&in->streaming, memory_order_relaxed))
        uv_async_send(&in->wake);
}

bool ona__inspect_hold(ona_runtime *rt) {
    ona__inspect *in = rt->inspect;
    bool ran = ona__inspect_run_actions(in);
    ona__inspect_watches_update(in, false);
    if (in->paused && !in->steps) {
        /* Paused: wait on the loop (an action queued, the watcher) up to 16 ms, so a paused game
         * neither spins nor leaves an action waiting. */
        if (in->idle_timer_ready)
            uv_timer_start(&in->idle_timer, idle_wake, 16, 0);
        uv_run(&rt->loop, UV_RUN_ONCE);
        if (in->idle_timer_ready)
            uv_timer_stop(&in->idle_timer);
        ran = ona__inspect_run_actions(in) || ran;
    }
    bool held = in->paused;
    if (held && in->steps) {
        in->steps--;
        held = false;
    }
    /* Held, what the actions changed shows in a new snapshot (paused, an eval's effect), made
     * before their answers leave; else the frame's own snapshot shows it. */
    if (held && ran)
        publish(in);
    ona__inspect_send_answers(in);
    return held;
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
    publish(in);
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
