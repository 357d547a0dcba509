/*
 * native_host.c: the host of systems written in C (ona_runtime_spawn_native): the host table the
 * core calls for their turns, restarts and ends, and the spawn.
 *
 * Design note. A native turn cannot wait, so a turn is one call of process (after init on the
 * first, and receive for each waiting message); one without process sleeps between messages. It sends and receives through the same actor functions (core/actor.c) as Lua systems,
 * with the same message encoding. Native code cannot be interrupted: past its budget the watchdog
 * names it once a second. Its state block is zeroed again on restart.
 */
#include "native.h"

#include <stdio.h>

static ona__turn native_run(ona__system *sys, ona__resume why) {
    (void)why; /* a native turn never waits, so it is always a new turn */
    ona__native *n = sys->host_data;
    ona_ctx ctx = {sys};
    int rc = 0;
    ona__services *svc = ona__services_of(sys);
    uint32_t budget_ms = svc->turn_budget_ms;
    ona__watch watch = {.system = sys->name,
                        .what = "turn",
                        .budget_ns = budget_ms == ONA_BUDGET_OFF ? 0 : budget_ms * 1000000ull};
    ona__watch_scope scope;
    ona__watchdog_begin(svc->watchdog, &watch, &scope);
    if (sys->needs_init) {
        sys->needs_init = false;
        if (n->desc.init)
            rc = n->desc.init(&ctx, n->state);
    }
    if (rc == 0 && n->desc.receive) {
        ona_message *msg;
        while (rc == 0 && ona_ctx_try_receive(&ctx, &msg) == 0)
            rc = n->desc.receive(&ctx, n->state, msg);
    }
    if (rc == 0 && n->desc.process)
        rc = n->desc.process(&ctx, n->state, sys->core->dt);
    ona__watchdog_end(&scope);
    ona_message_release(&sys->inbox);
    if (rc != 0) {
        char text[160];
        snprintf(text, sizeof text, "native callback failed with %d (%s)", rc,
                 rc < 0 ? ona_strerror(rc) : "nonzero return");
        ona__actor_fail(sys, text);
        return ONA__TURN_FAILED;
    }
    return ONA__TURN_DONE;
}

static int native_restart(ona__system *sys) {
    ona__native *n = sys->host_data;
    if (n->desc.size)
        memset(n->state, 0, n->desc.size);
    n->seeds = 0;
    return 0;
}

static void native_destroy(ona__system *sys, bool run_exit) {
    ona__native *n = sys->host_data;
    if (run_exit && n->desc.exit) {
        ona_ctx ctx = {sys};
        n->desc.exit(&ctx, n->state);
    }
    ona__free(n->state);
    ona__free(n);
    ona__services_system_ended(ona__services_of(sys), sys); /* after exit, which may use them */
}

/* The statistics report Lua heaps; a native system's state block is the embedder's. */
static void native_memory(const ona__system *sys, size_t *used, size_t *peak, size_t *cap) {
    (void)sys;
    *used = *peak = *cap = 0;
}

static int native_spawn(ona__core *core, const void *desc, ona_system *out);

/* No per-runtime state (prepare, release) and no files (reload). */
const ona__host ona__native_host = {
    .kind = "native",
    .spawn = native_spawn,
    .run = native_run,
    .restart = native_restart,
    .destroy = native_destroy,
    .memory = native_memory,
};

static int native_spawn(ona__core *core, const void *desc_in, ona_system *out) {
    const ona_system_desc *desc = desc_in;
    if (out)
        out->id = 0;
    if (!core || !desc || !out || !desc->name || !desc->name[0]) {
        ona_log(ONA_LOG_ERROR, "spawn",
                "a native spawn needs a runtime, a named desc and an out handle");
        return ONA_EINVAL;
    }
    const char *bad = ona__core_check_spawn(desc->name, desc->mailbox_capacity, desc->policy);
    if (bad) {
        ona_log(ONA_LOG_ERROR, "spawn", "cannot spawn native system '%.64s': %s", desc->name, bad);
        return ONA_EINVAL;
    }
    ona__native *n = ona__calloc(1, sizeof *n);
    if (!n)
        return ONA_ENOMEM;
    n->desc = *desc;
    if (desc->size && !(n->state = ona__calloc(1, desc->size))) {
        ona__free(n);
        return ONA_ENOMEM;
    }
    ona__order_ref after[ONA_MAX_AFTER];
    uint32_t after_count = 0;
    char err[256];
    int rc = ona__order_refs(desc->after, desc->after_count, desc->after_names,
                             desc->after_name_count, after, &after_count, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "spawn", "cannot spawn native system '%.64s': %s", desc->name, err);
        ona__free(n->state);
        ona__free(n);
        return rc;
    }
    ona__spawn spawn = {
        .name = desc->name,
        .after = after,
        .after_count = after_count,
        .host = &ona__native_host,
        .host_data = n,
        .mailbox_capacity = desc->mailbox_capacity,
        .restart_limit = desc->restart_limit,
        .policy = desc->policy,
    };
    ona__system *sys;
    rc = ona__core_spawn(core, &spawn, &sys, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "spawn", "%s", err);
        ona__free(n->state);
        ona__free(n);
        return rc;
    }
    n->desc.name = sys->name;
    sys->sleeps = !desc->process;
    out->id = sys->id;
    return 0;
}
