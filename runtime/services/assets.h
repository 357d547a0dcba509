/*
 * assets.h: the asset registry: every file a game loads (textures, sounds, fonts, shaders) is
 * found, loaded once per path, watched and reloaded here. Internal (services layer).
 *
 * A kind (texture, sound, ...) plugs in with a small table of hooks (ona__asset_ops): the
 * registry owns the one path-keyed table, the kinds own the decoded objects behind their own
 * handles (texture.c's slots hold GL names, sound.c's the samples). A load resolves the name
 * under the game's script roots, returns the handle the path already has, or asks the kind to
 * decode the file on the calling thread. A file that is missing or broken still gets a handle
 * the game can use (the kind's placeholder); for kinds that give each failed file a handle of
 * its own, the file is watched and filled in when it appears or is fixed.
 *
 * Threads: ona__assets_load on any thread (a system's turn); everything else on main. Reloads
 * run on main at the frame boundary, when no turn runs, so a kind may change what its handle
 * holds then.
 */
#ifndef ONA_SERVICES_ASSETS_H
#define ONA_SERVICES_ASSETS_H

#include "ona/base.h"

#include "hot_reload.h"

#include <stdatomic.h>
#include <uv.h>

#define ONA__MAX_ASSETS 8192

typedef enum ona__asset_kind {
    ONA__ASSET_TEXTURE,
    ONA__ASSET_SOUND,
    ONA__ASSET_FONT,
    ONA__ASSET_SHADER,
    ONA__ASSET_KIND_COUNT
} ona__asset_kind;

/* A kind's hooks. `ctx` is what the kind registered with (its own table). */
typedef struct ona__asset_ops {
    const char *name; /* "texture": the word the kind's messages use */
    /* Any thread. Decodes `path` and makes a new handle for it (GL uploads and other main-only
     * work wait for main, as the kind arranges). `param` is the kind's (a font's pixel size;
     * 0 otherwise). On failure logs the path under `who`, still sets *handle to one the game
     * can use (the placeholder), and returns the error. */
    int (*load)(void *ctx, const char *path, int param, const char *who, uint32_t *handle);
    /* Main thread, at the frame boundary: `path` changed (or appeared) on disk; decode it again
     * into `handle`. 0, or the error (logged; the handle keeps what it had). */
    int (*reload)(void *ctx, uint32_t handle, const char *path, int param);
    /* Any thread: the handle given when no load could be tried (a bad name, a full table); NULL:
     * 0 then. */
    uint32_t (*placeholder)(void *ctx);
    /* True when a failed load's handle is the file's own (a texture slot drawing the
     * placeholder): the registry keeps it, and a reload fills it once the file is readable.
     * False when it is shared (a font falls back to the default font's handle): a later load of
     * the path tries the file again. */
    bool owns_failed;
} ona__asset_ops;

typedef struct ona__asset_entry {
    _Atomic uint32_t id; /* generation << 16 | index + 1 once published, 0 before */
    ona__asset_kind kind;
    int param;
    char *path;      /* resolved (or, for a missing file, where it is expected) */
    uint32_t handle; /* the kind's handle */
    int rc;       /* the last load's or reload's result: 0, or why the handle shows a placeholder */
    bool loading; /* a thread is decoding it; others wait on `loaded` */
    bool looked;  /* main looked once, after its folder was watched, whether a missing file
                     had appeared meanwhile */
} ona__asset_entry;

typedef struct ona__assets {
    uv_mutex_t lock; /* guards entries[0..used) but `id` */
    uv_cond_t loaded;
    char *const *roots;
    uint32_t root_count;
    ona__hot_reload *hot; /* NULL: nothing is watched */
    struct {
        const ona__asset_ops *ops;
        void *ctx;
    } kinds[ONA__ASSET_KIND_COUNT];
    ona__asset_entry *entries; /* ONA__MAX_ASSETS of them; never reused */
    uint32_t used;
    uint64_t reloads, failures; /* main: reloads applied, and those that failed */
} ona__assets;

/* Main. `roots` (root_count of them) and `hot` stay the caller's and outlive the registry.
 * Errors: ONA_ENOMEM. */
int ona__assets_init(ona__assets *a, char *const *roots, uint32_t root_count, ona__hot_reload *hot);
/* Main, after the kinds' tables are no longer used. Frees the registry's table only. */
void ona__assets_free(ona__assets *a);
/* Main, before any load of the kind: plugs a kind in. */
void ona__assets_set_kind(ona__assets *a, ona__asset_kind kind, const ona__asset_ops *ops,
                          void *ctx);

/* Any thread. Finds `name` under the script roots and returns (in *handle) the kind's handle
 * for it: the one the path already has, else a new one from the kind's load. The file is
 * watched from then on. `path` (size bytes, may be NULL) receives the path used, for messages.
 * Returns 0, or the kind's error (the handle is still usable: the placeholder), ONA_EINVAL
 * (no such kind plugged in, or no name), ONA_ELIMIT (the table is full) or ONA_ENOMEM; on those
 * three *handle is the kind's placeholder (0 for a kind without one). */
int ona__assets_load(ona__assets *a, ona__asset_kind kind, const char *name, int param,
                     const char *who, uint32_t *handle, char *path, size_t size);

/* Main, at the frame boundary: `path` changed on disk. Every kind that loaded it reloads it
 * (once per kind). ONA_ENOENT when no asset came from `path`; else 0 or the first error. */
int ona__assets_reload(ona__assets *a, const char *path);

/* Main, at the frame boundary, right after the watcher's poll (which arms the watches of files
 * registered since the last one): a file missing at load that was created before its folder
 * was watched sent no event; each such file is looked for once, and marked changed when it is
 * there, so that this boundary's reloads pick it up. */
void ona__assets_look_for_missing(ona__assets *a);

/* Any thread: the entry of a registry id (ona__assets_id), or NULL for 0 or a stale id. */
const ona__asset_entry *ona__assets_get(ona__assets *a, uint32_t id);
/* Any thread: the registry id of the asset of `kind` whose handle is `handle`, or 0. */
uint32_t ona__assets_id(ona__assets *a, ona__asset_kind kind, uint32_t handle);

/* asset_kinds.c: the kinds every runtime has. `textures` is an ona__textures, `sounds` an
 * ona__audio (reloads re-point playing voices), `fonts` an ona__fonts, `video` an ona__video
 * (game shaders). Main, at start; a NULL table leaves its kind out. */
void ona__assets_set_builtin_kinds(ona__assets *a, void *textures, void *audio, void *fonts,
                                   void *video);

#endif
