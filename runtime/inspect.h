/*
 * inspect.h: the inspector, a live view into a running game over HTTP and WebSocket
 * (ona_runtime_desc.inspect). Internal to the assembly: inspect.c starts and stops the server's
 * thread and keeps the frames (pause and step, the snapshot published each frame), inspect_api.c
 * makes the snapshot and writes its JSON documents, inspect_act.c runs the actions on main
 * (eval, messages, pause, step, resume), inspect_http.c answers the requests and the stream (the
 * token and Origin checks, the limits, routing) on the server's thread.
 *
 * Threads. The server (libwebsockets on a libuv loop of its own) runs on the inspector's thread,
 * so a request is read, checked and answered while main runs frames. What it answers from is a
 * snapshot: at the end of each frame main copies what the documents show (every system's state
 * and statistics, the frame's timeline, the watched systems' message counts) into a new,
 * immutable ona__inspect_snap and hands it over with one atomic exchange of `incoming`; the
 * thread takes it with another, and from then on it is the thread's alone (its `refs` count the
 * thread's own holders: the current one and each answer still being written). Reads never wait
 * for a frame. What must touch the systems goes the other way: an action (eval, messages, pause,
 * step, resume) is queued under `lock` for main, which runs it at the frame boundary (or while
 * paused), where main owns every system and no turn runs, and queues its answer back. The two
 * uv_async handles only wake the other side; what they carry crosses under `lock` or by the
 * atomic exchange.
 *
 * Off (inspect NULL) nothing of it exists: no thread, no socket, no handle on the loop, no slices
 * recorded, no snapshot made.
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

/* A system whose received messages are being recorded, until both `until_frame` and `until_ns`
 * passed, with the rate of each of its senders (recent.h's counts) over the last whole second. */
typedef struct ona__inspect_watch {
    uint64_t handle;
    ona__recent *recent;
    uint64_t until_frame, until_ns;
    uint64_t mark_ns;                       /* when `mark` was taken */
    uint64_t mark[ONA__RECENT_SENDERS + 1]; /* each sender's count then (the last: others) */
    double rate[ONA__RECENT_SENDERS + 1];   /* messages a second over the second before it */
} ona__inspect_watch;

enum {
    ONA__INSPECT_WATCHES = 16,        /* systems watched at once */
    ONA__INSPECT_WATCH_FRAMES = 600,  /* a watch lasts this long after the last ask, */
    ONA__INSPECT_WATCH_S = 10,        /* and at least this long */
    ONA__INSPECT_SLICES = 8192,       /* the timeline keeps at most this many slices */
    ONA__INSPECT_BODY_MAX = 64 << 10, /* a request's body */
    ONA__INSPECT_RATE = 500,          /* requests a second (and the burst), all clients */
    ONA__INSPECT_EVAL_FRAMES = 600,   /* an eval waits this long for a turn in progress */
    ONA__INSPECT_CHUNK = 16 << 10,    /* an answer is written in pieces of this size */
};

/* How every answer is written: compact, numbers to 7 significant digits. */
#define ONA__INSPECT_JSON (JSON_COMPACT | JSON_REAL_PRECISION(7))

/* --- The snapshot ---------------------------------------------------------------------------- */

enum { ONA__ST_RUNNING, ONA__ST_PARKED, ONA__ST_PAUSED, ONA__ST_RESTARTING, ONA__ST_ENDED };

/* A system as main saw it at the end of a frame. Strings are offsets into the snapshot's
 * `strings` (offset 0 is "", and means none for `script` and `error`). */
typedef struct ona__inspect_sys {
    uint64_t handle;
    uint32_t name, script, detail, error;
    uint32_t after, after_count; /* `after_count` names, one after another, each terminated */
    uint8_t state;
    bool native;
    uint32_t depth, capacity, high_water, order, restarts, errors, spawn_order;
    uint64_t full, turns, turn_ns_total, last_ns, max_ns, heap, heap_peak, heap_cap;
    uint64_t messages_in, messages_out;
} ona__inspect_sys;

/* Messages from one sender to a watched system: the count since the watch began, the rate over
 * the last whole second. `from` 0 with `from_name` "C" is the C API; with "others", the senders
 * past the first ONA__RECENT_SENDERS. */
typedef struct ona__inspect_edge {
    uint64_t from, to;
    uint32_t from_name, to_name;
    uint64_t count;
    double rate;
} ona__inspect_edge;

typedef struct ona__inspect_snap {
    uint64_t seq;  /* main's count of snapshots made */
    uint32_t refs; /* the inspector thread's holders, once it took it */
    uint64_t frame, frame_ns, turns_ns, present_ns;
    double dt;
    uint32_t threads, slices_dropped;
    bool paused;
    ona__inspect_sys *systems;
    uint32_t system_count;
    ona__inspect_slice *slices;
    uint32_t slice_count;
    ona__inspect_edge *edges;
    uint32_t edge_count;
    char *strings;
    size_t strings_len, strings_cap;
    /* The inspector thread's: the documents, written at the first ask and kept with it. */
    char *systems_text, *frame_text;
    size_t systems_len, frame_len;
} ona__inspect_snap;

/* --- Actions --------------------------------------------------------------------------------- */

typedef enum ona__inspect_act {
    ONA__ACT_EVAL,
    ONA__ACT_MESSAGES,
    ONA__ACT_PAUSE,
    ONA__ACT_STEP,
    ONA__ACT_RESUME,
} ona__inspect_act;

typedef struct ona__inspect_session ona__inspect_session;

/* What a request asks main to do, and main's answer. Made by the thread, run by main, answered
 * back; it is in one place at a time: `to_main`, main's `pending` (an eval waiting for a turn to
 * end), `done`, or the thread's hands. */
typedef struct ona__inspect_action {
    ona__inspect_act kind;
    char name[128]; /* the system, for eval and messages */
    char *code;     /* eval's Lua */
    size_t code_len;
    uint64_t system, since; /* main: an eval's system and the frame it arrived in */
    unsigned status;        /* main: the answer, JSON text (malloc) */
    char *reply;
    ona__inspect_session *session; /* the thread's: who waits, NULL once that connection closed */
    struct ona__inspect_action *next;
} ona__inspect_action;

typedef struct ona__inspect {
    ona_runtime *rt;
    /* Set by start, then read-only. */
    char host[64];
    int port;
    bool any; /* a non-loopback address was allowed: the Host header is not checked */
    char token[65];
    char origins[2][96]; /* the page's own origins: http://HOST:PORT (and localhost's) */
    /* The inspector thread's. */
    uv_thread_t thread;
    uv_loop_t loop;
    uv_async_t wake; /* main: a snapshot or an answer is there; stop */
    struct lws_context *ctx;
    struct lws_context *ctx_alive; /* lws clears it once the context is fully destroyed */
    unsigned char *chunk;          /* LWS_PRE + ONA__INSPECT_CHUNK bytes: the piece being written */
    double bucket;                 /* the request rate's bucket (ONA__INSPECT_RATE) */
    uint64_t bucket_ns;
    ona__inspect_snap *current; /* the newest snapshot taken */
    char *tick;                 /* the stream's latest tick, sent to each client once */
    size_t tick_len;
    uint64_t tick_seq, tick_ns, tick_snap; /* tick_snap: the snapshot it was made from */
    uint32_t clients;
    /* Between the two. */
    _Atomic(ona__inspect_snap *) incoming; /* main publishes, the thread takes */
    atomic_uint streaming;                 /* stream clients: main wakes the thread for ticks */
    atomic_bool stopping;
    uv_mutex_t lock; /* guards to_main and done */
    ona__inspect_action *to_main, *done;
    uv_sem_t started;
    int start_rc;
    uv_async_t main_wake; /* on the runtime's loop: an action is queued */
    bool main_wake_ready, thread_started, lock_ready;
    /* Main's. Pause and step: while paused, frames do not run; `steps` frames run before it holds
     * again. */
    bool paused;
    uint32_t steps;
    uv_timer_t idle_timer; /* ends the paused loop's wait */
    bool idle_timer_ready;
    /* The last frame: its number, dt, times and timeline. */
    uint64_t frame, frame_ns, turns_ns, present_ns;
    double dt;
    ona__inspect_slice *slices;
    uint32_t slice_count;
    uint32_t slices_dropped;
    ona__inspect_watch watches[ONA__INSPECT_WATCHES];
    uint32_t watch_count;
    ona__inspect_action *pending;  /* evals waiting for their system's turn to end */
    ona__inspect_action *answered; /* answers not handed to the thread yet */
    uint64_t snap_seq;
} ona__inspect;

/* An HTTP request in progress, or the answer being written (libwebsockets' per-session data). */
struct ona__inspect_session {
    struct lws *wsi;
    bool post, refused;
    char path[64];
    char *body; /* the request's, then freed */
    size_t body_len;
    /* The answer: `reply` is `owned`, or text of `snap`, which the session holds. */
    unsigned status;
    const char *type;
    const char *reply;
    char *owned;
    ona__inspect_snap *snap;
    size_t reply_len, reply_sent;
    bool replying, headers_sent, close_after;
    ona__inspect_action *action; /* sent to main, not answered yet */
};

/* inspect.c. Main, in create (rt->inspect set): ONA_EINVAL (a malformed or refused address, a bad
 * token), ONA_EBUSY (the port is in use), ONA_EIO, ONA_ENOMEM, all logged in words. */
int ona__inspect_start(ona_runtime *rt);
/* Main, in destroy, before the loop is closed: stops the thread, which closes every connection
 * and the socket. */
void ona__inspect_stop(ona_runtime *rt);
/* Main, in a step after the loop's poll: runs the queued actions and the evals whose systems
 * finished their turn. Then whether the frame is held (paused, and no step asked for); a held
 * step waits for actions for up to 16 ms instead, and does nothing else (the caller presents the
 * last frame again and pumps the window). */
bool ona__inspect_hold(ona_runtime *rt);
/* Main, after the frame's turns: keeps the frame's timeline. After present: its times, and
 * publishes the frame's snapshot. */
void ona__inspect_turns_done(ona_runtime *rt, uint64_t frame_start_ns, uint64_t turns_end_ns);
void ona__inspect_frame_done(ona_runtime *rt, uint64_t frame_ns, uint64_t present_ns);
/* The thread: queues an action for main and wakes it. */
void ona__inspect_post(ona__inspect *in, ona__inspect_action *a);

/* inspect_http.c. The server's protocols, HTTP then the "ona-inspect" stream, for the context. */
const struct lws_protocols *ona__inspect_protocols(void);
/* The thread, woken: takes main's answers and the newest snapshot; a new tick for the stream's
 * clients, if any is connected and the last tick is old enough (at most 20 a second). */
void ona__inspect_serve_wake(ona__inspect *in);
/* The thread: takes the snapshot main published last, if it did not yet. */
void ona__inspect_take(ona__inspect *in);
/* The thread: lets go of a snapshot it holds. */
void ona__inspect_snap_release(ona__inspect_snap *snap);
/* The thread, at stop: the answers main gave and nobody will send. */
void ona__inspect_drop_answers(ona__inspect *in);

/* inspect_api.c: the snapshot (main makes it; NULL out of memory) and its documents (the thread;
 * NULL out of memory). */
ona__inspect_snap *ona__inspect_snap_make(ona__inspect *in);
void ona__inspect_snap_free(ona__inspect_snap *snap);
const char *ona__inspect_snap_systems(ona__inspect_snap *snap, size_t *len);
const char *ona__inspect_snap_frame(ona__inspect_snap *snap, size_t *len);
/* A JSON error answer {"ok":false,"error":...}, as text to send (malloc; NULL out of memory). */
char *ona__inspect_error_text(const char *fmt, ...);

/* inspect_act.c, main. Runs the queued actions and the waiting evals that can run now, keeping
 * their answers; whether any was answered (the snapshot is then made again when the frame is
 * held, before the answers leave). */
bool ona__inspect_run_actions(ona__inspect *in);
/* Hands the answers given since the last call to the thread, and wakes it. */
void ona__inspect_send_answers(ona__inspect *in);
/* Frees the rings of watches that expired or whose system ended; all of them with `all`. Then the
 * watches' rates, each whole second. */
void ona__inspect_watches_update(ona__inspect *in, bool all);
/* At stop, after the thread ended: frees every action still queued or waiting. */
void ona__inspect_actions_free(ona__inspect *in);

#endif
