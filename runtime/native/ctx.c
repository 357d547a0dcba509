/*
 * ctx.c: the ona_ctx functions of a C system's callbacks that are about systems: who it is, its
 * frame, sending, receiving, spawning, looking up, killing, quitting (ona/runtime.h).
 *
 * Design note. A ctx is only ever made by the native host, on the stack of a callback, so a
 * non-NULL one is valid unless the embedder kept it past its callback, which cannot be detected.
 * Everything here is the core's (actor.c, registry.c), reached from the ctx's system; a script
 * system is spawned by the script host the core holds (ona__core.hosts), through its table.
 */
#include "native.h"

ona_system ona_ctx_self(ona_ctx *ctx) {
    return (ona_system){ctx ? ctx->sys->id : 0};
}

ona_runtime *ona_ctx_runtime(ona_ctx *ctx) {
    return ctx ? ona__ctx_services(ctx)->runtime : NULL;
}

void *ona_ctx_user(ona_ctx *ctx) {
    return ctx ? ((ona__native *)ctx->sys->host_data)->desc.user : NULL;
}

uint64_t ona_ctx_frame(ona_ctx *ctx) {
    return ctx ? ctx->sys->core->frame : 0;
}

int ona_ctx_try_send(ona_ctx *ctx, ona_system to, ona_message *m) {
    if (!ctx || !m)
        return ONA_EINVAL;
    return ona__actor_send(ctx->sys->core, ctx->sys, to.id, m, NULL, NULL, 0);
}

int ona_ctx_send_many(ona_ctx *ctx, ona_system to, ona_message *msgs, uint32_t n, uint32_t *sent) {
    if (sent)
        *sent = 0;
    if (!ctx || !sent || (!msgs && n > 0))
        return ONA_EINVAL;
    if (n == 0)
        return 0;
    return ona__actor_send_many(ctx->sys->core, ctx->sys, to.id, msgs, n, sent);
}

int ona_ctx_try_receive(ona_ctx *ctx, ona_message **out) {
    if (!ctx || !out)
        return ONA_EINVAL;
    int rc = ona__actor_receive(ctx->sys);
    if (rc == 0)
        *out = &ctx->sys->inbox;
    return rc;
}

int ona_ctx_spawn(ona_ctx *ctx, const ona_spawn_desc *desc, ona_system *out) {
    const ona__host *script = ctx ? ctx->sys->core->hosts[ONA__HOST_SCRIPT] : NULL;
    if (!script) {
        if (desc && desc->args)
            ona_message_release(desc->args);
        if (out)
            out->id = 0;
        return ONA_EINVAL;
    }
    return script->spawn(ctx->sys->core, desc, out);
}

int ona_ctx_lookup(ona_ctx *ctx, const char *name, ona_system *out) {
    if (!ctx || !name || !out)
        return ONA_EINVAL;
    out->id = ona__core_lookup(ctx->sys->core, name);
    return out->id ? 0 : ONA_ENOENT;
}

int ona_ctx_kill(ona_ctx *ctx, ona_system system) {
    return ctx ? ona__actor_kill(ctx->sys->core, system.id) : ONA_EINVAL;
}

int ona_ctx_monitor(ona_ctx *ctx, ona_system system) {
    if (!ctx || !system.id)
        return ONA_EINVAL;
    return ona__monitor_add(ctx->sys->core, ctx->sys, system.id);
}

void ona_ctx_quit(ona_ctx *ctx) {
    if (ctx)
        ona__core_quit(ctx->sys->core);
}
