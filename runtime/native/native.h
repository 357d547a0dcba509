/*
 * native.h: what the files of the native host share (runtime/native/): a C system's host data
 * and its ona_ctx. Internal to the library.
 *
 * A native system is a core system whose host calls its desc's callbacks: init on the first turn,
 * process every turn, exit when it ends. Its callbacks get an ona_ctx made on the stack of the
 * call, valid during it; every ona_ctx_* function reaches the system's core and services from it.
 */
#ifndef ONA_NATIVE_H
#define ONA_NATIVE_H

#include "services.h"

typedef struct ona__native {
    ona_system_desc desc;
    void *state;
    uint64_t seeds; /* default random seeds taken since the last restart */
} ona__native;

struct ona_ctx {
    ona__system *sys;
};

/* The services of the system a callback runs for. */
static inline ona__services *ona__ctx_services(ona_ctx *ctx) {
    return ona__services_of(ctx->sys);
}

/* The host of C systems (native_host.c); its spawn takes an ona_system_desc. */
extern const ona__host ona__native_host;

#endif
