/*
 * trace.h: a Chrome trace-event timeline of the runtime (chrome://tracing, Perfetto). Internal.
 *
 * Each thread that runs turns records its own slices in its own buffer (no lock, no atomic):
 * a slice per stretch of a turn it ran, and a "parked" slice for the time a turn waited in
 * receive or send. After the frame's turns, main writes every buffer to the file, with a slice
 * for the frame itself.
 */
#ifndef ONA_TRACE_H
#define ONA_TRACE_H

#include "ona/base.h"

#include <stdio.h>

struct ona__system;

typedef struct ona__trace_event {
    const struct ona__system *sys;
    uint64_t start_ns, end_ns;
    uint8_t kind; /* ONA__TRACE_TURN, ONA__TRACE_PARKED */
} ona__trace_event;

enum { ONA__TRACE_TURN = 1, ONA__TRACE_PARKED = 2 };

typedef struct ona__trace_buffer {
    ona__trace_event *events;
    uint32_t count, capacity;
    uint32_t dropped; /* events lost to a failed allocation */
} ona__trace_buffer;

/* Records an event (the thread's own buffer). */
void ona__trace_record(ona__trace_buffer *b, const struct ona__system *sys, uint8_t kind,
                       uint64_t start_ns, uint64_t end_ns);
void ona__trace_buffer_free(ona__trace_buffer *b);

typedef struct ona__trace {
    FILE *file;
    uint64_t origin_ns;
    bool first;
    char path[1024];
} ona__trace;

#endif
