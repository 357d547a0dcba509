/*
 * loop.h: the runtime's event loop. Internal; main thread only.
 *
 * One uv_loop_t per runtime, made first when the runtime is created and closed last when it is
 * destroyed, whether or not files are watched. The main thread runs it once a frame with
 * UV_RUN_NOWAIT, at the frame boundary, before the changes it saw are applied; nothing ever
 * blocks in it. Everything the runtime waits on from outside is a handle on this loop: the file
 * watcher's directory watches (hot_reload.c), and timers and sockets the same way. A handle's
 * owner closes it before the loop is closed; the loop closes whatever is left.
 */
#ifndef ONA_LOOP_H
#define ONA_LOOP_H

#include <uv.h>

/* ONA_ENOMEM when libuv cannot make the loop (its epoll or event descriptors). */
int ona__loop_init(uv_loop_t *loop);
/* Runs every callback that is ready and returns without waiting. */
void ona__loop_poll(uv_loop_t *loop);
/* Closes the handles still open (their owners should have), runs the pending close callbacks
 * and closes the loop. */
void ona__loop_close(uv_loop_t *loop);

#endif
