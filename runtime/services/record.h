/*
 * record.h: recordings of a session (record_format.c: the file format; record.c: recording and
 * replaying a runtime's frames). Internal to the library.
 *
 * Layering: services. The assembly (runtime.c) opens a recording or a replay at create, hands
 * each frame's events and dt to it, and after the turns asks it to write or check the frame's
 * digests, which the core keeps per system (digest.h); record_files.c names the game files the
 * session loaded (the watcher's list, hot_reload.h) and the hot reloads with their content;
 * record_saves.c keeps and answers the saves' loads. Main thread only, but for the saves'
 * functions (any thread, under the record's `load_lock`).
 */
#ifndef ONA_RECORD_H
#define ONA_RECORD_H

#include "core.h"
#include "hot_reload.h"
#include "ona/gfx.h"

#include <stdio.h>

#define ONA__RECORD_VERSION 3
#define ONA__RECORD_MAGIC "ONAREC\0\n"
#define ONA__RECORD_NAME_BYTES 64
#define ONA__RECORD_PATH_BYTES 1024
/* The content a recording keeps (version 3): of each save loaded ('L') and of each hot reload's
 * new file ('C'), at most FILE_BYTES a file and TOTAL_BYTES in all for each of the two kinds.
 * Past them the content is left out with a warning, and a replay that needs it says it cannot be
 * exact there. */
#define ONA__RECORD_CONTENT_FILE_BYTES (1u << 20)
#define ONA__RECORD_CONTENT_TOTAL_BYTES (16u << 20)
/* The longest error text a recorded load keeps. */
#define ONA__RECORD_ERROR_BYTES 600

/* One system's digests of one frame: for each kind (ONA__DIGEST_*) in `mask`, how many items
 * and the low 32 bits of their digest. */
typedef struct ona__rec_digest {
    uint32_t order; /* the system's spawn order */
    uint8_t mask;
    uint32_t count[ONA__DIGEST_KINDS];
    uint32_t hash[ONA__DIGEST_KINDS];
    /* The first messages received, in detail (version 2): the sender's spawn order + 1 (0:
     * from C) and the low half of each message's digest; min(count, ONA__DETAIL_MESSAGES). */
    uint32_t detail_count;
    uint32_t detail_from[ONA__DETAIL_MESSAGES], detail_hash[ONA__DETAIL_MESSAGES];
} ona__rec_digest;

typedef struct ona__rec_frame {
    uint64_t frame; /* the runtime's frame number (1 = the first) */
    double dt;
    uint32_t first_event, event_count;
    uint32_t first_digest, digest_count;
    /* The systems (spawn orders) whose turn a budget interrupt ended in the frame. */
    uint32_t first_interrupted, interrupted_count;
} ona__rec_frame;

/* A frame of fixed steps ('A', version 3): the steps from `frame` on that one ona_runtime_step
 * ran before its picture, and the alpha the systems saw in them. */
typedef struct ona__rec_steps {
    uint64_t frame;
    uint32_t count;
    double alpha;
} ona__rec_steps;

/* A message sent from C ('M'): its values' encoding is `values[offset, offset + size)` of the
 * recording's `send_bytes`. */
typedef struct ona__rec_send {
    uint64_t frame;
    uint32_t order;
    uint32_t offset, size;
} ona__rec_send;

/* The kinds of a recorded message's values (record_format.c). */
enum {
    ONA__REC_VALUE_NIL = 1,
    ONA__REC_VALUE_FALSE,
    ONA__REC_VALUE_TRUE,
    ONA__REC_VALUE_NUMBER,
    ONA__REC_VALUE_STRING,
    ONA__REC_VALUE_BUFFER,
    ONA__REC_VALUE_TABLE,
    ONA__REC_VALUE_END,
};

/* A game file the session loaded ('G', `frame` 0), or a hot reload of one that took effect in
 * `frame` ('R'). */
typedef struct ona__rec_file {
    uint32_t name; /* offset of its path in the recording's `names` */
    uint64_t frame, size, digest;
    /* A reload whose new content is kept ('C', version 3): `contents[content, + content_size)`. */
    bool has_content;
    uint32_t content, content_size;
} ona__rec_file;

/* A save loaded ('L', version 3): by `loader` (spawn order + 1; 0: C outside any system) in
 * `frame`, with what the load returned: `rc` 0 and, when `kept`, the save's payload (message
 * codec bytes of one value), or an error code and its text; either in
 * `contents[offset, + size)`. */
typedef struct ona__rec_load {
    uint64_t frame;
    uint32_t loader;
    char name[72];
    int rc;
    bool kept;
    uint32_t offset, size;
} ona__rec_load;

typedef struct ona__rec_system {
    uint32_t order;
    char name[ONA__RECORD_NAME_BYTES];
} ona__rec_system;

/* A recording read back whole (ona__recording_parse). */
typedef struct ona__recording {
    uint32_t version;
    char runtime_version[32];
    char game[1024];
    uint32_t delivery, threads;
    char args[4096]; /* key=value strings, each NUL-terminated, `arg_count` of them */
    uint32_t arg_count;
    uint64_t seed;
    uint32_t width, height; /* the window size scripts saw at the first frame (0: unknown) */
    ona__rec_frame *frames;
    uint32_t frame_count, frame_cap;
    ona_event *events;
    uint32_t event_count, event_cap;
    ona__rec_digest *digests;
    uint32_t digest_count, digest_cap;
    ona__rec_system *systems;
    uint32_t system_count, system_cap;
    uint32_t *interrupted;
    uint32_t interrupted_count, interrupted_cap;
    ona__rec_file *files;
    uint32_t file_count, file_cap;
    char *names; /* the files' paths, each NUL-terminated */
    uint32_t names_size, names_cap;
    ona__rec_send *sends;
    uint32_t send_count, send_cap;
    ona__rec_steps *steps; /* in frame order */
    uint32_t steps_count, steps_cap;
    uint8_t *send_bytes;
    uint32_t send_bytes_size, send_bytes_cap;
    ona__rec_load *loads;
    uint32_t load_count, load_cap;
    uint8_t *contents; /* the kept saves and reloads, and the loads' error texts */
    uint32_t contents_size, contents_cap;
    uint32_t left_out; /* loads and reloads whose content was past the bounds */
    bool ended;        /* the end chunk was read: the session closed cleanly */
    bool truncated;    /* the file stops inside a chunk (a crash while recording) */
} ona__recording;

/* Reads `size` untrusted bytes as a recording into *out (zeroed first): 0, or ONA_EFORMAT with
 * the reason in `err` (not a recording, another format version, a corrupt or malformed chunk).
 * A last chunk cut short by the file's end is not an error: `truncated` is set and what came
 * before is kept. Never reads past `size`; allocations stay within a small multiple of `size`.
 * Any thread. ona__recording_free releases what a parse (even a failed one) left. */
int ona__recording_parse(const uint8_t *bytes, size_t size, ona__recording *out, char *err,
                         size_t errsize);
void ona__recording_free(ona__recording *r);
/* Reads the file at `path` and parses it (ONA_ENOENT / ONA_EIO when it cannot be read). */
int ona__recording_load(const char *path, ona__recording *out, char *err, size_t errsize);
/* The name of spawn order `order` in the recording, NULL when it named none. */
const char *ona__recording_system_name(const ona__recording *r, uint32_t order);

/* Makes room for one more item of `item` bytes in a growing array (`*cap` doubles, from 64):
 * false when out of memory. */
bool ona__rec_grow(void **items, uint32_t *cap, uint32_t count, size_t item);

/* A growing byte buffer the writer encodes chunks into (reused frame after frame). */
typedef struct ona__rec_buf {
    uint8_t *bytes;
    size_t size, cap;
    bool failed; /* an allocation failed: the chunk is dropped */
} ona__rec_buf;

void ona__rec_buf_free(ona__rec_buf *b);
/* Appends `n` bytes as they are (chunks encoded elsewhere). */
void ona__rec_put_bytes(ona__rec_buf *b, const void *bytes, size_t n);

/* What a recording's header says. */
typedef struct ona__rec_header {
    const char *game;
    uint32_t delivery, threads;
    uint64_t seed;
    uint32_t width, height;
    const char *const *args; /* NULL-terminated key=value; NULL = none */
} ona__rec_header;

/* Chunk encoders (record_format.c): the header, a game file, a hot reload, a system's name, a
 * frame and the end. */
void ona__rec_put_header(ona__rec_buf *b, const ona__rec_header *h);
void ona__rec_put_file(ona__rec_buf *b, const char *path, uint64_t size, uint64_t digest);
void ona__rec_put_reload(ona__rec_buf *b, uint64_t frame, const char *path, uint64_t size,
                         uint64_t digest);
void ona__rec_put_system(ona__rec_buf *b, uint32_t order, const char *name);
/* A hot reload's new content ('C'), written right after its 'R'. */
void ona__rec_put_content(ona__rec_buf *b, uint64_t frame, const char *path, const uint8_t *bytes,
                          size_t size);
/* A save loaded by `loader` in `frame`: rc 0 with the payload (`bytes` NULL: left out, past the
 * bounds), else rc and its error text `err`. */
void ona__rec_put_load(ona__rec_buf *b, uint64_t frame, uint32_t loader, const char *name, int rc,
                       const uint8_t *bytes, size_t size, const char *err);
/* A message sent from C to spawn order `order`, delivered in `frame` (read, not consumed);
 * _values writes values already encoded (a parsed recording's). */
void ona__rec_put_send(ona__rec_buf *b, uint64_t frame, uint32_t order, ona_message *m);
void ona__rec_put_send_values(ona__rec_buf *b, uint64_t frame, uint32_t order,
                              const uint8_t *values, size_t size);
/* Rebuilds a recorded message's values into `out` (record_send.c): 0, or the writer's error. */
int ona__rec_send_decode(const uint8_t *values, size_t size, ona_message *out);
void ona__rec_put_frame(ona__rec_buf *b, uint64_t frame, double dt, const ona_event *events,
                        uint32_t event_count, const ona__rec_digest *digests, uint32_t digest_count,
                        const uint32_t *interrupted, uint32_t interrupted_count);
void ona__rec_put_end(ona__rec_buf *b, uint64_t frames);
void ona__rec_put_steps(ona__rec_buf *b, uint64_t frame, uint32_t count, double alpha);

/* --- A runtime's recording or replay (record.c) ---------------------------------------------- */

typedef struct ona__record {
    bool recording, replaying;
    bool resimulate; /* replaying with the current files: a divergence is reported, not fatal */
    /* Both: the watcher whose list of files is the session's loaded files, and the script
     * roots (as given and resolved) their paths are named relative to (record_files.c). */
    ona__hot_reload *hot;
    char *const *roots;
    uint32_t root_count;
    char **real_roots;
    uint32_t files_noted; /* the watcher's files already written ('G') */
    /* Recording: the file, written and flushed every frame. */
    FILE *out;
    char path[1024];
    ona__rec_buf buf;
    uint32_t *named; /* spawn orders whose name is written (a bit each) */
    uint32_t named_words;
    uint64_t frames;
    /* Both: this frame's digests, gathered from the systems after the turns. */
    ona__rec_digest *now;
    uint32_t now_count, now_cap;
    uint32_t *interrupted; /* this frame's interrupted systems (spawn orders) */
    uint32_t interrupted_count, interrupted_cap;
    /* Replaying: the recording and the next frame to play. */
    ona__recording rec;
    uint32_t next;
    uint32_t next_send;  /* the next recorded message from C */
    uint32_t next_steps; /* the next recorded frame of fixed steps */
    bool ended_logged;
    uint64_t diverged_frame;  /* 0: no divergence */
    uint64_t interrupt_frame; /* the last frame up to now with a budget interrupt, either run */
    uint32_t interrupt_order; /* the interrupted system (spawn order) */
    bool interrupt_recorded;  /* in the recording (else in this replay) */
    char divergence[768];
    /* Saves (record_saves.c), loaded and saved from any thread: under `load_lock`. */
    uv_mutex_t load_lock;
    bool load_lock_ready;
    bool replayed;         /* a replay ran: saves stay off the disk until the runtime ends */
    ona__rec_buf load_buf; /* recording: the 'L' chunks since the last frame written */
    uint64_t save_bytes;   /* recording: save content kept so far */
    uint64_t reload_bytes; /* recording (main): reload content kept so far */
    uint32_t *load_seq;    /* replaying: loads made so far, by loader (spawn order + 1) */
    uint32_t load_seq_cap;
    uint32_t *load_index; /* replaying: the recording's loads, by loader then in order */
    bool mismatch_warned, left_out_warned; /* replaying: those warnings are given once */
} ona__record;

/* Where a recording's paths are relative to: the watcher listing the loaded files and the
 * script roots (which outlive the record). Before begin. 0 or ONA_ENOMEM. */
int ona__record_files_init(ona__record *r, ona__hot_reload *hot, char *const *roots,
                           uint32_t root_count);
/* Opens `path` for writing and writes the header. 0, ONA_EIO (logged). */
int ona__record_begin(ona__record *r, const char *path, const ona__rec_header *header);
/* Loads the recording at `path` to replay. 0, or ONA_EFORMAT / ONA_ENOENT / ONA_EIO (logged). */
int ona__replay_begin(ona__record *r, const char *path);

/* record_files.c. Replaying: logs each game file the recording loaded that is now missing or
 * changed ("collisions.lua changed since the recording"); the replay runs on. */
void ona__replay_check_files(ona__record *r);
/* Recording: writes a 'G' chunk for every file the watcher listed since the last call. */
void ona__record_note_files(ona__record *r);
/* At the frame boundary, before the reloads are applied (`frame` is the frame they take effect
 * in). Recording: writes an 'R' chunk for each changed file. Replaying: drops the changes the
 * watcher saw and marks the recording's reloads of `frame` instead (with resimulate, the live
 * changes are kept too). */
void ona__record_reloads(ona__record *r, uint64_t frame);
/* Frees what ona__record_files_init made (by ona__record_end). */
void ona__record_files_free(ona__record *r);
/* Replaying: the next recorded frame (its events and dt), or NULL once the recording has no
 * more frames. */
const ona__rec_frame *ona__replay_next(ona__record *r, const ona_event **events);
/* Before a frame of fixed steps whose first step is `frame`: recording writes its step count
 * and alpha ('A'). */
void ona__record_steps(ona__record *r, uint64_t frame, uint32_t count, double alpha);
/* Replaying, before a frame: how many recorded frames the next ona_runtime_step plays and the
 * alpha they saw (1 and 0 where the recording has no 'A' there). False when the recording has
 * no frame left. */
bool ona__replay_steps(ona__record *r, uint32_t *count, double *alpha);
/* After the frame's turns: gathers every system's digests (and clears them); recording writes
 * the frame (events, dt, digests) and flushes it, replaying compares them with the recorded
 * frame and returns ONA_EDIVERGED with `divergence` written at the first difference. */
int ona__record_frame(ona__record *r, ona__core *core, double dt, const ona_event *events,
                      uint32_t event_count);
/* Recording: writes the message `m` that C sends to `to` (delivered in the coming frame) and
 * returns the mark to undo it with ona__record_unsend when the send fails. */
size_t ona__record_send(ona__record *r, ona__core *core, uint64_t to, ona_message *m);
void ona__record_unsend(ona__record *r, size_t mark);
/* Replaying, before frame `frame`'s boundary: sends the messages recorded for it. */
void ona__replay_sends(ona__record *r, ona__core *core, uint64_t frame);
/* record_saves.c, any thread (a system's turn, or C). Saves `value` as `name` in `dir`; a replay
 * checks the value as a save would and writes nothing. `r` may be NULL (no recording). */
int ona__record_save(ona__record *r, const char *dir, const char *name, ona_message *value,
                     char *err, size_t errsize);
/* Loads save `name` (ona__save_read's results). Recording: from `dir`, and what it returned is
 * written ('L'). Replaying: the recording's answer to the same load (by the running system of
 * `core`, or C, in order), never the folder. */
int ona__record_load(ona__record *r, ona__core *core, const char *dir, const char *name,
                     uint8_t **bytes, size_t *size, char *err, size_t errsize);
/* Main: the lock and, for a replay, the loads' index (0 or ONA_ENOMEM); the frame's loads written
 * before its frame chunk; what the saves hold freed. */
int ona__record_saves_begin(ona__record *r);
void ona__record_saves_flush(ona__record *r);
void ona__record_saves_end(ona__record *r);
/* Writes the end chunk and closes the file; frees the replay. */
void ona__record_end(ona__record *r);

#endif
