/*
 * runtime.c: the embedding API (ona/runtime.h): creating a runtime, the handle registry,
 * spawning, sending from C, the frame boundary, statistics.
 *
 * Design note.
 *  - Handles are (generation << 16) | (slot + 1). A slot's `id` holds the live handle; resolving
 *    compares it with an acquire load, so any thread can resolve without a lock. Slots are only
 *    freed at a frame boundary, when no turn runs, so a pointer resolved during a frame stays
 *    valid to the end of that frame.
 *  - Spawning may happen on any thread (a system calling ona.spawn). The new system is
 *    registered at once (it can be messaged immediately) and put on a pending list; the main
 *    thread merges pending systems into the spawn-ordered `systems` array at the next boundary,
 *    so they get their first turn in the next frame.
 *  - The frame boundary (main thread, before each frame) applies kills, failures (restart after
 *    a backoff, or stop) and merges spawns. It is the only place that frees systems.
 */
#include "system.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool on_main_thread(ona_runtime *rt) {
    uv_thread_t self = uv_thread_self();
    return uv_thread_equal(&self, &rt->main_thread);
}

/* --- Creation -------------------------------------------------------------------------------- */

static int copy_roots(ona_runtime *rt, const char *const *roots) {
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

int ona_runtime_create(const ona_runtime_desc *desc_in, ona_runtime **out) {
    if (!out)
        return ONA_EINVAL;
    *out = NULL;
    ona_runtime_desc desc = desc_in ? *desc_in : (ona_runtime_desc){0};
    if (desc.max_systems > 65535 || desc.threads > 256)
        return ONA_EINVAL;
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

    ona_runtime *rt = ona__calloc(1, sizeof *rt);
    if (!rt)
        return ONA_ENOMEM;
    rt->desc = desc;
    rt->desc.script_roots = NULL;
    rt->main_thread = uv_thread_self();
    atomic_init(&rt->spawn_seq, 0);
    atomic_init(&rt->quit, false);
    int rc = copy_roots(rt, desc_in ? desc_in->script_roots : NULL);
    if (rc == 0) {
        rt->slots = ona__calloc(desc.max_systems, sizeof *rt->slots);
        rt->free_slots = ona__calloc(desc.max_systems, sizeof *rt->free_slots);
        rt->systems = ona__calloc(desc.max_systems, sizeof *rt->systems);
        rt->pending = ona__calloc(desc.max_systems, sizeof *rt->pending);
        if (!rt->slots || !rt->free_slots || !rt->systems || !rt->pending)
            rc = ONA_ENOMEM;
    }
    if (rc == 0 && uv_mutex_init(&rt->registry_lock))
        rc = ONA_ENOMEM;
    if (rc) {
        ona_runtime_destroy(rt);
        return rc;
    }
    for (uint32_t i = 0; i < desc.max_systems; i++) {
        atomic_init(&rt->slots[i].id, 0);
        rt->slots[i].generation = 1;
        rt->free_slots[i] = desc.max_systems - 1 - i; /* pop from the end: slot 0 first */
    }
    rt->free_count = desc.max_systems;
    rt->registry_ready = true;
    ona__system_compile_prelude(rt);
    rc = ona__video_init(&rt->video, desc.video, &desc.window);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "runtime", "video did not start: %s", ona_strerror(rc));
        rt->registry_ready = false;
        uv_mutex_destroy(&rt->registry_lock);
        ona_runtime_destroy(rt);
        return rc;
    }
    rt->video_ready = true;
    rc = ona__hot_reload_init(&rt->hot, desc.hot_reload);
    if (rc) {
        ona_runtime_destroy(rt);
        return rc;
    }
    rt->hot_ready = true;
    if (rt->video.gfx) {
        ona__hot_reload_watch(&rt->hot, ona__gfx_vertex_path(rt->video.gfx));
        ona__hot_reload_watch(&rt->hot, ona__gfx_fragment_path(rt->video.gfx));
    }
    rc = ona__scheduler_start(rt);
    if (rc) {
        ona_runtime_destroy(rt);
        return rc;
    }
    *out = rt;
    return 0;
}

static void merge_pending(ona_runtime *rt);

void ona_runtime_destroy(ona_runtime *rt) {
    if (!rt)
        return;
    ona_runtime_trace_end(rt);
    ona__scheduler_stop(rt);
    if (rt->registry_ready) {
        merge_pending(rt);
        for (uint32_t i = 0; i < rt->system_count; i++)
            ona__system_destroy(rt->systems[i], true);
        uv_mutex_destroy(&rt->registry_lock);
    }
    if (rt->video_ready)
        ona__video_free(&rt->video);
    if (rt->hot_ready)
        ona__hot_reload_free(&rt->hot);
    ona__free(rt->prelude_bc);
    for (uint32_t i = 0; i < rt->root_count; i++)
        ona__free(rt->roots[i]);
    ona__free(rt->roots);
    ona__free(rt->slots);
    ona__free(rt->free_slots);
    ona__free(rt->systems);
    ona__free(rt->pending);
    ona__free(rt);
}

/* --- Registry -------------------------------------------------------------------------------- */

ona__system *ona__runtime_resolve(ona_runtime *rt, ona_system h) {
    uint32_t index = h.id & 0xFFFFu;
    if (index == 0 || index > rt->desc.max_systems)
        return NULL;
    ona__slot *slot = &rt->slots[index - 1];
    /* acquire: pairs with the release store in registry_insert; the system is fully built. */
    if (atomic_load_explicit(&slot->id, memory_order_acquire) != h.id)
        return NULL;
    return slot->sys;
}

static int registry_insert(ona_runtime *rt, ona__system *sys) {
    uv_mutex_lock(&rt->registry_lock);
    if (rt->free_count == 0 || rt->pending_count >= rt->desc.max_systems) {
        uv_mutex_unlock(&rt->registry_lock);
        return ONA_ELIMIT;
    }
    uint32_t index = rt->free_slots[--rt->free_count];
    ona__slot *slot = &rt->slots[index];
    sys->id = ((uint32_t)slot->generation << 16) | (index + 1);
    /* relaxed: a sequence number only needs to be unique and increasing. */
    sys->spawn_order = atomic_fetch_add_explicit(&rt->spawn_seq, 1, memory_order_relaxed);
    slot->sys = sys;
    rt->pending[rt->pending_count++] = sys;
    /* release: resolvers that see the id see the whole system. */
    atomic_store_explicit(&slot->id, sys->id, memory_order_release);
    uv_mutex_unlock(&rt->registry_lock);
    return 0;
}

/* Main thread at a boundary: the slot is free again and old handles go stale. */
static void registry_remove(ona_runtime *rt, ona__system *sys) {
    uint32_t index = (sys->id & 0xFFFFu) - 1;
    ona__slot *slot = &rt->slots[index];
    uv_mutex_lock(&rt->registry_lock);
    atomic_store_explicit(&slot->id, 0, memory_order_release);
    slot->sys = NULL;
    slot->generation = (uint16_t)(slot->generation == 0xFFFF ? 1 : slot->generation + 1);
    rt->free_slots[rt->free_count++] = index;
    uv_mutex_unlock(&rt->registry_lock);
}

static int cmp_spawn_order(const void *a, const void *b) {
    const ona__system *x = *(ona__system *const *)a, *y = *(ona__system *const *)b;
    return x->spawn_order < y->spawn_order ? -1 : (x->spawn_order > y->spawn_order ? 1 : 0);
}

static void merge_pending(ona_runtime *rt) {
    uv_mutex_lock(&rt->registry_lock);
    qsort(rt->pending, rt->pending_count, sizeof *rt->pending, cmp_spawn_order);
    for (uint32_t i = 0; i < rt->pending_count; i++)
        rt->systems[rt->system_count++] = rt->pending[i];
    rt->pending_count = 0;
    uv_mutex_unlock(&rt->registry_lock);
}

int ona_runtime_lookup(ona_runtime *rt, const char *name, ona_system *out) {
    if (!rt || !name || !out)
        return ONA_EINVAL;
    out->id = 0;
    /* The lock keeps slots from being reused under us; names are immutable. */
    uv_mutex_lock(&rt->registry_lock);
    for (uint32_t i = 0; i < rt->desc.max_systems; i++) {
        uint32_t id = atomic_load_explicit(&rt->slots[i].id, memory_order_acquire);
        ona__system *sys = rt->slots[i].sys;
        if (id && sys && sys->status != ONA_SYSTEM_STOPPED && strcmp(sys->name, name) == 0 &&
            !atomic_load_explicit(&sys->kill_requested, memory_order_relaxed)) {
            out->id = id;
            break;
        }
    }
    uv_mutex_unlock(&rt->registry_lock);
    return out->id ? 0 : ONA_ENOENT;
}

/* --- Spawning -------------------------------------------------------------------------------- */

/* Finds `script` directly (absolute, or relative to the working directory when it exists there)
 * or under a script root. */
static int resolve_found(char *path, size_t size) {
    /* Canonical, so that file events (directory + name) match what was loaded. */
    char real[4096];
    if (realpath(path, real) && strlen(real) < size)
        strcpy(path, real);
    return 0;
}

static int resolve_script(ona_runtime *rt, const char *script, char *path, size_t size) {
    struct stat st;
    if (script[0] == '/') {
        snprintf(path, size, "%s", script);
        return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? resolve_found(path, size) : ONA_ENOENT;
    }
    for (uint32_t i = 0; i < rt->root_count; i++) {
        int n = snprintf(path, size, "%s/%s", rt->roots[i], script);
        if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return resolve_found(path, size);
    }
    snprintf(path, size, "%s", script);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? resolve_found(path, size) : ONA_ENOENT;
}

static bool message_has_buffer(ona_message *m) {
    ona_message_reader r;
    ona_message_reader_begin(&r, m);
    ona_value v;
    while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END)
        if (v.type == ONA_VALUE_BUFFER)
            return true;
    return false;
}

int ona__runtime_spawn_lua(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out,
                           char *err, size_t errsize) {
    ona_message *args = desc ? desc->args : NULL;
    int rc = 0;
    char path[1024];
    if (!rt || !desc || !out || !desc->script) {
        snprintf(err, errsize, "spawn needs a runtime, a desc with a script, and an out handle");
        rc = ONA_EINVAL;
    } else if (args && message_has_buffer(args)) {
        snprintf(err, errsize, "spawn arguments cannot carry buffers (a restart replays them): "
                               "send the buffer as a message instead");
        rc = ONA_EINVAL;
    } else if (resolve_script(rt, desc->script, path, sizeof path) != 0) {
        snprintf(err, errsize, "no such script '%s' (searched the script roots: %s%s)",
                 desc->script, rt->roots[0], rt->root_count > 1 ? ", ..." : "");
        rc = ONA_ENOENT;
    }
    ona__system *sys = NULL;
    if (rc == 0) {
        rc = ona__system_create_lua(rt, desc, path, args, &sys, err, errsize);
        args = NULL; /* moved in, also on failure */
    }
    if (rc == 0) {
        if (sys->one_shot)
            sys->status = ONA_SYSTEM_STOPPED;
        else
            ona__hot_reload_watch(&rt->hot, path);
        rc = registry_insert(rt, sys);
        if (rc) {
            snprintf(err, errsize, "cannot spawn '%s': max_systems (%u) reached", desc->script,
                     rt->desc.max_systems);
            ona__system_destroy(sys, false);
        }
    }
    if (args)
        ona_message_release(args);
    if (out)
        out->id = rc == 0 ? sys->id : 0;
    return rc;
}

/* Spawns made by main between frames join `systems` at once, so ona_runtime_systems lists
 * them; spawns from systems wait for the boundary. */
static void merge_if_between_frames(ona_runtime *rt) {
    if (!rt->in_step && on_main_thread(rt))
        merge_pending(rt);
}

int ona_runtime_spawn(ona_runtime *rt, const ona_spawn_desc *desc, ona_system *out) {
    char err[1024];
    int rc = ona__runtime_spawn_lua(rt, desc, out, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, "spawn", "%s", err);
    else
        merge_if_between_frames(rt);
    return rc;
}

int ona_runtime_spawn_native(ona_runtime *rt, const ona_system_desc *desc, ona_system *out) {
    if (!rt || !desc || !out || !desc->name || !desc->name[0])
        return ONA_EINVAL;
    out->id = 0;
    ona__system *sys;
    int rc = ona__system_create_native(rt, desc, &sys);
    if (rc)
        return rc;
    rc = registry_insert(rt, sys);
    if (rc) {
        ona__system_destroy(sys, false);
        return rc;
    }
    out->id = sys->id;
    merge_if_between_frames(rt);
    return 0;
}

int ona_runtime_kill(ona_runtime *rt, ona_system system) {
    if (!rt)
        return ONA_EINVAL;
    ona__system *sys = ona__runtime_resolve(rt, system);
    if (!sys)
        return ONA_ESTALE;
    /* relaxed: read by main at the frame boundary. */
    atomic_store_explicit(&sys->kill_requested, true, memory_order_relaxed);
    return 0;
}

/* --- Messages -------------------------------------------------------------------------------- */

int ona__runtime_try_send(ona_runtime *rt, ona__system *from, ona_system to, ona_message *m) {
    ona__system *target = ona__runtime_resolve(rt, to);
    if (!target)
        return ONA_ESTALE;
    if (target->status == ONA_SYSTEM_STOPPED ||
        atomic_load_explicit(&target->kill_requested, memory_order_relaxed))
        return ONA_EDEAD;
    m->sender = from ? from->id : 0;
    int rc = ona__mailbox_push(target->mailbox, m);
    if (rc)
        return rc;
    if (from)
        from->messages_out++;
    else
        rt->messages++; /* from C: main thread only */
    ona__scheduler_after_push(rt, target);
    return 0;
}

int ona_runtime_send(ona_runtime *rt, ona_system to, ona_message *m) {
    if (!rt || !m)
        return ONA_EINVAL;
    if (rt->in_step || !on_main_thread(rt))
        return ONA_ETHREAD;
    return ona__runtime_try_send(rt, NULL, to, m);
}

int ona__message_clone(ona_message *src, ona_message *dst) {
    ona_message_init(dst);
    ona_message_writer w;
    ona_message_writer_begin(&w, dst);
    ona_message_reader r;
    ona_message_reader_begin(&r, src);
    ona_value v;
    int rc;
    while ((rc = ona_message_read(&r, &v)) == 0 && v.type != ONA_VALUE_END) {
        switch (v.type) {
        case ONA_VALUE_NIL:
            ona_message_write_nil(&w);
            break;
        case ONA_VALUE_BOOLEAN:
            ona_message_write_boolean(&w, v.as.boolean);
            break;
        case ONA_VALUE_NUMBER:
            ona_message_write_number(&w, v.as.number);
            break;
        case ONA_VALUE_STRING:
            ona_message_write_string(&w, v.as.string.bytes, v.as.string.size);
            break;
        case ONA_VALUE_ONA_STRING:
            ona_message_write_ona_string(&w, v.as.ona_string);
            break;
        case ONA_VALUE_TABLE_BEGIN:
            ona_message_write_table_begin(&w);
            break;
        case ONA_VALUE_TABLE_END:
            ona_message_write_table_end(&w);
            break;
        default:
            w.error = w.error ? w.error : ONA_EINVAL; /* buffers cannot be copied */
            break;
        }
    }
    int end = ona_message_writer_end(&w);
    if (rc == 0)
        rc = end;
    if (rc)
        ona_message_release(dst);
    return rc;
}

/* --- Frames ---------------------------------------------------------------------------------- */

/* Wakes nothing: senders parked on a system that goes away are failed by queue_frame, which
 * finds their target gone. Releases what was queued for it, saying how much. */
static void drop_mailbox(ona__system *sys, const char *why) {
    ona_message m;
    ona_message_init(&m);
    uint32_t dropped = 0;
    while (ona__mailbox_pop(sys->mailbox, &m) == 0) {
        ona_message_release(&m);
        dropped++;
    }
    if (dropped)
        ona_log(ONA_LOG_WARN, sys->name, "%u queued message%s released: the system %s", dropped,
                dropped == 1 ? "" : "s", why);
}

static void apply_failure(ona_runtime *rt, ona__system *sys) {
    sys->failed = false;
    sys->turn_active = false;
    atomic_store_explicit(&sys->run, RUN_IDLE, memory_order_relaxed);
    if (sys->policy == ONA_POLICY_STOP || sys->restarts >= sys->restart_limit) {
        sys->status = ONA_SYSTEM_STOPPED;
        ona_log(ONA_LOG_ERROR, sys->name, "stopped (%s)",
                sys->policy == ONA_POLICY_STOP ? "its policy is stop"
                                               : "it failed past its restart limit");
        ona__system_close_state(sys);
        drop_mailbox(sys, "stopped");
        return;
    }
    uint64_t backoff = (uint64_t)rt->desc.restart_backoff_frames << ONA_MIN(sys->restarts, 16u);
    sys->status = ONA_SYSTEM_RESTARTING;
    sys->restart_frame = rt->frame + backoff;
    ona_log(ONA_LOG_WARN, sys->name, "restarting in %llu frame%s (restart %u of %u)",
            (unsigned long long)backoff, backoff == 1 ? "" : "s", sys->restarts + 1,
            sys->restart_limit);
}

/* The frame boundary: kills, failures, restarts due, spawns. Main thread, no turn running. */
static void frame_boundary(ona_runtime *rt) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < rt->system_count; i++) {
        ona__system *sys = rt->systems[i];
        if (atomic_load_explicit(&sys->kill_requested, memory_order_relaxed)) {
            rt->messages += sys->messages_out;
            registry_remove(rt, sys);
            ona__system_destroy(sys, true);
            continue;
        }
        rt->systems[kept++] = sys;
        if (sys->failed)
            apply_failure(rt, sys);
        if (sys->status == ONA_SYSTEM_RESTARTING && rt->frame >= sys->restart_frame) {
            sys->restarts++;
            if (ona__system_restart(sys) == 0) {
                sys->status = ONA_SYSTEM_RUNNING;
            } else {
                sys->status = ONA_SYSTEM_STOPPED;
                drop_mailbox(sys, "could not be restarted");
            }
        }
        if (sys->one_shot && sys->L)
            ona__system_close_state(sys);
    }
    rt->system_count = kept;
    merge_pending(rt);
    ona__hot_reload_apply(rt);
}

int ona_runtime_step(ona_runtime *rt, double dt) {
    if (!rt || dt < 0)
        return ONA_EINVAL;
    if (rt->in_step || !on_main_thread(rt))
        return ONA_ETHREAD;
    uint64_t t0 = ona__now_ns();
    frame_boundary(rt);
    bool closed = false;
    ona__video_begin_frame(&rt->video, &closed);
    if (closed)
        ona_runtime_quit(rt);
    rt->in_step = true;
    rt->frame++;
    rt->dt = dt;
    uint64_t frame_start = ona__now_ns();
    ona__scheduler_run_frame(rt);
    ona__video_present(rt);
    rt->in_step = false;
    uint64_t end = ona__now_ns();
    if (rt->tracing)
        ona__trace_write_frame(rt, frame_start, end);
    uint64_t ns = end - t0;
    rt->last_frame_ns = ns;
    rt->total_frame_ns += ns;
    if (ns > rt->max_frame_ns)
        rt->max_frame_ns = ns;
    return 0;
}

/* Whether any system can still take a turn (running, restarting, or spawned and pending). */
static bool has_live_systems(ona_runtime *rt) {
    if (rt->pending_count)
        return true;
    for (uint32_t i = 0; i < rt->system_count; i++)
        if (rt->systems[i]->status != ONA_SYSTEM_STOPPED)
            return true;
    return false;
}

int ona_runtime_run(ona_runtime *rt, uint64_t max_frames, double fixed_dt) {
    if (!rt)
        return ONA_EINVAL;
    uint64_t last = ona__now_ns();
    for (uint64_t n = 0; max_frames == 0 || n < max_frames; n++) {
        if (ona_runtime_quit_requested(rt))
            break;
        if (n > 0 && !has_live_systems(rt)) {
            ona_log(ONA_LOG_INFO, "runtime", "no system is left running; stopping");
            break;
        }
        uint64_t now = ona__now_ns();
        /* The first frame has no previous one: it gets a nominal 1/60 s. */
        double dt = fixed_dt > 0 ? fixed_dt : (n == 0 ? 1.0 / 60 : (double)(now - last) / 1e9);
        last = now;
        int rc = ona_runtime_step(rt, dt);
        if (rc)
            return rc;
    }
    return 0;
}

bool ona_runtime_quit_requested(const ona_runtime *rt) {
    /* relaxed: a flag polled once a frame. */
    return rt && atomic_load_explicit(&rt->quit, memory_order_relaxed);
}

void ona_runtime_quit(ona_runtime *rt) {
    if (rt)
        atomic_store_explicit(&rt->quit, true, memory_order_relaxed);
}

/* --- Video ---------------------------------------------------------------------------------- */

int ona_runtime_push_event(ona_runtime *rt, const ona_event *event) {
    if (!rt || !event || event->type == ONA_EVENT_NONE || event->type > ONA_EVENT_QUIT)
        return ONA_EINVAL;
    if (rt->in_step || !on_main_thread(rt))
        return ONA_ETHREAD;
    ona__video *v = &rt->video;
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
    return ona__video_request_screenshot(&rt->video, path);
}

int ona__runtime_resolve_path(ona_runtime *rt, const char *name, char *path, size_t size) {
    return resolve_script(rt, name, path, size);
}

int ona_runtime_texture_load(ona_runtime *rt, const char *path, ona_texture *out) {
    if (!rt || !path || !out)
        return ONA_EINVAL;
    char resolved[1024];
    if (resolve_script(rt, path, resolved, sizeof resolved) != 0)
        snprintf(resolved, sizeof resolved, "%s", path);
    int rc = ona__textures_load(&rt->video.textures, resolved, "gfx", out);
    if (rc == 0)
        ona__hot_reload_watch(&rt->hot, resolved);
    return rc;
}

int ona_runtime_reload(ona_runtime *rt, const char *path) {
    if (!rt || !path || !*path)
        return ONA_EINVAL;
    if (rt->in_step || !on_main_thread(rt))
        return ONA_ETHREAD;
    char resolved[4096];
    if (resolve_script(rt, path, resolved, sizeof resolved) != 0)
        snprintf(resolved, sizeof resolved, "%s", path);
    return ona__hot_reload_mark(&rt->hot, resolved);
}

int ona_runtime_texture_size(ona_runtime *rt, ona_texture texture, int *width, int *height) {
    if (!rt || !width || !height)
        return ONA_EINVAL;
    return ona__textures_size(&rt->video.textures, texture, width, height) ? 0 : ONA_ESTALE;
}

int ona_runtime_reload_shaders(ona_runtime *rt) {
    if (!rt)
        return ONA_EINVAL;
    if (rt->in_step || !on_main_thread(rt))
        return ONA_ETHREAD;
    return rt->video.gfx ? ona__gfx_reload_shaders(rt->video.gfx) : ONA_EGFX;
}

ona_video ona_runtime_video_mode(const ona_runtime *rt) {
    return rt ? rt->video.mode : ONA_VIDEO_NONE;
}

void ona_runtime_video_size(ona_runtime *rt, int *width, int *height) {
    *width = rt->video.width;
    *height = rt->video.height;
}

/* --- Statistics ------------------------------------------------------------------------------ */

int ona_runtime_stats_get(ona_runtime *rt, ona_runtime_stats *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    memset(out, 0, sizeof *out);
    out->frames = rt->frame;
    out->last_frame_ns = rt->last_frame_ns;
    out->max_frame_ns = rt->max_frame_ns;
    out->total_frame_ns = rt->total_frame_ns;
    out->threads = rt->thread_count;
    for (uint32_t i = 0; i < rt->system_count; i++) {
        ona__system *sys = rt->systems[i];
        if (sys->status != ONA_SYSTEM_STOPPED)
            out->systems++;
        out->turns += sys->turns;
        out->messages += sys->messages_out;
    }
    /* Spawned during the last frame and not merged yet: alive, and about to run. */
    uv_mutex_lock(&rt->registry_lock);
    out->systems += rt->pending_count;
    uv_mutex_unlock(&rt->registry_lock);
    out->messages += rt->messages;
    for (uint32_t i = 0; i < rt->thread_count; i++)
        out->steals += rt->workers[i].steals;
    out->deadlocks = rt->deadlocks;
    return 0;
}

int ona_runtime_system_stats(ona_runtime *rt, ona_system system, ona_system_stats *out) {
    if (!rt || !out)
        return ONA_EINVAL;
    ona__system *sys = ona__runtime_resolve(rt, system);
    if (!sys)
        return ONA_ESTALE;
    memset(out, 0, sizeof *out);
    out->handle = system;
    snprintf(out->name, sizeof out->name, "%s", sys->name);
    out->status = sys->status;
    out->native = sys->native;
    out->spawn_order = sys->spawn_order;
    out->turns = sys->turns;
    out->turn_ns_total = sys->turn_ns_total;
    out->last_turn_ns = sys->last_turn_ns;
    out->max_turn_ns = sys->max_turn_ns;
    out->parks = sys->parks;
    out->messages_in = sys->messages_in;
    out->messages_out = sys->messages_out;
    ona__mailbox_stats ms;
    ona__mailbox_stats_get(sys->mailbox, &ms);
    out->mailbox_size = ona__mailbox_size(sys->mailbox);
    out->mailbox_capacity = ms.capacity;
    out->mailbox_high_water = ms.high_water;
    out->mailbox_full = ms.full;
    out->memory = sys->L ? sys->mem_used : 0;
    out->memory_peak = sys->mem_peak;
    out->memory_cap = sys->mem_cap;
    out->restarts = sys->restarts;
    out->errors = sys->errors;
    return 0;
}

uint32_t ona_runtime_systems(ona_runtime *rt, ona_system *out, uint32_t max) {
    if (!rt)
        return 0;
    for (uint32_t i = 0; i < rt->system_count && i < max; i++)
        out[i].id = rt->systems[i]->id;
    return rt->system_count;
}
