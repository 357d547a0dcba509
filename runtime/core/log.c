/*
 * log.c: the process-wide log sink.
 *
 * Design note: the sink (function, user pointer, minimum level) is one struct behind an atomic
 * pointer, so a swap is a single release store and a logging thread reads a consistent triple
 * with one acquire load. Swapped-out structs are kept in a small static array rather than freed,
 * since another thread may still be reading one; there are only a handful of swaps in a process.
 * Messages are formatted into a stack buffer (long ones are cut, marked with "...") so logging
 * never allocates and can report out-of-memory.
 */
#include "common.h"

#include <stdatomic.h>
#include <stdio.h>

#define LOG_BUFFER 2048
#define MAX_SINKS 64

typedef struct sink {
    ona_log_fn fn;
    void *user;
    ona_log_level min_level;
} sink;

static void default_sink(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    /* One fprintf call per line: stdio locks the stream, so lines from threads do not mix. */
    fprintf(stderr, "ona: %s: %s: %s\n", ona_log_level_name(level), where, message);
}

static sink sinks[MAX_SINKS] = {{default_sink, NULL, ONA_LOG_INFO}};
static _Atomic(sink *) active = &sinks[0];
static atomic_uint next_sink = 1;

void ona_log_set_sink(ona_log_fn fn, void *user, ona_log_level min_level) {
    /* relaxed: only the slot index must be unique; the slot's contents are published by the
     * release store below. */
    unsigned slot = atomic_fetch_add_explicit(&next_sink, 1, memory_order_relaxed);
    sink *s = &sinks[1 + (slot - 1) % (MAX_SINKS - 1)];
    s->fn = fn ? fn : default_sink;
    s->user = fn ? user : NULL;
    s->min_level = min_level;
    /* release: a thread that loads this pointer sees the fields written above. */
    atomic_store_explicit(&active, s, memory_order_release);
}

const char *ona_log_level_name(ona_log_level level) {
    switch (level) {
    case ONA_LOG_DEBUG:
        return "debug";
    case ONA_LOG_INFO:
        return "info";
    case ONA_LOG_WARN:
        return "warn";
    case ONA_LOG_ERROR:
        return "error";
    }
    return "?";
}

void ona_logv(ona_log_level level, const char *where, const char *fmt, va_list args) {
    /* acquire: pairs with the release store in ona_log_set_sink. */
    sink *s = atomic_load_explicit(&active, memory_order_acquire);
    if (level < s->min_level)
        return;
    char buffer[LOG_BUFFER];
    int n = vsnprintf(buffer, sizeof buffer, fmt ? fmt : "(null)", args);
    if (n < 0)
        snprintf(buffer, sizeof buffer, "(unformattable log message: %s)", fmt ? fmt : "");
    else if ((size_t)n >= sizeof buffer)
        memcpy(buffer + sizeof buffer - 4, "...", 4);
    s->fn(s->user, level, where ? where : "ona", buffer);
}

void ona_log(ona_log_level level, const char *where, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    ona_logv(level, where, fmt, args);
    va_end(args);
}
