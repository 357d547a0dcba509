/*
 * inspect.h: the inspector, a live view into a running game over HTTP and WebSocket
 * (ona_runtime_desc.inspect). Internal to the assembly: inspect.c starts and stops the server
 * (libwebsockets on the runtime's own event loop) and keeps the frames, inspect_http.c answers
 * the requests and the stream (the token and Origin checks, the limits, routing), inspect_api.c
 * the JSON documents and the actions (systems, frame, messages, eval, pause, step, resume).
 *
 * Threads: everything here runs on main. The server's callbacks run inside the loop's poll at the
 * frame boundary (ona_runtime_step) or while the game is paused (ona__inspect_hold), where main
 * owns every system: no turn runs, so the documents read the systems' fields without locks and an
 * eval runs in a system's state between its turns. What crosses threads is only each watched
 * system's ring of recent messages (core/recent.h), written by its own turn and read here
 * between frames, and the turn slices of the timeline (core/trace.h), likewise.
 *
 * Off (inspect NULL) nothing of it exists: no socket, no handle on the loop, no slices recorded.
 */
#ifndef ONA_INSPECT_H
#define ONA_INSPECT_H

#include "runtime_internal.h"

#include <jansson.h>

struct lws;
struct lws_context;
struct lws_protocols;

/* One slice of the last frame's timeline: a stretch of a turn (or of a park) on one thread. */
typedef struct ona__inspect_slice {
    uint32_t thread;
    uint8_t kind; /* ONA__TRACE_TURN or ONA__TRACE_PARKED */
    uint64_t system;
    char name[64];
    uint64_t start_ns, end_ns; /* since the frame's turns began */
} ona__inspect_slice;

/* A system whose received messages are being recorded, until `until_frame`. */
typedef struct ona__inspect_watch {
    uint64_t handle;
    ona__recent *recent;
    uint64_t until_frame;
} ona__inspect_watch;

enum {
    ONA__INSPECT_WATCHES = 16,        /* systems watched at once */
    ONA__INSPECT_WATCH_FRAMES = 600,  /* a watch lasts this long after the last ask */
    ONA__INSPECT_SLICES = 8192,       /* the timeline keeps at most this many slices */
    ONA__INSPECT_BODY_MAX = 64 << 10, /* a request's body */
    ONA__INSPECT_RATE = 500,          /* requests a second (and the burst), all clients */
    ONA__INSPECT_EVAL_FRAMES = 600,   /* an eval waits this long for a turn in progress */
};

/* How every answer is written: compact, numbers to 7 significant digits. */
#define ONA__INSPECT_JSON (JSON_COMPACT | JSON_REAL_PRECISION(7))

typedef struct ona__inspect_session ona__inspect_session;

typedef struct ona__inspect {
    ona_runtime *rt;
    struct lws_context *ctx;
    struct lws_context *ctx_alive; /* lws clears it once the context is fully destroyed */
    char host[64];
    int port;
    bool any; /* a non-loopback address was allowed: the Host header is not checked */
    char token[65];
    char origins[2][96]; /* the page's own origins: http://HOST:PORT (and localhost's) */
    /* The request rate's bucket (ONA__INSPECT_RATE). */
    double bucket;
    uint64_t bucket_ns;
    /* Pause and step: while paused, frames do not run; `steps` frames run before it holds again. */
    bool paused;
    uint32_t steps;
    uv_timer_t idle_timer; /* wakes the paused loop's wait */
    bool idle_timer_ready;
    /* The last frame: its number, dt, times and timeline. */
    uint64_t frame, frame_ns, turns_ns, present_ns;
    double dt;
    ona__inspect_slice *slices;
    uint32_t slice_count;
    uint32_t slices_dropped;
    ona__inspect_watch watches[ONA__INSPECT_WATCHES];
    uint32_t watch_count;
    /* Evals waiting for their system's turn to end. */
    ona__inspect_session *pending;
    /* The stream: the latest tick, which each WebSocket client sends when it is newer than the
     * one it sent last. */
    char *tick;
    size_t tick_len;
    uint64_t tick_seq, tick_ns;
    uint32_t clients;
} ona__inspect;

/* An HTTP request in progress, or the answer being written (libwebsockets' per-session data). */
struct ona__inspect_session {
    struct lws *wsi;
    bool post, refused;
    char path[64];
    char *body; /* the request's, then freed */
    size_t body_len;
    /* The answer. */
    unsigned status;
    const char *type;
    char *reply;
    size_t reply_len, reply_sent;
    bool replying, headers_sent, close_after;
    /* A waiting eval (in ona__inspect.pending). */
    bool eval_waiting;
    uint64_t eval_system, eval_since;
    char *eval_code;
    size_t eval_len;
    ona__inspect_session *next;
};

/* inspect.c. Main, in create (rt->inspect set): ONA_EINVAL (a malformed or refused address, a bad
 * token), ONA_EBUSY (the port is in use), ONA_EIO, ONA_ENOMEM, all logged in words. */
int ona__inspect_start(ona_runtime *rt);
/* Main, in destroy, before the loop is closed: closes every connection and the socket. */
void ona__inspect_stop(ona_runtime *rt);
/* Main, in a step after the loop's poll: runs the evals whose systems finished their turn. Then
 * whether the frame is held (paused, and no step asked for); a held step serves the inspector for
 * up to 16 ms instead, and does nothing else. */
bool ona__inspect_hold(ona_runtime *rt);
/* Main, after the frame's turns: keeps the frame's timeline. After present: its times, and the
 * tick for the stream. */
void ona__inspect_turns_done(ona_runtime *rt, uint64_t frame_start_ns, uint64_t turns_end_ns);
void ona__inspect_frame_done(ona_runtime *rt, uint64_t frame_ns, uint64_t present_ns);

/* inspect_http.c. The server's protocols, HTTP then the "ona-inspect" stream, for the context. */
const struct lws_protocols *ona__inspect_protocols(void);
/* Main, after a frame: a new tick for the stream's clients, if any is connected and the last
 * tick is old enough (at most 20 a second). */
void ona__inspect_tick(ona__inspect *in);
/* Answers (or, where a turn is in progress, queues) a session's request: sets its reply. */
void ona__inspect_reply(ona__inspect_session *s, unsigned status, char *json);

/* inspect_api.c: the documents, each a jansson value the caller frees (NULL out of memory). */
json_t *ona__inspect_systems(ona__inspect *in);
json_t *ona__inspect_frame(ona__inspect *in);
/* GET /api/messages?system=NAME: starts or extends the watch. */
json_t *ona__inspect_messages(ona__inspect *in, const char *name, unsigned *status);
/* POST /api/eval: answers now, or queues the session (eval_waiting) when a turn is in progress. */
void ona__inspect_eval(ona__inspect *in, ona__inspect_session *s);
/* The queued evals whose system is between turns now; those waiting past their deadline fail. */
void ona__inspect_run_pending(ona__inspect *in);
/* Frees the rings of watches that expired or whose system ended; all of them with `all`. */
void ona__inspect_watches_expire(ona__inspect *in, bool all);
/* A JSON error answer {"ok":false,"error":...}, as text to send (NULL out of memory). */
char *ona__inspect_error_text(const char *fmt, ...);

#endif
