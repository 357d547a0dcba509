/*
 * inspect_api.c: the inspector's snapshot and its JSON documents (inspect.h; the API is listed in
 * the README, "Inspector").
 *
 * Design note. Main makes the snapshot at the end of each frame from what the statistics already
 * keep (stats.c: ona__runtime_system_stats; the trace's turn slices for the timeline; the watched
 * systems' counts per sender), as flat arrays and one block of strings: no JSON, no lock, nothing
 * that outlives the frame's systems. The inspector's thread writes the documents from it at the
 * first ask and keeps them with it, so every client asking about the same frame shares one text,
 * and main never formats a document.
 */
#include "inspect.h"

#include "lua_host.h"

#include <stdarg.h>
#include <stdio.h>

char *ona__inspect_error_text(const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_t *j = json_pack("{s:b,s:s}", "ok", 0, "error", text);
    char *out = j ? json_dumps(j, ONA__INSPECT_JSON) : NULL;
    json_decref(j);
    return out;
}

/* --- The snapshot (main) --------------------------------------------------------------------- */

static const char *name_of(ona__core *core, uint64_t handle) {
    ona__system *sys = handle ? ona__actor_resolve(core, handle) : NULL;
    return sys ? sys->name : NULL;
}

/* Appends `n` bytes and a terminator to the snapshot's strings; the offset, or 0 (that is "")
 * when `n` is 0 or memory ran out (`*failed` then set). */
static uint32_t put_string(ona__inspect_snap *snap, const char *text, size_t n, bool *failed) {
    if (!n)
        return 0;
    if (snap->strings_len + n + 1 > snap->strings_cap) {
        size_t cap = snap->strings_cap * 2;
        while (cap < snap->strings_len + n + 1)
            cap *= 2;
        char *grown = cap <= UINT32_MAX ? realloc(snap->strings, cap) : NULL;
        if (!grown) {
            *failed = true;
            return 0;
        }
        snap->strings = grown;
        snap->strings_cap = cap;
    }
    uint32_t at = (uint32_t)snap->strings_len;
    memcpy(snap->strings + at, text, n);
    snap->strings[at + n] = '\0';
    snap->strings_len += n + 1;
    return at;
}

static uint32_t put(ona__inspect_snap *snap, const char *text, bool *failed) {
    return text ? put_string(snap, text, strlen(text), failed) : 0;
}

/* The system's state in one word, and in words. */
static uint8_t state_of(ona__core *core, ona__system *sys, char *detail, size_t size) {
    detail[0] = '\0';
    switch (sys->status) {
    case ONA_SYSTEM_STOPPED:
        return ONA__ST_ENDED;
    case ONA_SYSTEM_RESTARTING:
        snprintf(detail, size, "restarting after: %s", sys->fail_reason);
        return ONA__ST_RESTARTING;
    case ONA_SYSTEM_PAUSED:
        snprintf(detail, size, "paused by an error at %s", sys->fail_reason);
        return ONA__ST_PAUSED;
    default:
        break;
    }
    /* relaxed: main between frames, after the frame's end ordered every turn. */
    int run = atomic_load_explicit(&sys->run, memory_order_relaxed);
    if (run == ONA__RUN_PARKED_RECV) {
        snprintf(detail, size, "parked on receive");
        return ONA__ST_PARKED;
    }
    if (run == ONA__RUN_PARKED_SEND) {
        const char *to = name_of(core, sys->send_target);
        snprintf(detail, size, "parked on send to %s (its mailbox is full)", to ? to : "?");
        return ONA__ST_PARKED;
    }
    if (sys->turn_active)
        snprintf(detail, size, "its turn continues next frame");
    return ONA__ST_RUNNING;
}

static void system_snap(ona__inspect *in, ona__inspect_snap *snap, ona__system *sys,
                        ona__inspect_sys *out, bool *failed) {
    ona_runtime *rt = in->rt;
    ona_system_stats st;
    memset(out, 0, sizeof *out);
    if (ona__runtime_system_stats(rt, (ona_system){sys->id}, &st) != 0)
        return;
    char detail[320];
    out->state = state_of(&rt->core, sys, detail, sizeof detail);
    bool lua = sys->host == rt->core.hosts[ONA__HOST_SCRIPT];
    const ona__lua *l = lua ? sys->host_data : NULL;
    out->handle = sys->id;
    out->name = put(snap, sys->name, failed);
    out->script = l ? put(snap, l->script_path, failed) : 0;
    out->detail = put(snap, detail, failed);
    out->error = sys->fail_reason[0] && sys->status != ONA_SYSTEM_RUNNING
                     ? put(snap, sys->fail_reason, failed)
                     : 0;
    out->native = !lua;
    for (uint32_t i = 0; i < sys->after_count; i++) {
        const char *n =
            sys->after[i].name[0] ? sys->after[i].name : name_of(&rt->core, sys->after[i].handle);
        uint32_t at = n ? put(snap, n, failed) : 0;
        if (!at)
            continue;
        if (!out->after_count)
            out->after = at;
        out->after_count++;
    }
    out->depth = st.mailbox_size;
    out->capacity = st.mailbox_capacity;
    out->high_water = st.mailbox_high_water;
    out->full = st.mailbox_full;
    out->turns = st.turns;
    out->turn_ns_total = st.turn_ns_total;
    out->last_ns = st.last_turn_ns;
    out->max_ns = st.max_turn_ns;
    out->heap = st.memory;
    out->heap_peak = st.memory_peak;
    out->heap_cap = st.memory_cap;
    out->order = st.order_place;
    out->messages_in = st.messages_in;
    out->messages_out = st.messages_out;
    out->restarts = st.restarts;
    out->errors = st.errors;
    out->spawn_order = st.spawn_order;
}

/* The watched systems' senders, with their counts and rates (inspect_act.c keeps the rates). */
static void edges_snap(ona__inspect *in, ona__inspect_snap *snap, bool *failed) {
    ona__core *core = &in->rt->core;
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->watch_count; i++)
        n += in->watches[i].recent->sender_count + 1;
    snap->edges = n ? calloc(n, sizeof *snap->edges) : NULL;
    if (n && !snap->edges) {
        *failed = true;
        return;
    }
    for (uint32_t i = 0; i < in->watch_count; i++) {
        const ona__inspect_watch *w = &in->watches[i];
        const ona__recent *r = w->recent;
        uint32_t to_name = put(snap, name_of(core, w->handle), failed);
        for (uint32_t k = 0; k <= r->sender_count; k++) {
            bool others = k == r->sender_count;
            if (others && !r->others)
                break;
            ona__inspect_edge *e = &snap->edges[snap->edge_count++];
            e->from = others ? 0 : r->senders[k].sender;
            const char *from = others ? "others" : e->from ? name_of(core, e->from) : "C";
            e->from_name = put(snap, from ? from : "(ended)", failed);
            e->to = w->handle;
            e->to_name = to_name;
            e->count = others ? r->others : r->senders[k].count;
            e->rate = w->rate[others ? ONA__RECENT_SENDERS : k];
        }
    }
}

ona__inspect_snap *ona__inspect_snap_make(ona__inspect *in) {
    ona__core *core = &in->rt->core;
    ona__inspect_snap *snap = calloc(1, sizeof *snap);
    if (!snap)
        return NULL;
    bool failed = false;
    snap->seq = ++in->snap_seq;
    snap->frame = in->frame;
    snap->dt = in->dt;
    snap->frame_ns = in->frame_ns;
    snap->turns_ns = in->turns_ns;
    snap->present_ns = in->present_ns;
    snap->threads = core->thread_count;
    snap->paused = in->paused;
    snap->slices_dropped = in->slices_dropped;
    snap->strings_cap = 4096 + (size_t)core->system_count * 48;
    snap->strings = malloc(snap->strings_cap);
    snap->systems = calloc(core->system_count + 1, sizeof *snap->systems);
    snap->slices = malloc((in->slice_count + 1) * sizeof *snap->slices);
    if (!snap->strings || !snap->systems || !snap->slices) {
        ona__inspect_snap_free(snap);
        return NULL;
    }
    snap->strings[0] = '\0';
    snap->strings_len = 1;
    for (uint32_t i = 0; i < core->system_count; i++)
        system_snap(in, snap, core->systems[i], &snap->systems[snap->system_count++], &failed);
    memcpy(snap->slices, in->slices, in->slice_count * sizeof *snap->slices);
    snap->slice_count = in->slice_count;
    edges_snap(in, snap, &failed);
    if (failed) {
        ona__inspect_snap_free(snap);
        return NULL;
    }
    return snap;
}

void ona__inspect_snap_free(ona__inspect_snap *snap) {
    if (!snap)
        return;
    free(snap->systems);
    free(snap->slices);
    free(snap->edges);
    free(snap->strings);
    free(snap->systems_text);
    free(snap->frame_text);
    free(snap);
}

/* --- The documents (the inspector's thread) -------------------------------------------------- */

static const char *const state_names[] = {"running", "parked", "paused", "restarting", "ended"};

static json_t *system_json(const ona__inspect_snap *snap, const ona__inspect_sys *s) {
    const char *str = snap->strings;
    json_t *after = json_array();
    const char *a = str + s->after;
    for (uint32_t i = 0; after && i < s->after_count; i++, a += strlen(a) + 1)
        json_array_append_new(after, json_string(a));
    double mean = s->turns ? (double)s->turn_ns_total / (double)s->turns / 1e3 : 0.0;
    return json_pack(
        "{s:s,s:I,s:s?,s:b,s:s,s:s,s:s?,s:{s:i,s:i,s:i,s:I},s:I,s:{s:f,s:f,s:f},s:{s:I,s:I,s:I},"
        "s:i,s:o,s:I,s:I,s:i,s:i,s:i}",
        "name", str + s->name, "handle", (json_int_t)s->handle, "script",
        s->script ? str + s->script : NULL, "native", s->native, "state", state_names[s->state],
        "detail", str + s->detail, "error", s->error ? str + s->error : NULL, "mailbox", "depth",
        (int)s->depth, "capacity", (int)s->capacity, "high_water", (int)s->high_water, "full",
        (json_int_t)s->full, "turns", (json_int_t)s->turns, "turn_us", "last",
        (double)s->last_ns / 1e3, "mean", mean, "max", (double)s->max_ns / 1e3, "heap", "bytes",
        (json_int_t)s->heap, "peak", (json_int_t)s->heap_peak, "cap", (json_int_t)s->heap_cap,
        "order", (int)s->order, "after", after ? after : json_array(), "messages_in",
        (json_int_t)s->messages_in, "messages_out", (json_int_t)s->messages_out, "restarts",
        (int)s->restarts, "errors", (int)s->errors, "spawn_order", (int)s->spawn_order);
}

static char *dump(json_t *j, size_t *len) {
    char *text = j ? json_dumps(j, ONA__INSPECT_JSON) : NULL;
    json_decref(j);
    *len = text ? strlen(text) : 0;
    return text;
}

const char *ona__inspect_snap_systems(ona__inspect_snap *snap, size_t *len) {
    if (!snap->systems_text) {
        json_t *list = json_array();
        for (uint32_t i = 0; list && i < snap->system_count; i++) {
            if (!snap->systems[i].handle)
                continue; /* ended between the lookup and the statistics */
            json_t *one = system_json(snap, &snap->systems[i]);
            if (!one || json_array_append_new(list, one) != 0) {
                json_decref(list);
                list = NULL;
            }
        }
        snap->systems_text = dump(list, &snap->systems_len);
    }
    *len = snap->systems_len;
    return snap->systems_text;
}

const char *ona__inspect_snap_frame(ona__inspect_snap *snap, size_t *len) {
    if (snap->frame_text) {
        *len = snap->frame_len;
        return snap->frame_text;
    }
    json_t *timeline = json_array(), *edges = json_array();
    for (uint32_t i = 0; timeline && i < snap->slice_count; i++) {
        const ona__inspect_slice *s = &snap->slices[i];
        json_t *one = json_pack("{s:i,s:I,s:s,s:s,s:f,s:f}", "thread", (int)s->thread, "system",
                                (json_int_t)s->system, "name", s->name, "kind",
                                s->kind == ONA__TRACE_PARKED ? "parked" : "turn", "start_us",
                                (double)s->start_ns / 1e3, "end_us", (double)s->end_ns / 1e3);
        if (!one || json_array_append_new(timeline, one) != 0) {
            json_decref(timeline);
            timeline = NULL;
        }
    }
    for (uint32_t i = 0; edges && i < snap->edge_count; i++) {
        const ona__inspect_edge *e = &snap->edges[i];
        json_t *one =
            json_pack("{s:I,s:s,s:I,s:s,s:I,s:f}", "from", (json_int_t)e->from, "from_name",
                      snap->strings + e->from_name, "to", (json_int_t)e->to, "to_name",
                      snap->strings + e->to_name, "count", (json_int_t)e->count, "rate", e->rate);
        if (!one || json_array_append_new(edges, one) != 0) {
            json_decref(edges);
            edges = NULL;
        }
    }
    json_t *j =
        timeline && edges
            ? json_pack("{s:I,s:f,s:f,s:f,s:f,s:i,s:b,s:o,s:i,s:o}", "frame",
                        (json_int_t)snap->frame, "dt", snap->dt, "frame_ms",
                        (double)snap->frame_ns / 1e6, "turns_ms", (double)snap->turns_ns / 1e6,
                        "present_ms", (double)snap->present_ns / 1e6, "threads", (int)snap->threads,
                        "paused", snap->paused, "timeline", timeline, "dropped",
                        (int)snap->slices_dropped, "edges", edges)
            : NULL;
    if (!j && (!timeline || !edges)) {
        json_decref(timeline);
        json_decref(edges);
    }
    snap->frame_text = dump(j, &snap->frame_len);
    *len = snap->frame_len;
    return snap->frame_text;
}
