/*
 * inspect_act.c: the inspector's actions, run by main (inspect.h): eval, messages (the watches),
 * pause, step and resume.
 *
 * Design note. The server's thread queues each action (ona__inspect_post); main takes the queue
 * at the frame boundary, or while the game is paused, where it owns every system and no turn
 * runs, and queues each answer back for the thread to send. An eval runs at once when its system
 * has no turn in progress, else it waits in `pending` and is tried again at each boundary, so it
 * never runs inside a turn, even one parked across frames. A watched system records, in its own
 * turn, the messages it takes and how many came from each sender (core/recent.c); main turns
 * those counts into rates once a second.
 */
#include "inspect.h"

#include "lua_host.h"

#include <stdio.h>

enum { EVAL_OUT = 16 << 10 };

static const char *name_of(ona__core *core, uint64_t handle) {
    ona__system *sys = handle ? ona__actor_resolve(core, handle) : NULL;
    return sys ? sys->name : NULL;
}

/* Keeps the answer for ona__inspect_send_answers; takes `json` (NULL: out of memory). */
static void answer(ona__inspect *in, ona__inspect_action *a, unsigned status, char *json) {
    free(a->code);
    a->code = NULL;
    a->status = json ? status : 503;
    a->reply = json ? json : strdup("{\"ok\":false,\"error\":\"out of memory\"}");
    a->next = in->answered;
    in->answered = a;
}

void ona__inspect_send_answers(ona__inspect *in) {
    if (!in->answered)
        return;
    uv_mutex_lock(&in->lock);
    while (in->answered) {
        ona__inspect_action *a = in->answered;
        in->answered = a->next;
        a->next = in->done;
        in->done = a;
    }
    uv_mutex_unlock(&in->lock);
    uv_async_send(&in->wake);
}

static void answer_json(ona__inspect *in, ona__inspect_action *a, unsigned status, json_t *j) {
    char *text = j ? json_dumps(j, ONA__INSPECT_JSON) : NULL;
    json_decref(j);
    answer(in, a, status, text);
}

/* --- Watched mailboxes ----------------------------------------------------------------------- */

void ona__inspect_watches_update(ona__inspect *in, bool all) {
    ona__core *core = &in->rt->core;
    uint64_t now = ona__now_ns();
    for (uint32_t i = 0; i < in->watch_count;) {
        ona__inspect_watch *w = &in->watches[i];
        ona__system *sys = ona__actor_resolve(core, w->handle);
        if (!all && sys && (core->frame < w->until_frame || now < w->until_ns)) {
            /* The rates over the last whole second. */
            const ona__recent *r = w->recent;
            if (now - w->mark_ns >= 1000000000ull) {
                double seconds = (double)(now - w->mark_ns) / 1e9;
                for (uint32_t k = 0; k <= ONA__RECENT_SENDERS; k++) {
                    uint64_t count = k < ONA__RECENT_SENDERS ? r->senders[k].count : r->others;
                    w->rate[k] = (double)(count - w->mark[k]) / seconds;
                    w->mark[k] = count;
                }
                w->mark_ns = now;
            }
            i++;
            continue;
        }
        if (sys)
            sys->recent = NULL;
        ona__free(w->recent);
        *w = in->watches[--in->watch_count];
    }
}

static void messages(ona__inspect *in, ona__inspect_action *a) {
    ona__core *core = &in->rt->core;
    const char *name = a->name[0] ? a->name : NULL;
    ona__system *sys = name ? ona__actor_resolve(core, ona__core_lookup(core, name)) : NULL;
    if (!sys) {
        answer(
            in, a, name ? 404 : 400,
            ona__inspect_error_text(name ? "no live system of that name" : "needs ?system=NAME"));
        return;
    }
    ona__inspect_watch *w = NULL;
    for (uint32_t i = 0; i < in->watch_count && !w; i++)
        if (in->watches[i].handle == sys->id)
            w = &in->watches[i];
    if (!w) {
        ona__recent *recent =
            in->watch_count < ONA__INSPECT_WATCHES ? ona__calloc(1, sizeof *recent) : NULL;
        if (!recent) {
            answer(in, a, 503,
                   ona__inspect_error_text("too many systems watched at once (%d); try again "
                                           "in 10 s",
                                           ONA__INSPECT_WATCHES));
            return;
        }
        w = &in->watches[in->watch_count++];
        memset(w, 0, sizeof *w);
        w->handle = sys->id;
        w->recent = recent;
        w->mark_ns = ona__now_ns();
        sys->recent = recent; /* main between frames: the next turn sees it */
    }
    w->until_frame = core->frame + ONA__INSPECT_WATCH_FRAMES;
    w->until_ns = ona__now_ns() + ONA__INSPECT_WATCH_S * 1000000000ull;
    json_t *list = json_array(), *senders = json_array();
    const ona__recent *r = w->recent;
    uint64_t first = r->total > ONA__RECENT_ENTRIES ? r->total - ONA__RECENT_ENTRIES : 0;
    for (uint64_t n = first; list && n < r->total; n++) {
        const ona__recent_entry *e = &r->entries[n % ONA__RECENT_ENTRIES];
        const char *from = e->sender ? name_of(core, e->sender) : "C";
        json_array_append_new(list,
                              json_pack("{s:I,s:I,s:s?,s:i,s:s}", "frame", (json_int_t)e->frame,
                                        "sender", (json_int_t)e->sender, "sender_name", from,
                                        "values", (int)e->values, "text", e->text));
    }
    for (uint32_t k = 0; senders && k <= r->sender_count; k++) {
        bool others = k == r->sender_count;
        if (others && !r->others)
            break;
        uint64_t from = others ? 0 : r->senders[k].sender;
        const char *from_name = others ? "others" : from ? name_of(core, from) : "C";
        json_array_append_new(senders,
                              json_pack("{s:I,s:s?,s:I,s:f}", "sender", (json_int_t)from,
                                        "sender_name", from_name, "count",
                                        (json_int_t)(others ? r->others : r->senders[k].count),
                                        "rate", w->rate[others ? ONA__RECENT_SENDERS : k]));
    }
    answer_json(in, a, 200,
                list && senders
                    ? json_pack("{s:b,s:s,s:I,s:o,s:o}", "ok", 1, "system", sys->name, "total",
                                (json_int_t)r->total, "messages", list, "senders", senders)
                    : NULL);
}

/* --- Eval ------------------------------------------------------------------------------------ */

static void eval_now(ona__inspect *in, ona__inspect_action *a, ona__system *sys) {
    char *out = ona__malloc(EVAL_OUT);
    if (!out) {
        answer(in, a, 503, ona__inspect_error_text("out of memory"));
        return;
    }
    int rc = ona__lua_eval(sys, a->code, a->code_len, out, EVAL_OUT);
    json_t *j = json_pack("{s:b,s:s}", "ok", rc == 0, rc == 0 ? "result" : "error", out);
    ona__free(out);
    answer_json(in, a, 200, j);
}

/* The system an eval may run in now, or NULL with the action answered. */
static ona__system *eval_target(ona__inspect *in, ona__inspect_action *a) {
    ona__system *sys = ona__actor_resolve(&in->rt->core, a->system);
    char why[256];
    if (!sys || sys->status == ONA_SYSTEM_STOPPED) {
        answer(in, a, 409, ona__inspect_error_text("the system ended before the eval ran"));
        return NULL;
    }
    if (!ona__lua_evaluable(sys, why, sizeof why)) {
        answer(in, a, 409, ona__inspect_error_text("%s", why));
        return NULL;
    }
    return sys;
}

static void eval(ona__inspect *in, ona__inspect_action *a) {
    ona__core *core = &in->rt->core;
    ona__system *sys = ona__actor_resolve(core, ona__core_lookup(core, a->name));
    if (!sys || sys->host != core->hosts[ONA__HOST_SCRIPT]) {
        answer(in, a, sys ? 400 : 404,
               sys ? ona__inspect_error_text("'%s' is a native (C) system: eval runs Lua", a->name)
                   : ona__inspect_error_text("no live system named '%s'", a->name));
        return;
    }
    a->system = sys->id;
    a->since = core->frame;
    if (!eval_target(in, a))
        return;
    if (!sys->turn_active) {
        eval_now(in, a, sys);
        return;
    }
    a->next = in->pending; /* its turn is parked or continues next frame */
    in->pending = a;
}

static bool run_pending(ona__inspect *in) {
    ona__core *core = &in->rt->core;
    bool ran = false;
    for (ona__inspect_action **p = &in->pending; *p;) {
        ona__inspect_action *a = *p;
        ona__system *sys = ona__actor_resolve(core, a->system);
        bool late = core->frame - a->since > ONA__INSPECT_EVAL_FRAMES;
        if (sys && sys->turn_active && sys->status != ONA_SYSTEM_STOPPED && !late) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        ran = true;
        if (late && sys && sys->turn_active)
            answer(in, a, 409,
                   ona__inspect_error_text("'%s' stayed inside one turn for %d frames: the eval "
                                           "did not run",
                                           sys->name, ONA__INSPECT_EVAL_FRAMES));
        else if ((sys = eval_target(in, a)) != NULL)
            eval_now(in, a, sys);
    }
    return ran;
}

/* --- The queue ------------------------------------------------------------------------------- */

bool ona__inspect_run_actions(ona__inspect *in) {
    uv_mutex_lock(&in->lock);
    ona__inspect_action *list = in->to_main;
    in->to_main = NULL;
    uv_mutex_unlock(&in->lock);
    /* Queued newest first: run them in the order they came. */
    ona__inspect_action *ordered = NULL;
    while (list) {
        ona__inspect_action *next = list->next;
        list->next = ordered;
        ordered = list;
        list = next;
    }
    bool ran = run_pending(in) || ordered;
    while (ordered) {
        ona__inspect_action *a = ordered;
        ordered = a->next;
        a->next = NULL;
        switch (a->kind) {
        case ONA__ACT_EVAL:
            eval(in, a);
            break;
        case ONA__ACT_MESSAGES:
            messages(in, a);
            break;
        case ONA__ACT_PAUSE:
        case ONA__ACT_STEP:
        case ONA__ACT_RESUME:
            if (a->kind == ONA__ACT_PAUSE)
                in->paused = true;
            else if (a->kind == ONA__ACT_RESUME)
                in->paused = false;
            else {
                in->paused = true;
                in->steps++;
            }
            answer_json(in, a, 200,
                        json_pack("{s:b,s:b,s:I}", "ok", 1, "paused", in->paused, "frame",
                                  (json_int_t)in->rt->core.frame));
            break;
        }
    }
    return ran;
}

static void free_list(ona__inspect_action *a) {
    while (a) {
        ona__inspect_action *next = a->next;
        free(a->code);
        free(a->reply);
        free(a);
        a = next;
    }
}

void ona__inspect_actions_free(ona__inspect *in) {
    free_list(in->to_main);
    free_list(in->done);
    free_list(in->pending);
    free_list(in->answered);
    in->to_main = in->done = in->pending = in->answered = NULL;
}
