/*
 * ctx_time.c: steady time and random numbers from a C system's callbacks (ona/time.h).
 *
 * Design note. Game time and dt are the frame's, set by main before the turns. A system's default
 * seeds come from its name and spawn order and count up from 0 again on restart, so a replay
 * gives every system the same streams whatever thread runs it.
 */
#include "native.h"

double ona_ctx_time(ona_ctx *ctx) {
    return ctx ? ona__services_time(ona__ctx_services(ctx)) : 0;
}

double ona_ctx_alpha(ona_ctx *ctx) {
    return ctx ? ona__ctx_services(ctx)->alpha : 0;
}

double ona_ctx_dt(ona_ctx *ctx) {
    return ctx ? ctx->sys->core->dt : 0;
}

uint64_t ona_ctx_random(ona_ctx *ctx, ona_random *out) {
    if (!ctx || !out)
        return 0;
    ona__native *n = ctx->sys->host_data;
    uint64_t seed = ona__services_default_seed(ctx->sys, n->seeds++);
    ona_random_seed(out, seed);
    return seed;
}
