/*
 * recent.h: the last messages a system received, kept only while someone watches it (the
 * inspector's /api/messages). Internal.
 *
 * Who owns what: main makes a system's ring and sets `sys->recent` between frames, and frees it
 * there; while the frame runs, the system's own turn writes it as it takes each message (a system
 * runs on one thread at a time), and main reads it between frames, after the frame's end has
 * ordered every write. A system nobody watches has a NULL `recent` and pays one test per message.
 */
#ifndef ONA_RECENT_H
#define ONA_RECENT_H

#include "ona/message.h"

enum { ONA__RECENT_ENTRIES = 32, ONA__RECENT_TEXT = 120, ONA__RECENT_SENDERS = 32 };

typedef struct ona__recent_entry {
    uint64_t frame;              /* the frame it was taken in */
    uint64_t sender;             /* the sender's handle, 0 from C */
    uint32_t values;             /* its top-level values */
    char text[ONA__RECENT_TEXT]; /* the values, abbreviated (ona__message_describe) */
} ona__recent_entry;

/* How many messages one sender sent it since the watch began. */
typedef struct ona__recent_sender {
    uint64_t sender; /* the handle, 0 from C */
    uint64_t count;
} ona__recent_sender;

typedef struct ona__recent {
    ona__recent_entry entries[ONA__RECENT_ENTRIES]; /* a ring: entry `total % ENTRIES` is next */
    uint64_t total;                                 /* messages recorded since the watch began */
    /* Counts per sender, the first ONA__RECENT_SENDERS senders in order of their first message
     * (an entry keeps its index); the messages of any later sender count in `others`. */
    ona__recent_sender senders[ONA__RECENT_SENDERS];
    uint32_t sender_count;
    uint64_t others;
} ona__recent;

/* Records `m`, just taken in `frame`. The system's own turn. */
void ona__recent_record(ona__recent *w, uint64_t frame, ona_message *m);

/* Writes the values of `m` into `out` (size > 0, always terminated) as Lua would print them,
 * abbreviated: strings cut to 24 bytes, tables as {k=v, ...}, buffers as <buffer type xN>, and
 * "..." where `size` runs out. Returns the length written. Reads `m` only. */
size_t ona__message_describe(ona_message *m, char *out, size_t size);

#endif
