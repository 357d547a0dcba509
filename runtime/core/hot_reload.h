/*
 * hot_reload.h: watching scripts, modules, shaders and textures for changes. Internal.
 *
 * Any thread registers files to watch (a system's script at spawn, a module at require, a
 * texture at load); the watches are handles on the runtime's event loop (loop.h), which the main
 * thread polls once a frame, and at the frame boundary main applies every change they saw.
 */
#ifndef ONA_HOT_RELOAD_H
#define ONA_HOT_RELOAD_H

#include "ona/base.h"

#include <stdint.h>
#include <uv.h>

typedef struct ona__watch_dir {
    uv_fs_event_t handle;
    char *path;
    struct ona__hot_reload *owner;
} ona__watch_dir;

/* A watched file (hot_reload.c). `path` is set once; the other fields are main's. */
typedef struct ona__watched {
    char *path;
    uint64_t digest; /* of the content last applied (or loaded), when `known` */
    bool known;      /* false: never read (missing so far), so any content is a change */
    bool once;       /* a one-shot script (main.lua): it ran at start and cannot re-run */
} ona__watched;

/* A file that changed, waiting to be quiet before it is applied (hot_reload.c). */
typedef struct ona__settling {
    char *path;
    int64_t size, mtime_ns; /* at the last poll; size -1 while the file is missing */
    uint64_t quiet_since;   /* uv_hrtime of the last event or change of size or mtime seen */
    bool fresh;             /* an event came since the last poll */
} ona__settling;

/* How long a changed file must be quiet (no event, same size and mtime) before it is applied:
 * an editor's save is done well within it, and a writer that pauses longer is caught by the
 * parse check (runtime/reload.c). Wall-clock time, whatever the frame rate. */
#define ONA__HOT_RELOAD_SETTLE_NS (50ull * 1000 * 1000)

typedef struct ona__hot_reload {
    bool enabled;     /* watching files (changes can still be requested with ona_runtime_reload) */
    bool rescan;      /* main: an event named a missing folder (or one above it): try it again */
    bool listing;     /* listing the files even when not watching (a recording names them) */
    uv_loop_t *loop;  /* the runtime's (loop.h) while watching, else NULL */
    uint32_t closing; /* directory watches closed, their close callbacks not run yet (main) */
    uv_mutex_t lock;  /* guards the `files` array (registered from any thread) */
    ona__watched *files; /* every watched file, resolved */
    uint32_t file_count, file_capacity;
    uint32_t files_armed; /* files whose folder has a watch, or is on `missing` (main) */
    ona__watch_dir **dirs;
    uint32_t dir_count, dir_capacity;
    char **missing; /* folders of watched files that do not exist yet (main) */
    uint32_t missing_count, missing_capacity;
    ona__settling *settling; /* changed files not yet quiet (main) */
    uint32_t settling_count, settling_capacity;
    char **changed;   /* changes to apply at this boundary (main) */
    uint32_t changed_count, changed_capacity;
    uint64_t reloads, failures, unchanged;
} ona__hot_reload;

/* `loop` is the runtime's event loop, which must outlive the watcher; the directory watches are
 * handles on it, and main's once-a-frame poll of it (ona__loop_poll) delivers their events. */
int ona__hot_reload_init(ona__hot_reload *h, uv_loop_t *loop, bool watch);
/* Closes the watches (running the loop until their close callbacks ran) and frees the lists. */
void ona__hot_reload_free(ona__hot_reload *h);
/* Any thread: watch `path` (a file) from now on. Duplicates are ignored. */
void ona__hot_reload_watch(ona__hot_reload *h, const char *path);
/* Any thread: watch `path`, a script that ran once at start (a game's main.lua): a change is
 * applied by no one, so the boundary names it and says to restart (runtime/reload.c). */
void ona__hot_reload_watch_once(ona__hot_reload *h, const char *path);
/* Main: whether `path` was registered with ona__hot_reload_watch_once. */
bool ona__hot_reload_ran_once(ona__hot_reload *h, const char *path);
/* Main: marks `path` changed, applied at the next boundary without waiting for it to settle or
 * comparing its content (an embedder's explicit request). */
int ona__hot_reload_mark(ona__hot_reload *h, const char *path);
/* Main, at the frame boundary, after the loop's poll delivered the file events: arms watches for
 * files registered since (a folder that does not exist yet is watched from the nearest one above
 * it that does, and armed when an event there names it), and moves the changes that are now
 * settled into `changed` (changed_count of them) until ona__hot_reload_clear. A file event
 * starts a wait: the change is taken at the first poll at least ONA__HOT_RELOAD_SETTLE_NS after
 * the last event or change of size or mtime seen, and only if its content's digest differs from
 * the one last applied (a `touch`, or a save of the same text, is counted in `unchanged` and
 * dropped). A missing file waits until it exists again. */
void ona__hot_reload_poll(ona__hot_reload *h);
void ona__hot_reload_clear(ona__hot_reload *h);

#endif
