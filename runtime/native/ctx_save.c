/*
 * ctx_save.c: saves from a C system's callbacks (ona/save.h): the runtime's save folder, the same
 * files as ona.save and ona_runtime_save. Any thread; the file format's atomic writes make
 * concurrent saves safe (runtime/services/save.c).
 */
#include "native.h"

int ona_ctx_save(ona_ctx *ctx, const char *name, ona_message *value) {
    if (!ctx || !name || !value)
        return ONA_EINVAL;
    return ona__services_save(ona__ctx_services(ctx), name, value);
}

int ona_ctx_load(ona_ctx *ctx, const char *name, ona_message *out) {
    if (!ctx || !name || !out)
        return ONA_EINVAL;
    return ona__services_load(ona__ctx_services(ctx), name, out);
}
