/*
 * signals.c: SIGINT and SIGTERM for a runtime created with handle_signals (the launcher's). The
 * first signal asks for an orderly quit at the end of the frame; if the frame (or a spawn, which
 * runs a script's chunk) is still running 2 s later, or on a second signal, the process ends
 * with _exit(128 + signal) after naming the systems still in their turn.
 *
 * Design note. A signal handler may do almost nothing, and the thread it interrupts may be a
 * worker spinning in `while true do end`, so the handler only writes the signal's number to a
 * non-blocking pipe (a self-pipe). The thread "ona-signals" sleeps on the pipe; it does the
 * rest: ona_runtime_quit, the log line, the 2 s deadline, the forced end. Main writes to the
 * same pipe when it leaves a step or a spawn after a signal (END), which cancels the deadline:
 * the frame ended, the orderly quit goes on. The deadline only ends the process when main is
 * still (or again) inside a step or a spawn: the embedder's own code after the quit is its own
 * business, and a second signal ends it.
 *
 * What may be read from the watchdog. Main is stuck, so the watchdog cannot ask it anything,
 * and a Lua state cannot be inspected from another thread (so where a runaway script is, its
 * file:line, is not reported; only its name). `lock` guards main's `busy`, `busy_what` and
 * `in_turns`; while main is inside the scheduler's frame (`in_turns`) the `systems` array and
 * its count cannot change (they change only at the boundary), names never change after spawn
 * and `run` is atomic, so under the lock the watchdog can list the systems whose state is
 * RUNNING. The forced end runs only what is safe while other threads are stuck: the log line,
 * fflush of stdout and stderr, _exit (no atexit handlers, no exit callbacks: those would run
 * beside a turn that still owns its state). A trace being written is left unfinished.
 *
 * Which thread runs the handler. The kernel hands a process signal to any thread that does not
 * block it, and a thread spinning in a compiled loop may never get to run it (ThreadSanitizer,
 * for one, defers a handler until the thread calls into libc). So the runtime blocks SIGINT and
 * SIGTERM on main from the start of ona_runtime_create, before any thread of its own (workers,
 * SDL's, the GL driver's) exists, so that they all inherit the block; only the watchdog thread
 * unblocks them, so the handler always runs there, beside a poll. Main's mask is given back by
 * ona_runtime_destroy. Threads the embedder starts meanwhile inherit the block: the signals are
 * the runtime's while it lives.
 *
 * Signal handlers are per process, so one runtime at a time may hold them (`claimed`); the
 * previous handlers are restored when that runtime is destroyed. SDL is told never to install
 * its own (gfx/window.c, gfx/probe.c), so signals are not turned into a quit event.
 */
#include "runtime_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

enum {
    DEADLINE_MS = 2000,
    BYTE_END = 0,    /* main left a step or spawn after a signal */
    BYTE_STOP = 255, /* the runtime is being destroyed: the thread ends */
};

/* relaxed (both): claimed is a CAS that only needs atomicity; the fd is written before the
 * handlers are installed (sigaction orders it) and read by the handler, which must not lock. */
static atomic_bool claimed;
static atomic_int signal_fd = -1;
static struct sigaction old_int, old_term;

static void on_signal(int sig) {
    int saved = errno;
    unsigned char byte = (unsigned char)sig;
    int fd = atomic_load_explicit(&signal_fd, memory_order_relaxed);
    if (fd >= 0) {
        ssize_t n = write(fd, &byte, 1); /* non-blocking: a full pipe drops the byte */
        (void)n;
    }
    errno = saved;
}

static const char *signal_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

static uint64_t now_ms(void) {
    return ona__now_ns() / 1000000u;
}

/* Ends the process: names the systems still in their turn, flushes, _exit(128 + sig). */
static void force_exit(ona_runtime *rt, int sig, const char *why) {
    ona__signals *s = &rt->signals;
    char names[1024];
    size_t len = 0;
    names[0] = '\0';
    uv_mutex_lock(&s->lock);
    if (s->in_turns) {
        for (uint32_t i = 0; i < rt->core.system_count && len + 80 < sizeof names; i++) {
            ona__system *sys = rt->core.systems[i];
            /* relaxed: a snapshot for a log line; the system may finish its turn meanwhile. */
            if (atomic_load_explicit(&sys->run, memory_order_relaxed) == ONA__RUN_RUNNING)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        sys->name);
        }
        if (!len)
            snprintf(names, sizeof names, "none (the frame waits on parked systems)");
    } else if (s->busy_what) {
        snprintf(names, sizeof names, "none in a turn; main is %s", s->busy_what);
    } else {
        snprintf(names, sizeof names, "none in a turn; main is outside the frame");
    }
    uv_mutex_unlock(&s->lock);
    ona_log(ONA_LOG_ERROR, "signals", "%s: %s; ending the process now. Still running: %s",
            signal_name(sig), why, names);
    fflush(stdout);
    fflush(stderr);
    _exit(128 + sig);
}

static void signal_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

static void watchdog(void *arg) {
    ona_runtime *rt = arg;
    ona__signals *s = &rt->signals;
    pthread_setname_np(pthread_self(), "ona-signals");
    sigset_t set;
    signal_set(&set);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    int first = 0;
    uint64_t deadline = 0; /* 0: none armed */
    for (;;) {
        int timeout = -1;
        if (deadline) {
            uint64_t now = now_ms();
            timeout = deadline > now ? (int)(deadline - now) : 0;
        }
        struct pollfd p = {.fd = s->pipe[0], .events = POLLIN};
        int n = poll(&p, 1, timeout);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (n == 0) {
            deadline = 0;
            uv_mutex_lock(&s->lock);
            bool busy = s->busy;
            uv_mutex_unlock(&s->lock);
            if (busy)
                force_exit(rt, first, "the frame did not end within 2 s");
            continue;
        }
        unsigned char byte;
        if (read(s->pipe[0], &byte, 1) != 1)
            continue;
        if (byte == BYTE_STOP)
            return;
        if (byte == BYTE_END) {
            deadline = 0;
            continue;
        }
        if (first) {
            force_exit(rt, byte, "a second signal");
            continue;
        }
        first = byte;
        /* seq_cst: pairs with the load in ona__signals_leave, so that either main sees the
         * signal and writes END, or this thread sees main's busy = false at the deadline. */
        atomic_store_explicit(&s->signal, first, memory_order_seq_cst);
        ona_runtime_quit(rt);
        ona_log(ONA_LOG_WARN, "signals",
                "%s: quitting at the end of the frame (again, or 2 s without the frame ending, "
                "ends the process)",
                signal_name(first));
        deadline = now_ms() + DEADLINE_MS;
    }
}

static void write_byte(ona__signals *s, unsigned char byte) {
    ssize_t n;
    do
        n = write(s->pipe[1], &byte, 1);
    while (n < 0 && errno == EINTR);
}

int ona__signals_claim(ona_runtime *rt) {
    ona__signals *s = &rt->signals;
    bool expected = false;
    if (!atomic_compare_exchange_strong_explicit(&claimed, &expected, true, memory_order_relaxed,
                                                 memory_order_relaxed)) {
        ona_log(ONA_LOG_ERROR, "signals", "another runtime already handles SIGINT and SIGTERM");
        return ONA_EBUSY;
    }
    sigset_t set;
    signal_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &s->old_mask);
    s->claimed = true;
    return 0;
}

int ona__signals_start(ona_runtime *rt) {
    ona__signals *s = &rt->signals;
    if (pipe2(s->pipe, O_CLOEXEC) != 0)
        return ONA_EIO;
    fcntl(s->pipe[1], F_SETFL, fcntl(s->pipe[1], F_GETFL) | O_NONBLOCK);
    if (uv_mutex_init(&s->lock) != 0) {
        close(s->pipe[0]);
        close(s->pipe[1]);
        return ONA_ENOMEM;
    }
    /* The handlers before the thread: a signal pending since the claim is delivered as soon as
     * the thread unblocks it, and must find them. */
    atomic_store_explicit(&signal_fd, s->pipe[1], memory_order_relaxed);
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    if (uv_thread_create(&s->thread, watchdog, rt) != 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        atomic_store_explicit(&signal_fd, -1, memory_order_relaxed);
        uv_mutex_destroy(&s->lock);
        close(s->pipe[0]);
        close(s->pipe[1]);
        return ONA_ETHREAD;
    }
    s->installed = true;
    return 0;
}

void ona__signals_stop(ona_runtime *rt) {
    ona__signals *s = &rt->signals;
    if (s->installed) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        atomic_store_explicit(&signal_fd, -1, memory_order_relaxed);
        write_byte(s, BYTE_STOP);
        uv_thread_join(&s->thread);
        uv_mutex_destroy(&s->lock);
        close(s->pipe[0]);
        close(s->pipe[1]);
        s->installed = false;
    }
    if (s->claimed) {
        /* Main's own mask as it was; a signal still pending meets the embedder's handlers. */
        pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
        s->claimed = false;
        atomic_store_explicit(&claimed, false, memory_order_relaxed);
    }
}

void ona__signals_enter(ona_runtime *rt) {
    ona__signals *s = &rt->signals;
    if (!s->installed)
        return;
    uv_mutex_lock(&s->lock);
    s->busy = true;
    s->busy_what = rt->services.in_call ? "in a frame" : "running a script's chunk (a spawn)";
    uv_mutex_unlock(&s->lock);
}

void ona__signals_leave(ona_runtime *rt) {
    ona__signals *s = &rt->signals;
    if (!s->installed)
        return;
    uv_mutex_lock(&s->lock);
    s->busy = false;
    s->busy_what = NULL;
    uv_mutex_unlock(&s->lock);
    /* seq_cst: see the store in watchdog(). */
    if (atomic_load_explicit(&s->signal, memory_order_seq_cst))
        write_byte(s, BYTE_END);
}

void ona__signals_turns(ona_runtime *rt, bool in_turns) {
    ona__signals *s = &rt->signals;
    if (!s->installed)
        return;
    uv_mutex_lock(&s->lock);
    s->in_turns = in_turns;
    uv_mutex_unlock(&s->lock);
}

int ona_runtime_stop_signal(const ona_runtime *rt) {
    /* seq_cst: see the store in watchdog(); a rare read. A runtime without handlers keeps the
     * 0 it was created with. */
    return rt ? atomic_load_explicit(&rt->signals.signal, memory_order_seq_cst) : 0;
}
