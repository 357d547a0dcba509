/*
 * runtime.c: the embedding API (ona/runtime.h): creating a runtime from its layers, spawning,
 * sending from C (the frames are stepped in step.c).
 *
 * Design note. An ona_runtime is the actor core (runtime/core: systems, registry, scheduler),
 * the services both hosts reach (runtime/services: video, audio, watchdog, files, saves, clock)
 * and the file watcher, tied together here; Lua systems come from the bindings' host
 * (bindings/lua_host.c), C systems from the native host (runtime/native).
 *
 * Misuse is refused, not raced: every pointer and enum is checked (ONA_EINVAL), and the
 * main-thread functions check that they run on main and outside ona_runtime_step and
 * ona_runtime_destroy (`in_call`, which main alone reads and writes), where system callbacks
 * run (ONA_ETHREAD). The thread test comes first, so another thread never reads `in_call`.
 */
#include "inspect.h"
#include "lua_host.h"
#include "runtime_internal.h"
#include "save.h"

#include <stdio.h>
#include <unistd.h>

#ifndef ONA_LUAJIT_CHECKHOOK
#error "ONA_LUAJIT_CHECKHOOK is a compile definition of the build (cmake/luajit.cmake)"
#endif

bool ona__runtime_may_call(ona_runtime *rt) {
    return ona__services_may_call(&rt->services);
}

/* The default turn budget. Sanitizer builds run code 5-20 times slower, so there a second of
 * honest work would read as a runaway: their default is ten times longer. */
#ifdef ONA_SANITIZER_BUILD
#define ONA__DEFAULT_TURN_BUDGET_MS 10000
#else
#define ONA__DEFAULT_TURN_BUDGET_MS 1000
#endif

static bool valid_desc(const ona_runtime_desc *d) {
    return d->threads <= ONA_MAX_THREADS && d->max_systems <= ONA_MAX_SYSTEMS &&
           d->max_systems <= ONA__REGISTRY_MAX_CAPACITY &&
           d->mailbox_capacity <= ONA_MAX_MAILBOX_CAPACITY &&
           (unsigned)d->default_policy <= ONA_POLICY_STOP &&
           (unsigned)d->delivery <= ONA_DELIVERY_IMMEDIATE &&
           (unsigned)d->video <= ONA_VIDEO_OFFSCREEN && d->window.width >= 0 &&
           d->window.height >= 0 && (unsigned)d->window.vsync <= ONA_VSYNC_OFF &&
           /* Steady time and saves. */
           (d->fixed_dt == 0 || d->fixed_dt == ONA_DT_MEASURED ||
            (d->fixed_dt > 0 && d->fixed_dt <= 1)) &&
           (d->max_fps <= 10000 || d->max_fps == ONA_MAX_FPS_OFF) &&
           (d->fixed_step == 0 || (d->fixed_step > 0 && d->fixed_step <= 1)) &&
           d->max_steps <= 1000 && (!d->game_id || ona__save_valid_id(d->game_id)) &&
           !(d->record_path && d->replay_path) && d->seed < (1ull << 53);
}

/* --- Creation -------------------------------------------------------------------------------- */

static int copy_roots(ona__services *rt, const char *const *roots) {
    static const char *const default_roots[] = {".", NULL};
    if (!roots || !roots[0])
        roots = default_roots;
    uint32_t n = 0;
    while (roots[n])
        n++;
    rt->roots = ona__calloc(n, sizeof *rt->roots);
    if (!rt->roots)
        return ONA_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = strlen(roots[i]);
        while (len > 1 && roots[i][len - 1] == '/')
            len--;
        rt->roots[i] = ona__malloc(len + 1);
        if (!rt->roots[i])
            return ONA_ENOMEM;
        memcpy(rt->roots[i], roots[i], len);
        rt->roots[i][len] = '\0';
        rt->root_count = i + 1;
    }
    return 0;
}

/* The default cap of a Lua system's heap: an eighth of the RAM, within [64 MiB, 4 GiB], so that
 * one runaway system fails alone long before the machine runs out of memory (where any state's
 * allocation may fail, or the OOM killer ends the process). */
static size_t default_memory_cap(void) {
    const uint64_t low = 64ull << 20, high = 4ull << 30;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t cap = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 8 : high;
    cap = ONA_MAX(low, ONA_MIN(cap, high));
    return cap > SIZE_MAX ? SIZE_MAX - 1 : (size_t)cap;
}

int ona_runtime_create(const ona_runtime_desc *desc_in, ona_runtime **out) {
    if (!out)
        return ONA_EINVAL;
    *out = NULL;
    ona_runtime_desc desc = desc_in ? *desc_in : (ona_runtime_desc){0};
    if (!valid_desc(&desc)) {
        ona_log(ONA_LOG_ERROR, "runtime",
                "ona_runtime_create: a desc field is out of range (threads <= %d, max_systems <= "
                "%d, mailbox_capacity <= %u, policy, video, vsync and window size valid, fixed_dt "
                "0, ONA_DT_MEASURED or in (0, 1], max_fps <= 10000, fixed_step 0 or in (0, 1], "
                "max_steps <= 1000, game_id [A-Za-z0-9_.-]{1,64}, "
                "seed < 2^53, not both record_path and replay_path)",
                ONA_MAX_THREADS, ONA_MAX_SYSTEMS, ONA_MAX_MAILBOX_CAPACITY);
        return ONA_EINVAL;
    }
    if (!desc.threads) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        desc.threads = cores > 0 ? (uint32_t)ONA_MIN(cores, 64) : 1;
    }
    if (!desc.max_systems)
        desc.max_systems = 4096;
    if (!desc.mailbox_capacity)
        desc.mailbox_capacity = 64;
    if (!desc.default_policy)
        desc.default_policy = ONA_POLICY_RESTART;
    if (!desc.restart_limit)
        desc.restart_limit = 3;
    if (!desc.restart_backoff_frames)
        desc.restart_backoff_frames = 1;
    if (!desc.memory_cap)
        desc.memory_cap = default_memory_cap();
    if (!desc.turn_budget_ms)
        desc.turn_budget_ms = ONA__DEFAULT_TURN_BUDGET_MS;

    ona_runtime *rt = ona__calloc(1, sizeof *rt);
    if (!rt)
        return ONA_ENOMEM;
    rt->desc = desc;
    rt->desc.script_roots = NULL;
    rt->desc.game_id = rt->desc.save_dir = NULL; /* copied into services.save_dir below */
    rt->desc.record_path = rt->desc.replay_path = rt->desc.record_game = NULL; /* used below */
    rt->desc.record_args = NULL;
    rt->desc.inspect_token = NULL; /* copied by ona__inspect_start, the only reader */
    ona__services *svc = &rt->services;
    svc->core = &rt->core;
    svc->runtime = rt;
    svc->hot = &rt->hot;
    svc->record = &rt->record;
    svc->memory_cap = desc.memory_cap;
    svc->turn_budget_ms = desc.turn_budget_ms;
    svc->sandbox = desc.sandbox;
    svc->fixed_dt = desc.fixed_dt;
    svc->max_fps = desc.max_fps;
    svc->fixed_step_default = desc.fixed_step_default;
    svc->fixed_step = desc.fixed_step;
    svc->max_steps = desc.max_steps ? desc.max_steps : 5;
    svc->clock_ns = desc.clock_ns;
    svc->clock_user = desc.clock_user;
    svc->seed = desc.seed;
    /* First: every thread started below inherits main's mask with the signals blocked. */
    int rc = desc.handle_signals ? ona__signals_claim(rt) : 0;
    if (rc == 0) {
        rc = ona__loop_init(&rt->loop);
        rt->loop_ready = rc == 0;
    }
    if (rc == 0)
        rc = copy_roots(&rt->services, desc_in ? desc_in->script_roots : NULL);
    if (rc == 0)
        rc = ona__services_init_saves(&rt->services, desc.save_dir, desc.game_id);
    if (rc == 0)
        rc = ona__fs_init(&rt->services);
    /* A packed game is one file that never changes under it: nothing to watch. */
    if (rc == 0 && svc->fs.packed && desc.hot_reload) {
        ona_log(ONA_LOG_INFO, "runtime", "the game is an archive: hot reload is off");
        desc.hot_reload = false;
        rt->desc.hot_reload = false;
    }
    if (rc == 0) {
        ona__core_desc cd = {
            .threads = desc.threads,
            .max_systems = desc.max_systems,
            .mailbox_capacity = desc.mailbox_capacity,
            .restart_limit = desc.restart_limit,
            .restart_backoff_frames = desc.restart_backoff_frames,
            .default_policy = desc.default_policy,
            .pause_on_failure = desc.hot_reload,
            .immediate = desc.delivery == ONA_DELIVERY_IMMEDIATE,
        };
        rc = ona__core_init(&rt->core, &cd);
        rt->core_ready = rc == 0;
        rt->core.services = svc; /* ona__core_init zeroed the core */
        rt->core.digesting = desc.record_path || desc.replay_path;
        rt->core.detailing = desc.replay_path != NULL;
    }
    if (rc == 0)
        rc = ona__record_files_init(&rt->record, &rt->hot, svc->roots, svc->root_count);
    /* Early, before any system exists: the replay's file is checked before a window opens, and
     * gives the session its seed and window size. */
    if (rc == 0 && desc.replay_path) {
        rc = ona__replay_begin(&rt->record, desc.replay_path);
        rt->record.resimulate = desc.resimulate;
        if (rc == 0 && rt->record.rec.version >= 2) {
            svc->seed = rt->record.rec.seed;
            if (!desc.window.width && !desc.window.height && rt->record.rec.width) {
                desc.window.width = (int)rt->record.rec.width;
                desc.window.height = (int)rt->record.rec.height;
            }
        }
    }
    if (rc == 0) {
        rc = ona__watchdog_start(&rt->core, &rt->services.watchdog);
        /* Which LuaJIT, and whether the turn budget can stop a JIT-compiled loop (info where it
         * cannot: a build with -DONA_LUAJIT=system). */
#if ONA_LUAJIT_CHECKHOOK
        ona_log(ONA_LOG_DEBUG, "runtime",
                "LuaJIT: %s (the turn budget interrupts JIT-compiled loops too)", ONA_LUAJIT_DESC);
#else
        ona_log(ONA_LOG_INFO, "runtime",
                "LuaJIT: %s, without CHECKHOOK (the turn budget cannot stop a JIT-compiled loop, "
                "only report it) and seeded from the OS (the order of pairs() over string keys "
                "changes from run to run)",
                ONA_LUAJIT_DESC);
#endif
    }
    if (rc == 0) {
        /* The hosts, registered in the core's slots: the Lua host compiles its prelude here. */
        rc = ona__core_add_host(&rt->core, ONA__HOST_SCRIPT, &ona__lua_host);
        if (rc == 0)
            rc = ona__core_add_host(&rt->core, ONA__HOST_NATIVE, &ona__native_host);
    }
    if (rc == 0) {
        rc = ona__video_init(&rt->services.video, desc.video, &desc.window, desc.threads);
        if (rc)
            ona_log(ONA_LOG_ERROR, "runtime", "video did not start: %s", ona_strerror(rc));
        rt->services.video_ready = rc == 0;
        if (rc == 0)
            ona__fonts_set_atlas_memory(rt->services.video.fonts, desc.atlas_memory);
    }
    if (rc == 0) {
        rc = ona__audio_init(&rt->services.audio, desc.no_audio,
                             rt->services.video.mode != ONA_VIDEO_WINDOW, desc.threads,
                             desc.max_systems);
        rt->services.audio_ready = rc == 0;
    }
    if (rc == 0) {
        rc = ona__hot_reload_init(&rt->hot, &rt->loop, desc.hot_reload);
        rt->hot_ready = rc == 0;
        /* The watcher's list is the recording's list of loaded files (record_files.c). */
        rt->hot.listing = desc.record_path || desc.replay_path;
    }
    if (rc == 0 && desc.replay_path)
        ona__replay_check_files(&rt->record);
    if (rc == 0 && desc.record_path) {
        ona__rec_header header = {
            .game = desc.record_game ? desc.record_game : svc->roots[0],
            .delivery = (uint32_t)desc.delivery,
            .threads = desc.threads,
            .seed = desc.seed,
            .width = (uint32_t)svc->video.width,
            .height = (uint32_t)svc->video.height,
            .args = desc.record_args,
        };
        rc = ona__record_begin(&rt->record, desc.record_path, &header);
    }
    if (rc == 0) {
        rc = ona__assets_init(&svc->assets, svc->roots, svc->root_count, svc->hot);
        svc->assets_ready = rc == 0;
        if (rc == 0)
            ona__assets_set_builtin_kinds(&svc->assets, &svc->video, &svc->audio);
    }
    if (rc == 0 && desc.inspect) {
        rt->desc.inspect_token = desc.inspect_token;
        rc = ona__inspect_start(rt);
        rt->desc.inspect = rt->desc.inspect_token = NULL;
    }
    /* Last, after SDL (told to leave the signals alone) has started. */
    if (rc == 0 && desc.handle_signals)
        rc = ona__signals_start(rt);
    if (rc) {
        ona_runtime_destroy(rt);
        return rc;
    }
    if (rt->services.video.gfx) {
        ona__hot_reload_watch(&rt->hot, ona__gfx_vertex_path(rt->services.video.gfx));
        ona__hot_reload_watch(&rt->hot, ona__gfx_fragment_path(rt->services.video.gfx));
    }
    *out = rt;
    return 0;
}

void ona_runtime_destroy(ona_runtime *rt) {
    if (!rt)
        return;
    /* A runtime whose core never started (a failed create) has no main thread to check. */
    if (rt->core_ready && !ona__runtime_may_call(rt)) {
        ona_log(ONA_LOG_ERROR, "runtime",
                "ona_runtime_destroy called from another thread or from inside a system's "
                "callback: ignored (destroy the runtime on its main thread, after its frames)");
        return;
    }
    rt->services.in_call = true;
    ona__inspect_stop(rt); /* first: no request reaches a system being torn down */
    if (rt->core_ready)
        ona__trace_end(&rt->core);
    ona__record_end(&rt->record);
    /* Systems first: their exit may still use the video and the watcher. */
    if (rt->core_ready)
        ona__core_free(&rt->core);
    ona__watchdog_stop(rt->services.watchdog); /* after the systems' exits, which it watches */
    if (rt->services.assets_ready)
        ona__assets_free(&rt->services.assets);
    if (rt->services.audio_ready)
        ona__audio_free(&rt->services.audio);
    if (rt->services.video_ready)
        ona__video_free(&rt->services.video);
    if (rt->hot_ready)
        ona__hot_reload_free(&rt->hot);
    ona__core_release_hosts(&rt->core); /* after the systems, which used the hosts' state */
    ona__fs_free(&rt->services);        /* after every loader that could read an archive */
    for (uint32_t i = 0; i < rt->services.root_count; i++)
        ona__free(rt->services.roots[i]);
    ona__free(rt->services.roots);
    ona__free(rt->services.save_dir);
    if (rt->loop_ready) /* after every handle's owner above */
        ona__loop_close(&rt->loop);
    /* Last: a second signal still ends a process whose systems' exit hangs above. */
    ona__signals_stop(rt);
    ona__free(rt);
}

/* --- Systems --------------------------------------------------------------------------------- */

int ona_runtime_lookup(ona_runtime *rt, const char *name, ona_system *out) {
    if (!rt || !name || !out)
        return ONA_EINVAL;
    out->id = ona__core_lookup(&rt->core, name);
    return out->id ? 0 : ONA_ENOENT;
}

int ona_runtime_spawn_native(ona_runtime *rt, const ona_system_desc *desc, ona_system *out) {
    if (out)
        out->id = 0;
    if (!rt || !desc || !out || !desc->name || !desc->name[0])
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    int rc = rt->core.hosts[ONA__HOST_NATIVE]->spawn(&rt->core, desc, out);
    if (rc == 0) /* spawns made by main between frames are listed at once */
        ona__core_merge_pending(&rt->core);
    return rc;
}

int ona_runtime_spawn(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out) {
    if (!rt || !ona__runtime_may_call(rt)) {
        if (!rt)
            ona_log(ONA_LOG_ERROR, "spawn",
                    "spawn needs a runtime, a desc with a script, and an out handle");
        if (desc && desc->args)
            ona_message_release(desc->args);
        if (out)
            out->id = 0;
        return rt ? ONA_ETHREAD : ONA_EINVAL;
    }
    ona__signals_enter(rt);
    int rc = rt->core.hosts[ONA__HOST_SCRIPT]->spawn(&rt->core, desc, out);
    if (rc == 0) /* listed by ona_runtime_systems at once */
        ona__core_merge_pending(&rt->core);
    ona__signals_leave(rt);
    return rc;
}

int ona_runtime_kill(ona_runtime *rt, ona_system system) {
    if (!rt)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    return ona__actor_kill(&rt->core, system.id);
}

int ona_runtime_send(ona_runtime *rt, ona_system to, ona_message *m) {
    if (!rt || !m)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    if (rt->record.replaying) { /* the recording's messages are the replay's */
        ona_message_release(m);
        return 0;
    }
    size_t mark = ona__record_send(&rt->record, &rt->core, to.id, m);
    int rc = ona__actor_send(&rt->core, NULL, to.id, m, NULL, NULL, 0);
    if (rc)
        ona__record_unsend(&rt->record, mark);
    return rc;
}

/* --- Video ---------------------------------------------------------------------------------- */

int ona_runtime_push_event(ona_runtime *rt, const ona_event *event) {
    if (!rt || !event || event->type == ONA_EVENT_NONE || event->type > ONA_EVENT_QUIT)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    /* The strings of an event are C strings: one without its NUL would be read past. */
    const char *field = NULL;
    if (event->type == ONA_EVENT_TEXT &&
        memchr(event->as.text.text, '\0', sizeof event->as.text.text) == NULL)
        field = "TEXT event's text";
    if ((event->type == ONA_EVENT_KEY_DOWN || event->type == ONA_EVENT_KEY_UP) &&
        memchr(event->as.key.name, '\0', sizeof event->as.key.name) == NULL)
        field = "key event's name";
    if (field) {
        ona_log(ONA_LOG_ERROR, "runtime",
                "ona_runtime_push_event: a %s has no NUL in its 32 bytes (at most 31 bytes, then "
                "a NUL)",
                field);
        return ONA_EINVAL;
    }
    ona__video *v = &rt->services.video;
    if (v->injected_count >= ONA__MAX_EVENTS)
        return ONA_ELIMIT;
    ona_event e = *event;
    ona__window_normalise_key(&e);
    v->injected[v->injected_count++] = e;
    return 0;
}

int ona_runtime_screenshot(ona_runtime *rt, const char *path) {
    if (!rt)
        return ONA_EINVAL;
    return ona__video_request_screenshot(&rt->services.video, path);
}

int ona_runtime_texture_load(ona_runtime *rt, const char *path, ona_texture *out) {
    if (!rt || !path || !out)
        return ONA_EINVAL;
    return ona__services_texture_load(&rt->services, path, "gfx", ONA__ASSET_RUNTIME, out);
}

int ona_runtime_texture_release(ona_runtime *rt, ona_texture texture) {
    if (!rt)
        return ONA_EINVAL;
    return ona__services_texture_release(&rt->services, texture, ONA__ASSET_RUNTIME);
}

int ona_runtime_reload(ona_runtime *rt, const char *path) {
    if (!rt || !path || !*path)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    char resolved[4096];
    if (ona__services_find(&rt->services, path, resolved, sizeof resolved) != 0) {
        if (access(path, F_OK) != 0)
            return ONA_ENOENT;
        snprintf(resolved, sizeof resolved, "%s", path);
    }
    return ona__hot_reload_mark(&rt->hot, resolved);
}

int ona_runtime_texture_size(ona_runtime *rt, ona_texture texture, int *width, int *height) {
    if (!rt || !width || !height)
        return ONA_EINVAL;
    return ona__textures_size(&rt->services.video.textures, texture, width, height) ? 0
                                                                                    : ONA_ESTALE;
}

int ona_runtime_reload_shaders(ona_runtime *rt) {
    if (!rt)
        return ONA_EINVAL;
    if (!ona__runtime_may_call(rt))
        return ONA_ETHREAD;
    return rt->services.video.gfx ? ona__gfx_reload_shaders(rt->services.video.gfx) : ONA_EGFX;
}

ona_video ona_runtime_video_mode(const ona_runtime *rt) {
    return rt ? rt->services.video.mode : ONA_VIDEO_NONE;
}

void ona_runtime_video_size(ona_runtime *rt, int *width, int *height) {
    if (width)
        *width = rt ? rt->services.video.width : 0;
    if (height)
        *height = rt ? rt->services.video.height : 0;
}

/* --- Audio ---------------------------------------------------------------------------------- */

int ona_runtime_sound_load(ona_runtime *rt, const char *path, ona_sound *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    out->id = rt->services.audio.sounds.placeholder.id;
    if (!path)
        return ONA_EINVAL;
    return ona__services_sound_load(&rt->services, path, "audio", ONA__ASSET_RUNTIME, out);
}

int ona_runtime_sound_release(ona_runtime *rt, ona_sound sound) {
    if (!rt)
        return ONA_EINVAL;
    return ona__services_sound_release(&rt->services, sound, ONA__ASSET_RUNTIME);
}

/* --- Recordings ------------------------------------------------------------------------------ */

int ona_recording_info_read(const char *path, ona_recording_info *out) {
    if (!path || !out)
        return ONA_EINVAL;
    memset(out, 0, sizeof *out);
    ona__recording rec;
    char err[1200];
    int rc = ona__recording_load(path, &rec, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "replay", "%s", err);
    } else {
        out->version = rec.version;
        memcpy(out->runtime_version, rec.runtime_version, sizeof out->runtime_version);
        memcpy(out->game, rec.game, sizeof out->game);
        out->arg_count = rec.arg_count;
        memcpy(out->args, rec.args, sizeof out->args);
        out->frames = rec.frame_count;
        out->ended = rec.ended;
    }
    ona__recording_free(&rec);
    return rc;
}

uint64_t ona_runtime_replay_diverged(const ona_runtime *rt, char *why, size_t size) {
    if (!rt)
        return 0;
    if (why && size)
        snprintf(why, size, "%s", rt->record.diverged_frame ? rt->record.divergence : "");
    return rt->record.diverged_frame;
}
