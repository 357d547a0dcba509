/*
 * inspect_api.c: the inspector's JSON documents and actions (inspect.h; the API is listed in the
 * README, "Inspector").
 *
 * Design note. Every document is built on main between frames from what the statistics already
 * keep (stats.c: ona__runtime_system_stats; the trace's turn slices for the timeline), so the
 * inspector adds nothing to a turn except, for a watched system, one ring entry per message
 * taken (core/recent.c). An eval runs where main owns the system: at once when the system has no
 * turn in progress, else it waits in `pending` and is tried again at each frame boundary, so it
 * never runs inside a turn, even one parked across frames.
 */
#include "inspect.h"

#include "lua_host.h"

#include <stdarg.h>
#include <stdio.h>

enum { EVAL_OUT = 16 << 10 };

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

static const char *name_of(ona__core *core, uint64_t handle) {
    ona__system *sys = handle ? ona__actor_resolve(core, handle) : NULL;
    return sys ? sys->name : NULL;
}

/* The system's state in one word, and in words. */
static const char *state_of(ona__core *core, ona__system *sys, char *detail, size_t size) {
    detail[0] = '\0';
    switch (sys->status) {
    case ONA_SYSTEM_STOPPED:
        return "ended";
    case ONA_SYSTEM_RESTARTING:
        snprintf(detail, size, "restarting after: %s", sys->fail_reason);
        return "restarting";
    case ONA_SYSTEM_PAUSED:
        snprintf(detail, size, "paused by an error at %s", sys->fail_reason);
        return "paused";
    default:
        break;
    }
    /* relaxed: main between frames, after the frame's end ordered every turn. */
    int run = atomic_load_explicit(&sys->run, memory_order_relaxed);
    if (run == ONA__RUN_PARKED_RECV) {
        snprintf(detail, size, "parked on receive");
        return "parked";
    }
    if (run == ONA__RUN_PARKED_SEND) {
        const char *to = name_of(core, sys->send_target);
        snprintf(detail, size, "parked on send to %s (its mailbox is full)", to ? to : "?");
        return "parked";
    }
    if (sys->turn_active) {
        snprintf(detail, size, "its turn continues next frame");
        return "running";
    }
    return "running";
}

static json_t *system_json(ona__inspect *in, ona__system *sys) {
    ona_runtime *rt = in->rt;
    ona_system_stats st;
    if (ona__runtime_system_stats(rt, (ona_system){sys->id}, &st) != 0)
        return NULL;
    char detail[320];
    const char *state = state_of(&rt->core, sys, detail, sizeof detail);
    bool lua = sys->host == rt->core.hosts[ONA__HOST_SCRIPT];
    const ona__lua *l = lua ? sys->host_data : NULL;
    json_t *after = json_array();
    for (uint32_t i = 0; after && i < sys->after_count; i++) {
        const char *n = sys->after[i].name[0] ? sys->after[i].name
                                              : name_of(&rt->core, sys->after[i].handle);
        if (n)
            json_array_append_new(after, json_string(n));
    }
    double mean = st.turns ? (double)st.turn_ns_total / (double)st.turns / 1e3 : 0.0;
    return json_pack(
        "{s:s,s:I,s:s?,s:b,s:s,s:s,s:s?,s:{s:i,s:i,s:i,s:I},s:I,s:{s:f,s:f,s:f},s:{s:I,s:I,s:I},"
        "s:i,s:o,s:I,s:I,s:i,s:i,s:i}",
        "name", sys->name, "handle", (json_int_t)sys->id, "script", l ? l->script_path : NULL,
        "native", !lua, "state", state, "detail", detail, "error",
        sys->fail_reason[0] && sys->status != ONA_SYSTEM_RUNNING ? sys->fail_reason : NULL,
        "mailbox", "depth", (int)st.mailbox_size, "capacity", (int)st.mailbox_capacity,
        "high_water", (int)st.mailbox_high_water, "full", (json_int_t)st.mailbox_full, "turns",
        (json_int_t)st.turns, "turn_us", "last", (double)st.last_turn_ns / 1e3, "mean", mean,
        "max", (double)st.max_turn_ns / 1e3, "heap", "bytes", (json_int_t)st.memory, "peak",
        (json_int_t)st.memory_peak, "cap", (json_int_t)st.memory_cap, "order", (int)st.order_place,
        "after", after ? after : json_array(), "messages_in", (json_int_t)st.messages_in,
        "messages_out", (json_int_t)st.messages_out, "restarts", (int)st.restarts, "errors",
        (int)st.errors, "spawn_order", (int)st.spawn_order);
}

json_t *ona__inspect_systems(ona__inspect *in) {
    ona__core *core = &in->rt->core;
    json_t *list = json_array();
    for (uint32_t i = 0; list && i < core->system_count; i++) {
        json_t *one = system_json(in, core->systems[i]);
        if (one && json_array_append_new(list, one) == 0)
            continue;
        json_decref(list);
        return NULL;
    }
    return list;
}

json_t *ona__inspect_frame(ona__inspect *in) {
    json_t *timeline = json_array();
    for (uint32_t i = 0; timeline && i < in->slice_count; i++) {
        const ona__inspect_slice *s = &in->slices[i];
        json_t *one = json_pack("{s:i,s:I,s:s,s:s,s:f,s:f}", "thread", (int)s->thread, "system",
                                (json_int_t)s->system, "name", s->name, "kind",
                                s->kind == ONA__TRACE_PARKED ? "parked" : "turn", "start_us",
                                (double)s->start_ns / 1e3, "end_us", (double)s->end_ns / 1e3);
        if (!one || json_array_append_new(timeline, one) != 0) {
            json_decref(timeline);
            return NULL;
        }
    }
    if (!timeline)
        return NULL;
    return json_pack("{s:I,s:f,s:f,s:f,s:f,s:i,s:b,s:o,s:i}", "frame", (json_int_t)in->frame, "dt",
                     in->dt, "frame_ms", (double)in->frame_ns / 1e6, "turns_ms",
                     (double)in->turns_ns / 1e6, "present_ms", (double)in->present_ns / 1e6,
                     "threads", (int)in->rt->core.thread_count, "paused", in->paused, "timeline",
                     timeline, "dropped", (int)in->slices_dropped);
}

/* --- Watched mailboxes ----------------------------------------------------------------------- */

void ona__inspect_watches_expire(ona__inspect *in, bool all) {
    ona__core *core = &in->rt->core;
    for (uint32_t i = 0; i < in->watch_count;) {
        ona__inspect_watch *w = &in->watches[i];
        ona__system *sys = ona__actor_resolve(core, w->handle);
        if (!all && sys && core->frame < w->until_frame) {
            i++;
            continue;
        }
        if (sys)
            sys->recent = NULL;
        ona__free(w->recent);
        *w = in->watches[--in->watch_count];
    }
}

json_t *ona__inspect_messages(ona__inspect *in, const char *name, unsigned *status) {
    ona__core *core = &in->rt->core;
    ona__system *sys = name ? ona__actor_resolve(core, ona__core_lookup(core, name)) : NULL;
    if (!sys) {
        *status = name ? 404 : 400;
        return json_pack("{s:b,s:s}", "ok", 0, "error",
                         name ? "no live system of that name" : "needs ?system=NAME");
    }
    ona__inspect_watch *w = NULL;
    for (uint32_t i = 0; i < in->watch_count && !w; i++)
        if (in->watches[i].handle == sys->id)
            w = &in->watches[i];
    if (!w) {
        ona__recent *recent = in->watch_count < ONA__INSPECT_WATCHES
                                  ? ona__calloc(1, sizeof *recent)
                                  : NULL;
        if (!recent) {
            *status = 503;
            return json_pack("{s:b,s:s}", "ok", 0, "error",
                             "too many systems watched at once (16); try again in 10 s");
        }
        w = &in->watches[in->watch_count++];
        *w = (ona__inspect_watch){sys->id, recent, 0};
        sys->recent = recent; /* main between frames: the next turn sees it */
    }
    w->until_frame = core->frame + ONA__INSPECT_WATCH_FRAMES;
    json_t *list = json_array();
    const ona__recent *r = w->recent;
    uint64_t first = r->total > ONA__RECENT_ENTRIES ? r->total - ONA__RECENT_ENTRIES : 0;
    for (uint64_t n = first; list && n < r->total; n++) {
        const ona__recent_entry *e = &r->entries[n % ONA__RECENT_ENTRIES];
        const char *from = e->sender ? name_of(core, e->sender) : "C";
        json_array_append_new(list, json_pack("{s:I,s:I,s:s?,s:i,s:s}", "frame",
                                              (json_int_t)e->frame, "sender", (json_int_t)e->sender,
                                              "sender_name", from, "values", (int)e->values,
                                              "text", e->text));
    }
    *status = 200;
    return list ? json_pack("{s:b,s:s,s:I,s:o}", "ok", 1, "system", sys->name, "total",
                            (json_int_t)r->total, "messages", list)
                : NULL;
}

/* --- Eval ------------------------------------------------------------------------------------ */

static void eval_now(ona__inspect *in, ona__inspect_session *s, ona__system *sys) {
    (void)in;
    char *out = ona__malloc(EVAL_OUT);
    if (!out) {
        ona__inspect_reply(s, 503, ona__inspect_error_text("out of memory"));
        return;
    }
    int rc = ona__lua_eval(sys, s->eval_code, s->eval_len, out, EVAL_OUT);
    json_t *j = json_pack("{s:b,s:s}", "ok", rc == 0, rc == 0 ? "result" : "error", out);
    ona__free(out);
    ona__inspect_reply(s, 200, j ? json_dumps(j, ONA__INSPECT_JSON) : NULL);
    json_decref(j);
}

/* The system an eval may run in now, or NULL with the session answered. */
static ona__system *eval_target(ona__inspect *in, ona__inspect_session *s) {
    ona__core *core = &in->rt->core;
    ona__system *sys = ona__actor_resolve(core, s->eval_system);
    char why[256];
    if (!sys || sys->status == ONA_SYSTEM_STOPPED) {
        ona__inspect_reply(s, 409, ona__inspect_error_text("the system ended before the eval ran"));
        return NULL;
    }
    if (!ona__lua_evaluable(sys, why, sizeof why)) {
        ona__inspect_reply(s, 409, ona__inspect_error_text("%s", why));
        return NULL;
    }
    return sys;
}

void ona__inspect_eval(ona__inspect *in, ona__inspect_session *s) {
    ona__core *core = &in->rt->core;
    json_error_t jerr;
    json_t *req = json_loadb(s->body ? s->body : "", s->body_len, 0, &jerr);
    const char *name = json_string_value(json_object_get(req, "system"));
    json_t *code = json_object_get(req, "code");
    if (!req || !name || !json_is_string(code)) {
        ona__inspect_reply(s, 400, req ? ona__inspect_error_text(
                                             "needs {\"system\": NAME, \"code\": LUA}")
                                       : ona__inspect_error_text("malformed JSON at line %d: %s",
                                                                 jerr.line, jerr.text));
        json_decref(req);
        return;
    }
    ona__system *sys = ona__actor_resolve(core, ona__core_lookup(core, name));
    if (!sys || sys->host != core->hosts[ONA__HOST_SCRIPT]) {
        ona__inspect_reply(s, sys ? 400 : 404,
                           sys ? ona__inspect_error_text("'%s' is a native (C) system: eval runs "
                                                         "Lua",
                                                         name)
                               : ona__inspect_error_text("no live system named '%s'", name));
        json_decref(req);
        return;
    }
    s->eval_len = json_string_length(code);
    s->eval_code = ona__malloc(s->eval_len + 1);
    if (s->eval_code)
        memcpy(s->eval_code, json_string_value(code), s->eval_len + 1);
    json_decref(req);
    if (!s->eval_code) {
        ona__inspect_reply(s, 503, ona__inspect_error_text("out of memory"));
        return;
    }
    s->eval_system = sys->id;
    s->eval_since = core->frame;
    if (!eval_target(in, s))
        return;
    if (!sys->turn_active) {
        eval_now(in, s, sys);
        return;
    }
    s->eval_waiting = true; /* its turn is parked or continues next frame */
    s->next = in->pending;
    in->pending = s;
}

void ona__inspect_run_pending(ona__inspect *in) {
    ona__core *core = &in->rt->core;
    for (ona__inspect_session **p = &in->pending; *p;) {
        ona__inspect_session *s = *p;
        ona__system *sys = ona__actor_resolve(core, s->eval_system);
        bool late = core->frame - s->eval_since > ONA__INSPECT_EVAL_FRAMES;
        if (sys && sys->turn_active && sys->status != ONA_SYSTEM_STOPPED && !late) {
            p = &s->next;
            continue;
        }
        *p = s->next;
        s->eval_waiting = false;
        if (late && sys && sys->turn_active)
            ona__inspect_reply(s, 409,
                               ona__inspect_error_text("'%s' stayed inside one turn for %d "
                                                       "frames: the eval did not run",
                                                       sys->name, ONA__INSPECT_EVAL_FRAMES));
        else if ((sys = eval_target(in, s)) != NULL)
            eval_now(in, s, sys);
    }
}
