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

/* A file that changed, waiting to be stable before it is applied (hot_reload.c). */
typedef struct ona__settling {
    char *path;
    int64_t size, mtime_ns; /* at the last poll; size -1 while the file is missing */
    bool fresh;             /* an event came since the last poll */
} ona__settling;

typedef struct ona__hot_reload {
    bool enabled;     /* watching files (changes can still be requested with ona_runtime_reload) */
    bool listing;     /* listing the files even when not watching (a recording names them) */
    uv_loop_t *loop;  /* the runtime's (loop.h) while watching, else NULL */
    uint32_t closing; /* directory watches closed, their close callbacks not run yet (main) */
    uv_mutex_t lock;  /* guards `files` (registered from any thread) */
    char **files;     /* every watched file, resolved */
    uint32_t file_count, file_capacity;
    uint32_t files_armed; /* files whose directory already has a watch (main) */
    ona__watch_dir **dirs;
    uint32_t dir_count, dir_capacity;
    ona__settling *settling; /* changed files not yet stable (main) */
    uint32_t settling_count, settling_capacity;
    char **changed;   /* stable changes, applied at this boundary (main) */
    uint32_t changed_count, changed_capacity;
    uint64_t reloads, failures;
} ona__hot_reload;

/* `loop` is the runtime's event loop, which must outlive the watcher; the directory watches are
 * handles on it, and main's once-a-frame poll of it (ona__loop_poll) delivers their events. */
int ona__hot_reload_init(ona__hot_reload *h, uv_loop_t *loop, bool watch);
/* Closes the watches (running the loop until their close callbacks ran) and frees the lists. */
void ona__hot_reload_free(ona__hot_reload *h);
/* Any thread: watch `path` (a file) from now on. Duplicates are ignored. */
void ona__hot_reload_watch(ona__hot_reload *h, const char *path);
/* Main: marks `path` changed, applied at the next boundary without waiting for it to settle
 * (an embedder's explicit request). */
int ona__hot_reload_mark(ona__hot_reload *h, const char *path);
/* Main, at the frame boundary, after the loop's poll delivered the file events: arms watches for
 * files registered since, and moves the changes that are now stable into `changed`
 * (changed_count of them) until ona__hot_reload_clear. A file
 * event starts a wait: the change is applied at the first poll that finds the file's size and
 * modification time equal to the previous poll's with no event in between (so one frame at
 * least after the last write; a missing file waits until it exists again). */
void ona__hot_reload_poll(ona__hot_reload *h);
void ona__hot_reload_clear(ona__hot_reload *h);

#endif
