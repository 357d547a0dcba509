/*
 * assets.h: the asset registry: every file a game loads (textures, sounds, fonts, shaders,
 * music) is found, loaded once per path, counted, watched, reloaded and freed here. Internal
 * (services layer).
 *
 * A kind (texture, sound, ...) plugs in with a small table of hooks (ona__asset_ops): the
 * registry owns the one path-keyed table, the kinds own the decoded objects behind their own
 * handles (texture.c's slots hold GL names, sound.c's the samples). A load resolves the name
 * under the game's script roots, returns the handle the path already has, or asks the kind to
 * decode the file on the calling thread. A file that is missing or broken still gets a handle
 * the game can use (the kind's placeholder); for kinds that give each failed file a handle of
 * its own, the file is watched and filled in when it appears or is fixed.
 *
 * References: each load takes one for its holder (the system loading, or the runtime for the
 * public C API); a release gives one back, and a system's all go when it ends. An asset nobody
 * holds is freed by its kind at the next frame boundary, and its handle goes stale.
 *
 * Threads: ona__assets_load and ona__assets_release on any thread (a system's turn); everything
 * else on main. Reloads, retries and unloads run on main at the frame boundary, when no turn
 * runs, so a kind may change what its handle holds then; uploads run on main after the turns.
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
    ONA__ASSET_MUSIC,
    ONA__ASSET_KIND_COUNT
} ona__asset_kind;

/* Who holds a reference: a system's id (ona_system.id), or ONA__ASSET_RUNTIME for the embedder
 * (the public C API), whose references go only when released or with the runtime. */
#define ONA__ASSET_RUNTIME 0

/* A kind's hooks. `ctx` is what the kind registered with (its own table). */
typedef struct ona__asset_ops {
    const char *name; /* "texture": the word the kind's messages use */
    /* Any thread. Decodes `path` and makes a new handle for it (GPU objects are made by
     * `upload`, on main). `param` is the kind's (a font's pixel size; 0 otherwise). On failure
     * logs the path under `who`, still sets *handle to one the game can use (the placeholder),
     * and returns the error. */
    int (*load)(void *ctx, const char *path, int param, const char *who, uint32_t *handle);
    /* Main thread, at the frame boundary: `path` changed (or appeared) on disk, or a failed
     * file is tried again; decode it again into `handle`. 0, or the error (logged; the handle
     * keeps what it had). */
    int (*reload)(void *ctx, uint32_t handle, const char *path, int param);
    /* Main thread, at the frame boundary (no turn runs): the asset's last reference went; frees
     * what `handle` holds, GPU objects included, and retires the handle. NULL: the kind keeps
     * its assets until the runtime goes (the entry stays, so the path keeps its handle). */
    void (*unload)(void *ctx, uint32_t handle);
    /* Main thread, after the frame's turns and before its draw: makes the GPU objects of what
     * loads and reloads made since the last call. NULL: nothing of the kind lives on the GPU. */
    void (*upload)(void *ctx);
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
    _Atomic uint32_t id; /* generation << 16 | index + 1 once published, 0 before and when free */
    uint16_t generation;
    ona__asset_kind kind;
    int param;
    char *path;      /* resolved (or, for a missing file, where it is expected); NULL: free */
    uint32_t handle; /* the kind's handle */
    int rc; /* the last load's or reload's result: 0, or why the handle shows a placeholder */
    uint32_t refs; /* references held, by every holder together */
    bool loading;  /* a thread is decoding it; others wait on `loaded` */
    bool looked;   /* main looked once, after its folder was watched, whether a missing file
                      had appeared meanwhile */
    bool retry;    /* files not watched: a load asked for the failed file to be read again at
                      the next frame boundary */
} ona__asset_entry;

/* `count` references of `holder` to the entry at `entry`. */
typedef struct ona__asset_ref {
    uint64_t holder;
    uint32_t entry;
    uint32_t count;
} ona__asset_ref;

typedef struct ona__assets {
    uv_mutex_t lock; /* guards entries[0..used) but `id`, the free list and the references */
    uv_cond_t loaded;
    char *const *roots;
    uint32_t root_count;
    ona__hot_reload *hot; /* NULL: nothing is watched */
    struct {
        const ona__asset_ops *ops;
        void *ctx;
    } kinds[ONA__ASSET_KIND_COUNT];
    ona__asset_entry *entries; /* ONA__MAX_ASSETS of them */
    uint32_t used;             /* entries handed out so far (high-water mark) */
    uint32_t *free_entries;    /* entries below `used` that an unload freed, reused first */
    uint32_t free_count;
    ona__asset_ref *refs;
    uint32_t ref_count, ref_capacity;
    uint64_t reloads, failures; /* main: reloads applied, and those that failed */
    uint64_t unloads, retries;  /* main: assets freed at their last reference; failed files read
                                   again because a load asked while files are not watched */
} ona__assets;

/* Main. `roots` (root_count of them) and `hot` stay the caller's and outlive the registry.
 * Errors: ONA_ENOMEM. */
int ona__assets_init(ona__assets *a, char *const *roots, uint32_t root_count, ona__hot_reload *hot);
/* Main, after the kinds' tables are no longer used. Frees the registry's table only (the kinds
 * free their objects with their tables). */
void ona__assets_free(ona__assets *a);
/* Main, before any load of the kind: plugs a kind in. */
void ona__assets_set_kind(ona__assets *a, ona__asset_kind kind, const ona__asset_ops *ops,
                          void *ctx);

/* Any thread. Finds `name` under the script roots and returns (in *handle) the kind's handle
 * for it: the one the path already has, else a new one from the kind's load; either way
 * `holder` takes a reference to it (ona__assets_release gives it back). The file is watched
 * from then on. A file whose last load failed is read again: at once for a kind whose failed
 * handle is shared, at the next frame boundary for one that owns it when files are not watched
 * (when they are, the watcher picks the fixed file up). `path` (size bytes, may be NULL)
 * receives the path used, for messages. Returns 0, or the kind's error (the handle is still
 * usable: the placeholder), ONA_EINVAL (no such kind plugged in, or no name), ONA_ELIMIT (the
 * table is full) or ONA_ENOMEM; on those three *handle is the kind's placeholder (0 for a kind
 * without one) and no reference is taken. */
int ona__assets_load(ona__assets *a, ona__asset_kind kind, const char *name, int param,
                     const char *who, uint64_t holder, uint32_t *handle, char *path, size_t size);

/* Any thread: `holder` gives back one reference to the asset of `kind` whose handle is
 * `handle`. At the last reference of every holder the asset is freed at the next frame boundary
 * (a load before then takes it back). ONA_ESTALE when `holder` holds no reference to it. */
int ona__assets_release(ona__assets *a, ona__asset_kind kind, uint32_t handle, uint64_t holder);
/* Main, between frames (a system ending): every reference of `holder` goes. */
void ona__assets_release_all(ona__assets *a, uint64_t holder);

/* Main, at the frame boundary, right after the watcher's poll (which arms the watches of files
 * registered since the last one) and before the changed files are reloaded, when no turn runs:
 * frees the assets nobody holds (the kinds' unload hooks), reads again the failed files a load
 * asked for, and looks once for each file missing at load that was created before its folder
 * was watched (it sent no event: it is marked changed, so that this boundary's reloads pick it
 * up). */
void ona__assets_boundary(ona__assets *a);

/* Main, at the frame boundary: `path` changed on disk. Every kind that loaded it reloads it
 * (once per kind). ONA_ENOENT when no asset came from `path`; else 0 or the first error. */
int ona__assets_reload(ona__assets *a, const char *path);

/* Main, after the frame's turns, before its draw: each kind's upload hook. */
void ona__assets_upload(ona__assets *a);

/* Any thread: the entry of a registry id (ona__assets_id), or NULL for 0 or a stale id. */
const ona__asset_entry *ona__assets_get(ona__assets *a, uint32_t id);
/* Any thread: the registry id of the asset of `kind` whose handle is `handle`, or 0. */
uint32_t ona__assets_id(ona__assets *a, ona__asset_kind kind, uint32_t handle);
/* Any thread: how many assets the registry holds now (loaded and not freed). */
uint32_t ona__assets_count(ona__assets *a);

/* asset_kinds.c: the kinds every runtime has. `video` is an ona__video (textures, uploaded with
 * its GL; game shaders; its fonts), `audio` an ona__audio (sounds: reloads re-point playing
 * voices; music). Main, at start; a NULL table leaves its kinds out. */
void ona__assets_set_builtin_kinds(ona__assets *a, void *video, void *audio);

#endif
