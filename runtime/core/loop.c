/*
 * loop.c: the runtime's event loop (loop.h).
 *
 * Design note. The loop is polled, never run to completion: the frame is the runtime's clock,
 * so a callback on it runs at the frame boundary of the main thread, between frames, where it
 * may touch what main owns. Handles left open at close are a leak of their owner's; they are
 * closed here anyway (without a callback, so their owner's memory is not touched), so that
 * uv_loop_close never fails with EBUSY and leaves the loop's descriptors open.
 */
#include "loop.h"

#include "common.h"

int ona__loop_init(uv_loop_t *loop) {
    return uv_loop_init(loop) ? ONA_ENOMEM : 0;
}

void ona__loop_poll(uv_loop_t *loop) {
    uv_run(loop, UV_RUN_NOWAIT);
}

static void close_leftover(uv_handle_t *handle, void *arg) {
    unsigned *count = arg;
    if (!uv_is_closing(handle)) {
        uv_close(handle, NULL);
        (*count)++;
    }
}

void ona__loop_close(uv_loop_t *loop) {
    unsigned leftovers = 0;
    uv_walk(loop, close_leftover, &leftovers);
    if (leftovers)
        ona_log(ONA_LOG_DEBUG, "runtime", "event loop: %u handle(s) still open at exit, closed",
                leftovers);
    uv_run(loop, UV_RUN_DEFAULT); /* only close callbacks are left: returns once they ran */
    if (uv_loop_close(loop))
        ona_log(ONA_LOG_WARN, "runtime", "event loop: could not be closed");
}
