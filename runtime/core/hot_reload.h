/*
 * hot_reload.h: watching scripts, modules, shaders and textures for changes. Internal.
 *
 * Any thread registers files to watch (a system's script at spawn, a module at require, a
 * texture at load); the main thread polls libuv once a frame (UV_RUN_NOWAIT) and, at the frame
 * boundary, applies every change it saw.
 */
#ifndef ONA_HOT_RELOAD_H
#define ONA_HOT_RELOAD_H

#include "ona/base.h"

#include <uv.h>

typedef struct ona__watch_dir {
    uv_fs_event_t handle;
    char *path;
    struct ona__hot_reload *owner;
} ona__watch_dir;

typedef struct ona__hot_reload {
    bool enabled;     /* watching files (changes can still be requested with ona_runtime_reload) */
    uv_loop_t loop;
    bool loop_ready;
    uv_mutex_t lock;  /* guards `files` (registered from any thread) */
    char **files;     /* every watched file, resolved */
    uint32_t file_count, file_capacity;
    uint32_t files_armed; /* files whose directory already has a watch (main) */
    ona__watch_dir **dirs;
    uint32_t dir_count, dir_capacity;
    char **changed;   /* changes seen, applied at the next boundary (main) */
    uint32_t changed_count, changed_capacity;
    uint64_t reloads, failures;
} ona__hot_reload;

int ona__hot_reload_init(ona__hot_reload *h, bool watch);
void ona__hot_reload_free(ona__hot_reload *h);
/* Any thread: watch `path` (a file) from now on. Duplicates are ignored. */
void ona__hot_reload_watch(ona__hot_reload *h, const char *path);
/* Main: marks `path` changed (as a file event would). */
int ona__hot_reload_mark(ona__hot_reload *h, const char *path);
/* Main, at the frame boundary: arms new watches and polls file events; the changes seen are then
 * in `changed` (changed_count of them) until ona__hot_reload_clear. */
void ona__hot_reload_poll(ona__hot_reload *h);
void ona__hot_reload_clear(ona__hot_reload *h);

#endif
