/*
 * ona/runtime.h: creating a runtime, spawning systems, sending messages, running frames, events,
 * quitting, statistics, tracing and reloads. Drawing and video are in ona/gfx.h, time and random
 * numbers in ona/time.h, saves in ona/save.h.
 *
 * A runtime owns its systems. Each frame every live system gets one turn; Lua systems run their
 * turn in a coroutine that may park in ona.receive()/ona.send() and resume when a message (or
 * mailbox space) arrives. Turns run on N-1 worker threads plus the thread that calls
 * ona_runtime_step() (the "main thread": the thread that created the runtime).
 *
 * Threads:
 *  - ona_runtime_* functions are main-thread only and must not be called from inside a system's
 *    callback (use the ona_ctx_* functions there), except the ones marked "any thread". They
 *    check it: from another thread, or from inside ona_runtime_step or ona_runtime_destroy (a
 *    callback: init, process, exit), they return ONA_ETHREAD and change nothing.
 *  - ona_ctx_* functions are valid only inside a native system's callback, on the thread running
 *    it, with the ctx it was given (a NULL ctx gets ONA_EINVAL, or 0 / NULL where the function
 *    returns no error code).
 *  - Every pointer argument may be NULL (ONA_EINVAL) unless a function says otherwise, and enum
 *    fields out of their range are refused (ONA_EINVAL) rather than taken for a default.
 *
 * Handles: an ona_system is a generation-checked id below 2^53 (so a Lua number holds it
 * exactly); 0 is never valid. A handle to a killed or stopped system is stale from the frame
 * boundary that removes it, for good: its slot's generation never wraps onto it, so functions
 * return ONA_ESTALE (or ONA_EDEAD while the runtime still remembers the system's name) and never
 * reach another system.
 */
#ifndef ONA_RUNTIME_H
#define ONA_RUNTIME_H

#include "ona/gfx.h"
#include "ona/message.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ona_system {
    uint64_t id;
} ona_system;

/* The sender of the runtime's own messages: the notices a monitor gets (ona_ctx_monitor; Lua's
 * ona.runtime). It is never a system's handle: sending to it fails with ONA_ESTALE. */
#define ONA_SENDER_RUNTIME (UINT64_C(1) << 20)

/* What happens to a system whose callback raised a Lua error or returned an error code. */
typedef enum ona_failure_policy {
    ONA_POLICY_DEFAULT = 0, /* the runtime's default_policy (RESTART unless set) */
    ONA_POLICY_RESTART,     /* fresh state, init again, after a backoff; stop past the limit */
    ONA_POLICY_STOP,        /* stop: no more turns; messages to it are refused with ONA_EDEAD */
} ona_failure_policy;

/* How messages reach systems (ona_runtime_desc.delivery).
 *  - ORDERED (the default): what a system receives in a turn depends only on the game's inputs,
 *    never on thread count or timing. A message from a system before the receiver in the
 *    declared order (ona_spawn_desc.after) arrives in the same frame: when the receiver's turn
 *    starts, every message its predecessors sent it this frame is there. Every other message
 *    arrives at the receiver's next turn. Within a turn messages come in the order (frame sent,
 *    sender's spawn order, sender's count of sends); messages from C come first in their frame.
 *    A receive never waits within a frame: an empty one returns nil. A sender may send a
 *    receiver at most (capacity - the receiver's backlog: messages sent it before the last frame
 *    and not taken yet) messages in a frame; past that its send waits to the start of a frame with room (its turn continues
 *    there), so nothing is lost and the order never deadlocks by itself. A paused or restarting
 *    receiver is not waited on: sends to it queue past its capacity, up to its memory cap (past
 *    that the send fails with ONA_ELIMIT), and it takes them all, in order, at its next turn.
 *  - IMMEDIATE: messages go straight into the mailbox and a waiting receiver runs at once; a
 *    receive waits for a message within the frame (nil at quiescence) and a send to a full
 *    mailbox waits for room. Request and reply within one frame work; what a system sees in a
 *    frame depends on which thread ran first. The order only says who starts first: a system's
 *    successors start when its turn ends or first waits. */
typedef enum ona_delivery {
    ONA_DELIVERY_ORDERED = 0,
    ONA_DELIVERY_IMMEDIATE,
} ona_delivery;

/* The most entries of an `after` list. */
#define ONA_MAX_AFTER 64

typedef enum ona_system_status {
    ONA_SYSTEM_RUNNING = 0,
    ONA_SYSTEM_RESTARTING, /* failed; waiting out its backoff */
    ONA_SYSTEM_STOPPED,    /* failed past its policy, or returned from a one-shot script */
    ONA_SYSTEM_PAUSED,     /* failed while hot_reload watches files: state and mailbox kept, no
                              turns; under ordered delivery senders never wait on it (messages
                              queue past its capacity, up to its memory cap); a successful
                              reload of its script or a module it required resumes it */
} ona_system_status;

/* A memory_cap that means "no cap" (0 means "the default" there). */
#define ONA_MEMORY_UNCAPPED SIZE_MAX

/* A turn budget that is off (ona_runtime_desc.turn_budget_ms, ona_spawn_desc.budget_ms). */
#define ONA_BUDGET_OFF UINT32_MAX

/* The largest values the descs take (larger ones are refused with ONA_EINVAL). */
#define ONA_MAX_THREADS 256
#define ONA_MAX_SYSTEMS 1048575u /* the registry's slots: handles stay below 2^53 */
#define ONA_MAX_MAILBOX_CAPACITY (1u << 24)
#define ONA_MAX_NAME_BYTES 63 /* a system's name, without its terminating 0 */

/* Every field's 0 means "the default". */
typedef struct ona_runtime_desc {
    uint32_t threads;          /* threads running turns, main included; 0 = CPU cores (at most 64);
                                  1 = main only; at most ONA_MAX_THREADS */
    uint32_t max_systems;      /* 0 = 4096; at most ONA_MAX_SYSTEMS */
    uint32_t mailbox_capacity; /* default per system; 0 = 64 (rounded up to a power of two); at
                                  most ONA_MAX_MAILBOX_CAPACITY */
    /* Default cap of each Lua system's heap in bytes; ONA_MEMORY_UNCAPPED = none; 0 = an eighth
     * of the machine's RAM (sysconf), at least 64 MiB and at most 4 GiB. A system past its cap
     * fails with "exceeded its memory cap" (an error of that system; the process is unharmed). */
    size_t memory_cap;
    /* How long a Lua system's code may run without yielding (a turn, its script's chunk, exit
     * or reload) before the watchdog interrupts it, in ms: 0 = 1000 (10000 in a sanitizer build
     * of the library, which runs code several times slower); ONA_BUDGET_OFF = none. */
    uint32_t turn_budget_ms;
    /* Folders scripts and assets are loaded from and `require` searches, NULL-terminated;
     * NULL = ".". A relative path is looked for only under them, never in the working
     * directory, and a script's asset paths must stay inside them (ONA_EPATH). A root that is a
     * regular file is a game archive (a zip, `ona pack`): it is mounted (PhysicsFS) and read as
     * a folder named by the file's canonical path, by every loader and by ona.fs; hot_reload is
     * then off. create fails with ONA_EFORMAT (logged) for a file that is not such an archive. */
    const char *const *script_roots;
    ona_failure_policy default_policy; /* 0 = RESTART */
    uint32_t restart_limit;            /* restarts before a system is stopped; 0 = 3 */
    uint32_t restart_backoff_frames;   /* frames before the first restart, doubling; 0 = 1 */
    bool hot_reload;                   /* watch scripts, modules, shaders, textures for changes;
                                          a Lua system that fails then pauses (kept state and
                                          mailbox) until a save reloads it, instead of its
                                          policy (ONA_SYSTEM_PAUSED) */
    ona_video video;                   /* 0 = NONE: no window, no GL (draws are discarded) */
    ona_window_desc window;
    /* Bytes of glyph coverage all fonts' atlas pages may hold together (each page, 256 to 4096
     * texels a side by the font's size, is one byte a texel in RAM and, with video, four on the
     * GPU); 0 = ONA_ATLAS_MEMORY_DEFAULT. When a frame needs a page past it, the least recently
     * used pages that frame did not draw from are evicted after its turns (their glyphs are
     * drawn again when next printed) and the characters waiting are drawn from the next frame;
     * pages drawn from in the frame are never evicted under it. */
    uint64_t atlas_memory;
    /* Install handlers for SIGINT and SIGTERM for the runtime's life (default false: the
     * embedder keeps its own). The first signal asks the runtime to quit at the end of the frame
     * (ona_runtime_quit_requested becomes true and ona_runtime_stop_signal names the signal); if
     * a frame (or a spawn, which runs the script's chunk) is still running 2 s later, or on a
     * second signal, the runtime logs the systems still running their turn (by name: where in
     * the script they are cannot be read safely from another thread), flushes stdout and stderr
     * and ends the process with _exit(128 + signal). Without video SDL is not involved; with it,
     * SDL is told to leave the signals alone either way. While the runtime lives, main's signal
     * mask blocks SIGINT and SIGTERM (so every thread started from main inherits the block) and
     * only the runtime's own thread "ona-signals" takes them; destroy gives main its mask back.
     * Signal the process (kill, the terminal), not a thread. One runtime at a time may handle
     * signals (ONA_EBUSY otherwise). */
    bool handle_signals;
    /* --- audio --- */
    /* No audio device, ever (`ona --no-audio`): sounds still load and plays return handles, and
     * nothing is mixed. Default false: the device opens at the first frame with an audio command
     * (ona/audio.h); where none opens the runtime runs silent and logs it once. */
    bool no_audio;
    /* Every Lua system sandboxed, main.lua's included (`ona --sandbox`; ona_spawn_desc.sandbox
     * says what a sandboxed system may not do). Default false: a Lua system has the whole of
     * LuaJIT's standard library. */
    bool sandbox;
    /* Steady time and saves. */
    /* Seconds per frame that ona_runtime_run (with fixed_dt 0) and ona_runtime_frame_dt give:
     * > 0 a fixed step, at most 1, that wins over main.lua's ona.gfx.window{fixed_dt};
     * ONA_DT_MEASURED the measured wall time, winning too; 0 = main.lua's choice, else 1/60
     * without a window (offscreen, no video, or fixed_step_default) and measured time with one. */
    double fixed_dt;
    /* Frame cap: ona_runtime_frame_dt sleeps so that frames start at most max_fps times a
     * second. > 0 (at most 10000) wins over main.lua's ona.gfx.window{max_fps}; ONA_MAX_FPS_OFF
     * is no cap, winning too (a replay played as fast as it runs); 0 = main.lua's with a window,
     * none without one (a headless run is never slowed unless asked here). */
    uint32_t max_fps;
    /* A 0 fixed_dt means the fixed step even with a window: a run of a set number of frames
     * (the launcher's --frames N) plays the same game as a headless one. */
    bool fixed_step_default;
    /* Steady time with an accumulator: > 0 (at most 1) makes each ona_runtime_step spend the
     * dt it is given (the wall time, from ona_runtime_frame_dt) in whole steps of fixed_step
     * seconds: the systems' turns run once per step (each step a frame of its own: process,
     * ona.frame(), messages, recording), the picture is drawn once after the last (earlier
     * steps' draws are dropped, their settings kept), and ona.time.alpha() / ona_ctx_alpha
     * give the leftover fraction of a step, in [0, 1), to interpolate with. A frame where no
     * step is due runs nothing and leaves the last picture on screen (ona_runtime_frame_dt
     * waits for a step). 0 = off: one dt per frame (see fixed_dt). */
    double fixed_step;
    /* The most steps one frame runs (0 = 5, at most 1000): past it the rest of the wall time
     * is dropped (warned of once), so that steps slower than the time they stand for slow the
     * game down instead of asking for ever more steps (the spiral of death). */
    uint32_t max_steps;
    /* The wall clock ona_runtime_frame_dt measures (nanoseconds, any origin, never going
     * back), called on main with clock_user; NULL = CLOCK_MONOTONIC. Meant for tests: with
     * one, the frame cap and the wait for a step do not sleep. */
    uint64_t (*clock_ns)(void *user);
    void *clock_user;
    /* Names the per-user save folder, $XDG_DATA_HOME/ona/<game_id> (or
     * ~/.local/share/ona/<game_id>); NULL = "default". [A-Za-z0-9_.-], at most 64 bytes. */
    const char *game_id;
    /* The saves' folder itself, winning over game_id (tests, portable installs); NULL = the
     * per-user folder. Copied; created on the first save. */
    const char *save_dir;
    /* How messages reach systems (see ona_delivery); 0 = ORDERED. */
    ona_delivery delivery;
    /* --- recording and replaying a session (see "Recordings" below) --- */
    /* Records every frame's input events and dt, and a digest per system of what it received,
     * drew and played, into this file (created or replaced; written and flushed every frame,
     * closed by ona_runtime_destroy). NULL = no recording. Not with replay_path. */
    const char *record_path;
    /* What the recording names as its game (the launcher's game folder) and the key=value
     * arguments the game was given (NULL-terminated; NULL = none): written in its header for a
     * replay to find them (ona_recording_info_read). NULL record_game = the first script root. */
    const char *record_game;
    const char *const *record_args;
    /* Replays this recording: each ona_runtime_step takes the recorded frame's events and dt in
     * place of the devices' (and of ona_runtime_push_event's) and of its own dt, and checks the
     * systems' digests against the recorded ones. The first frame that differs stops the replay:
     * that step returns ONA_EDIVERGED (so does every later one) and ona_runtime_replay_diverged
     * says where and what. After the last recorded frame the runtime asks to quit (the step
     * runs nothing). A file that is not a recording of this format version fails create with
     * ONA_EFORMAT (logged with the reason); ONA_ENOENT / ONA_EIO when it cannot be read. */
    const char *replay_path;
    /* (While recording, messages sent with ona_runtime_send are recorded; while replaying, the
     * recorded ones are sent at their frames, and ona_runtime_send releases its message and
     * returns 0. Likewise every save load (ona.load, ona_ctx_load, ona_runtime_load) is
     * recorded with what it returned, and a replay answers it from the recording: a replay
     * never reads save_dir and writes nothing there, its saves are checked and dropped. A hot
     * reload's new content is recorded and replayed at its frame.) */
    /* With replay_path: replays the recorded inputs with the current files, reporting the first
     * divergence (logged at info, and by ona_runtime_replay_diverged) without stopping: every
     * step returns 0 and the replay goes on to the recording's end. */
    bool resimulate;
    /* The session's random seed, below 2^53 (larger is refused: ONA_EINVAL); 0 is a seed like any
     * other, and the default, so that every run draws the same numbers unless told otherwise (the
     * launcher's --seed N). Each system's math.random starts from a seed made of this one, its
     * name and its spawn order, and so do the default seeds of ona.random() and
     * ona_random_default (ona/time.h): the same session seed replays the same sequences. */
    uint64_t seed;
    /* --- the inspector (README, "Inspector") --- */
    /* "IPv4:PORT" to serve the inspector there: a page, a JSON API and a WebSocket stream that
     * show the systems, the last frame and the messages a system receives, and run Lua in a
     * system between its turns. NULL = off: no socket, no thread, nothing recorded. PORT 0 takes
     * a free port (ona_runtime_inspect_url says which). It serves on the runtime's own event
     * loop, at the frame boundary of ona_runtime_step, so it answers only while frames are
     * stepped. Every request needs the token. create fails with ONA_EINVAL for a malformed
     * address, one this machine does not have, or one not loopback (127.x) without inspect_any,
     * with ONA_EBUSY when the port is in use (each logged in words). */
    const char *inspect;
    /* The token every request must carry (Authorization: Bearer TOKEN, or ?token=TOKEN): 8 to 64
     * characters of A-Z a-z 0-9 _ . -; NULL = 32 random hex digits (getrandom). Copied. */
    const char *inspect_token;
    /* Allows a non-loopback inspect address: whoever reaches it with the token can run code in
     * the game. */
    bool inspect_any;
} ona_runtime_desc;

/* ona_runtime_desc.fixed_dt: always the measured wall time. */
#define ONA_DT_MEASURED (-1.0)
/* ona_runtime_desc.max_fps: no frame cap, whatever main.lua asks. */
#define ONA_MAX_FPS_OFF UINT32_MAX

/* A Lua system: `script` returns a table with init(state, args), process(state, events, dt) and
 * optionally exit(state) and reload(state). A script that returns nothing runs once (its chunk
 * is its whole life) and is then stopped, which is how a game's main.lua spawns its systems. */
typedef struct ona_spawn_desc {
    const char *script;        /* path, absolute or relative to a script root; required */
    const char *name;          /* NULL = the script's file name without ".lua"; at most
                                  ONA_MAX_NAME_BYTES */
    ona_message *args;         /* moved into init's second argument (as a table of the values);
                                  may be NULL; may not hold buffers (restarts replay it) */
    uint32_t mailbox_capacity; /* 0 = the runtime's; at most ONA_MAX_MAILBOX_CAPACITY */
    size_t memory_cap;         /* 0 = the runtime's; ONA_MEMORY_UNCAPPED = none */
    uint32_t budget_ms;        /* turn budget: 0 = the runtime's; ONA_BUDGET_OFF = none */
    ona_failure_policy policy; /* DEFAULT, RESTART or STOP */
    uint32_t restart_limit;    /* 0 = the runtime's */
    /* The declared order: in every frame this system's turn starts only after each system it is
     * after (directly or through others) has finished its turn in that frame. `after` names
     * systems by handle (which must be live), `after_names` by name (every system of that name,
     * those spawned later too). Copied; together at most ONA_MAX_AFTER. A list that would make a
     * cycle is refused (ONA_EINVAL, logged: "'ship' after 'bullets' after 'ship' is a cycle"). */
    const ona_system *after;
    uint32_t after_count;
    const char *const *after_names;
    uint32_t after_name_count;
    /* A sandboxed system (true; also every Lua system of a runtime made with
     * ona_runtime_desc.sandbox): its script, modules and assets come only from inside the game
     * folder, it has none of io, debug, ffi, os beyond clock/time/date, bytecode loading, C
     * modules, JIT control or saves, and every system it spawns is sandboxed too. Its memory
     * cap and turn budget hold, whatever loop it runs (with a LuaJIT whose compiled code checks
     * no hook, its JIT compiler is off). A native system is C code and cannot be sandboxed. */
    bool sandbox;
} ona_spawn_desc;

/* A native system: C callbacks and `size` bytes of zeroed state owned by the runtime. A native
 * turn cannot wait: it uses ona_ctx_try_send / ona_ctx_try_receive. A callback returning nonzero
 * is a failure handled by the policy, like a Lua error. A system without `process` sleeps: it
 * gets a turn only in a frame where a message waits for it (and for its init), so an idle one
 * costs a frame next to nothing; `receive` is how such a system reads. */
typedef struct ona_system_desc {
    const char *name; /* required; at most ONA_MAX_NAME_BYTES */
    size_t size;
    int (*init)(ona_ctx *ctx, void *state);               /* optional, first turn */
    int (*process)(ona_ctx *ctx, void *state, double dt); /* once per frame; optional */
    void (*exit)(ona_ctx *ctx, void *state);              /* optional, on kill/destroy */
    void *user;                                           /* ona_ctx_user() */
    uint32_t mailbox_capacity;                            /* as in ona_spawn_desc */
    ona_failure_policy policy;
    uint32_t restart_limit;
    /* The declared order, as in ona_spawn_desc. */
    const ona_system *after;
    uint32_t after_count;
    const char *const *after_names;
    uint32_t after_name_count;
    /* Optional: called for each message of the turn, in delivery order, before process; `msg`
     * is borrowed as from ona_ctx_try_receive (its sender: ona_message_sender). Nonzero fails
     * the turn; the messages after it wait for the next. */
    int (*receive)(ona_ctx *ctx, void *state, ona_message *msg);
} ona_system_desc;

typedef struct ona_system_stats {
    ona_system handle;
    char name[64];
    ona_system_status status;
    bool native;
    uint32_t spawn_order;
    uint64_t turns;         /* turns completed */
    uint64_t turn_ns_total; /* time spent running (not parked) */
    uint64_t last_turn_ns;
    uint64_t max_turn_ns;
    uint64_t parks;        /* times a turn waited in receive or send */
    uint64_t messages_in;  /* messages taken from its mailbox */
    uint64_t messages_out; /* messages it put into mailboxes */
    uint32_t mailbox_size; /* messages waiting for it (ordered: staged and held ones too) */
    uint32_t mailbox_capacity;
    uint32_t mailbox_high_water;
    uint64_t mailbox_full; /* sends refused or parked because it was full */
    size_t memory;         /* Lua heap bytes now (0 for native) */
    size_t memory_peak;
    size_t memory_cap; /* 0 = none */
    uint32_t restarts;
    uint32_t errors;
    uint32_t order_place;   /* its place in the declared order (1.., a topological order: every
                               system comes after those it is after), 0 when it has none */
    uint64_t order_wait_ns; /* last frame: how long into it its predecessors kept it waiting */
} ona_system_stats;

typedef struct ona_runtime_stats {
    uint64_t frames;
    uint64_t last_frame_ns;
    uint64_t max_frame_ns;
    uint64_t total_frame_ns;
    uint32_t threads;
    uint32_t systems; /* live (running, restarting or paused, or spawned and starting next frame) */
    uint64_t messages; /* delivered into mailboxes since creation */
    uint64_t turns;
    uint64_t steals;    /* turns a thread took from another thread's queue */
    uint64_t deadlocks; /* cycles of blocked senders broken */
    uint32_t assets;    /* files loaded (textures, sounds, fonts, shaders, music) and held */
    uint32_t textures;  /* live textures: loaded, made, canvases, atlas pages, the built-in ones */
    uint32_t sounds;    /* live sounds, the silent placeholder included */
    uint32_t canvases;  /* live canvases (a system's are freed when it ends) */
    uint64_t atlas_bytes; /* bytes the glyph atlas pages hold (at most the desc's atlas_memory) */
    /* The main thread's picture: pictures drawn (with fixed steps, fewer than `frames`, which
     * counts steps), and the time spent merging and drawing them and swapping (presenting):
     * the last one's and the totals. */
    uint64_t pictures;
    uint64_t last_draw_ns, last_present_ns, total_draw_ns, total_present_ns;
    uint32_t last_steps; /* steps the last ona_runtime_step ran (1 without fixed_step) */
} ona_runtime_stats;

/* --- The runtime ----------------------------------------------------------------------------- */

/* Creates a runtime and its worker threads (named "ona-worker-N"). `desc` may be NULL. The
 * calling thread becomes its main thread. Errors: ONA_EINVAL (out NULL, a field over its maximum,
 * an enum out of range, a window size below 0), ONA_ENOMEM, ONA_ETHREAD (a thread could not be
 * started), ONA_EBUSY (handle_signals while another runtime handles them), ONA_EIO (the signal
 * handlers could not be set up), ONA_EGFX (the video asked for did not start). */
ONA_API int ona_runtime_create(const ona_runtime_desc *desc, ona_runtime **out);

/* Calls exit() on every live system (spawn order), stops the workers, frees everything. NULL is
 * ignored. Main thread, not from inside a callback: there it logs an error and does nothing. */
ONA_API void ona_runtime_destroy(ona_runtime *rt);

/* Spawns a Lua system: loads and runs the script's chunk now (errors are returned, with the
 * file:line logged); init runs in its first turn, in the next frame. Main thread, not inside a
 * callback (ona_ctx_spawn there). Errors: ONA_EINVAL (NULLs, no script, a name too long, a
 * policy or mailbox capacity out of range), ONA_ETHREAD, ONA_ENOENT (no such script),
 * ONA_ESCRIPT (does not compile or its chunk raised), ONA_ELIMIT (max_systems), ONA_ENOMEM. On
 * error `desc->args` is still released. */
ONA_API int ona_runtime_spawn(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out);

/* Spawns a native system; init runs in its first turn. Main thread, not inside a callback.
 * Errors: ONA_EINVAL (NULLs, no name or one too long, a policy or mailbox capacity out of
 * range), ONA_ETHREAD, ONA_ELIMIT, ONA_ENOMEM. */
ONA_API int ona_runtime_spawn_native(ona_runtime *rt, const ona_system_desc *desc, ona_system *out);

/* Kills a system at the end of the current frame (now, between frames): exit() runs, queued
 * messages are released, senders waiting on it fail with ONA_EDEAD. Main thread, not inside a
 * callback (ona_ctx_kill there). Errors: ONA_EINVAL, ONA_ETHREAD, ONA_ESTALE. */
ONA_API int ona_runtime_kill(ona_runtime *rt, ona_system system);

/* Finds a live system by name. Any thread. Errors: ONA_ENOENT, ONA_EINVAL. */
ONA_API int ona_runtime_lookup(ona_runtime *rt, const char *name, ona_system *out);

/* Sends a message from outside any system (sender 0). Never waits. On success *m is moved (left
 * empty); on error it is untouched. Main thread, not inside a callback. Errors: ONA_ESTALE,
 * ONA_EDEAD, ONA_EFULL, ONA_ELIMIT (a paused or restarting receiver holds its memory cap in
 * messages), ONA_EINVAL, ONA_ETHREAD. */
ONA_API int ona_runtime_send(ona_runtime *rt, ona_system to, ona_message *m);

/* Runs one frame with time step `dt` seconds: every live system gets a turn, until quiescence.
 * With desc.fixed_step, `dt` is the wall time to spend instead: the turns run once per whole
 * step due (0 to max_steps times), then the frame is drawn once (not at all with no step due).
 * Returns 0, or ONA_EINVAL (dt negative, infinite or NaN) / ONA_ETHREAD (another thread, or
 * inside a callback) for misuse. Script errors do not fail a step. While replaying, `dt` is
 * ignored for the recorded one (and the recorded steps), and ONA_EDIVERGED says the replay
 * diverged (see replay_path). */
ONA_API int ona_runtime_step(ona_runtime *rt, double dt);

/* Steps frames until a system calls ona.quit() (or ona_ctx_quit, or a handled signal arrives:
 * see ona_runtime_desc.handle_signals), no system is left, or `max_frames` frames have run (0 =
 * no limit). dt is `fixed_dt` when it is > 0, else ona_runtime_frame_dt's (the desc's and
 * main.lua's time rules, with the frame cap's sleep). Returns 0 after a quit, even
 * one asked for by a signal: ona_runtime_stop_signal tells them apart. Errors: ONA_EINVAL
 * (fixed_dt infinite or NaN), ONA_ETHREAD. */
ONA_API int ona_runtime_run(ona_runtime *rt, uint64_t max_frames, double fixed_dt);

/* Adds an input event to the next frame's events, as if it came from the keyboard or mouse:
 * scripted input for tests and replays. Pushed events come first in that frame's list, in the
 * order pushed, before the window's own. A key event may give only its name ("left", "space");
 * the scancode is filled in. A TEXT event's text and a key event's name are C strings that end
 * with a NUL inside their 32 bytes. Errors: ONA_EINVAL (logged for a string without its NUL),
 * ONA_ELIMIT (more than 256 pending), ONA_ETHREAD. */
ONA_API int ona_runtime_push_event(ona_runtime *rt, const ona_event *event);

/* Reloads `path` (a script, a required module, a shader or a texture file; as loaded) at the
 * next frame boundary, as if it had changed on disk; works with or without hot_reload. A
 * broken file logs file:line and keeps the old code. Main thread, not inside a callback.
 * Errors: ONA_EINVAL, ONA_ETHREAD, ONA_ENOENT (no such file, under the script roots or as
 * given), ONA_ENOMEM. */
ONA_API int ona_runtime_reload(ona_runtime *rt, const char *path);

/* Starts writing a Chrome trace-event timeline (opens in Perfetto or chrome://tracing) to
 * `path`: a track per thread with a slice per stretch of a turn, a track per system with its
 * parked time, and a slice per frame. A trace already being written is finished first. Main
 * thread, between frames. Errors: ONA_EINVAL, ONA_ETHREAD, ONA_EIO. */
ONA_API int ona_runtime_trace_begin(ona_runtime *rt, const char *path);
/* Finishes and closes the trace (also done by ona_runtime_destroy); 0 when none is being
 * written. Main thread, between frames. Errors: ONA_EINVAL, ONA_ETHREAD, ONA_EIO. */
ONA_API int ona_runtime_trace_end(ona_runtime *rt);

/* The inspector's address with its token, "http://127.0.0.1:PORT/?token=TOKEN", into `out`
 * (always terminated). Main thread. Errors: ONA_EINVAL, ONA_ENOENT (no inspector), ONA_ERANGE
 * (`out` too small). */
ONA_API int ona_runtime_inspect_url(ona_runtime *rt, char *out, size_t size);

/* True once a system asked to quit. Any thread. */
ONA_API bool ona_runtime_quit_requested(const ona_runtime *rt);
/* Asks the runtime to quit after the current frame. Any thread (NULL is ignored). */
ONA_API void ona_runtime_quit(ona_runtime *rt);
/* The signal (SIGINT, SIGTERM) that asked the runtime to quit, or 0 when none did (or rt is
 * NULL). Only a runtime created with handle_signals sees signals. A stop asked for by a signal is
 * not a success: the launcher exits with 128 + the signal. Any thread. */
ONA_API int ona_runtime_stop_signal(const ona_runtime *rt);

/* Statistics: main thread, between frames (not inside a callback). Errors: ONA_EINVAL,
 * ONA_ETHREAD. */
ONA_API int ona_runtime_stats_get(ona_runtime *rt, ona_runtime_stats *out);
/* Errors: ONA_EINVAL, ONA_ETHREAD, ONA_ESTALE. */
ONA_API int ona_runtime_system_stats(ona_runtime *rt, ona_system system, ona_system_stats *out);
/* Writes up to `max` live systems in spawn order (`out` may be NULL when `max` is 0); returns
 * how many there are in all. Main thread, between frames: elsewhere, or with a NULL runtime, or
 * a NULL `out` with `max` above 0, it writes nothing and returns 0. */
ONA_API uint32_t ona_runtime_systems(ona_runtime *rt, ona_system *out, uint32_t max);

/* --- Inside a native system's callback ------------------------------------------------------- */

ONA_API ona_system ona_ctx_self(ona_ctx *ctx);
ONA_API ona_runtime *ona_ctx_runtime(ona_ctx *ctx);
ONA_API void *ona_ctx_user(ona_ctx *ctx);
/* The frame number (first frame is 1). */
ONA_API uint64_t ona_ctx_frame(ona_ctx *ctx);

/* Sends without waiting; *m is moved on success. Errors: ONA_EFULL, ONA_ESTALE, ONA_EDEAD,
 * ONA_ELIMIT (a paused or restarting receiver holds its memory cap in messages). */
ONA_API int ona_ctx_try_send(ona_ctx *ctx, ona_system to, ona_message *m);

/* Sends msgs[0..n) to `to` in order, without waiting, with one reservation in its mailbox and
 * one wake: what fits goes, and *sent says how many (the first *sent messages were moved, each
 * is empty again; msgs[*sent..n) are untouched and still the caller's). Returns 0 when all n
 * went, ONA_EFULL when the mailbox had room for fewer (maybe none), ONA_ESTALE or ONA_EDEAD
 * (nothing sent), ONA_EINVAL (NULL ctx, msgs with n > 0, or sent). Each message arrives as its
 * own message, exactly as n calls of ona_ctx_try_send would deliver it. */
ONA_API int ona_ctx_send_many(ona_ctx *ctx, ona_system to, ona_message *msgs, uint32_t n,
                              uint32_t *sent);

/* Takes the next message from this system's mailbox. *out is borrowed: valid until the next
 * receive or the end of the callback (read it with ona_message_reader; take buffers with
 * ona_message_take_buffer). Errors: ONA_EEMPTY. */
ONA_API int ona_ctx_try_receive(ona_ctx *ctx, ona_message **out);

/* Spawns, looks up, kills, quits: as the ona_runtime_* functions, from inside a system (a
 * spawned system joins at the next frame boundary). */
ONA_API int ona_ctx_spawn(ona_ctx *ctx, const ona_spawn_desc *desc, ona_system *out);
ONA_API int ona_ctx_lookup(ona_ctx *ctx, const char *name, ona_system *out);
ONA_API int ona_ctx_kill(ona_ctx *ctx, ona_system system);
ONA_API void ona_ctx_quit(ona_ctx *ctx);

/* Monitors `system`: from now on this system is sent a notice, a message whose sender is
 * ONA_SENDER_RUNTIME, each time that system pauses ("paused", handle, reason), resumes
 * ("resumed", handle), restarts with a fresh state ("restarted", handle, reason) or ends
 * ("ended", handle, reason). Notices arrive at the next turn, in the canonical order of ordered
 * delivery; asking twice is asking once. A handle that has already ended gets "ended" at once.
 * Errors: ONA_EINVAL (NULL ctx, handle 0), ONA_ENOMEM. */
ONA_API int ona_ctx_monitor(ona_ctx *ctx, ona_system system);

/* --- Recordings -------------------------------------------------------------------------------
 * A recording (ona_runtime_desc.record_path, `ona --record`) holds a session's inputs: its
 * header (format version, runtime version, game, args), then per frame the dt, the input events
 * and a digest per system of what it received, drew and played. The format is documented at
 * the top of runtime/services/record_format.c. */

/* What a recording's header says, and how many frames it holds. */
typedef struct ona_recording_info {
    uint32_t version;         /* the file format's version */
    char runtime_version[32]; /* the Ona that recorded it ("0.1.0") */
    char game[1024];          /* the game it names (record_game) */
    uint32_t arg_count;
    char args[4096]; /* its key=value arguments, each NUL-terminated, one after another */
    uint32_t frames; /* whole frames in the file */
    bool ended;      /* the session closed cleanly (else it was cut short, e.g. by a crash) */
} ona_recording_info;

/* Reads the recording at `path` into *out. Any thread. Errors: ONA_EINVAL, ONA_ENOENT,
 * ONA_EIO, ONA_ENOMEM, ONA_EFORMAT (not a recording, another format version, corrupt; the
 * reason is logged). */
ONA_API int ona_recording_info_read(const char *path, ona_recording_info *out);

/* While replaying: the frame where the replay diverged (0 while it has not), with what differed
 * written to `why` (may be NULL), e.g. "'collisions' received 3 messages in the recording, 4
 * now". Main thread. */
ONA_API uint64_t ona_runtime_replay_diverged(const ona_runtime *rt, char *why, size_t size);

#ifdef __cplusplus
}
#endif

/* The rest of the runtime's API, by area (ona/ona.h includes them all). */
#include "ona/save.h"
#include "ona/time.h"

#endif /* ONA_RUNTIME_H */
