/*
 * inspect_client.h: what the inspector's suites share: a small HTTP/WebSocket client over
 * loopback that runs each request on a thread of its own while the test's main thread steps
 * frames, and the runtime it talks to.
 *
 * The client thread never calls Check: it stores what it got, and main asserts after joining it.
 */
#ifndef ONA_INSPECT_CLIENT_H
#define ONA_INSPECT_CLIENT_H

#include "test_support.h"

#include <stdatomic.h>
#include <stddef.h>

#define TOKEN "test-token-1234"

/* The runtime under test and its inspector's port (inspect_client_attach sets it). */
extern ona_runtime *rt;
extern int port;

typedef struct request {
    const char *method, *path, *headers, *body;
    size_t body_len;
    int cycles; /* > 0: that many connect/close cycles first, with no request */
    bool websocket;
    /* What came back. */
    int status;
    char reply[1 << 17];
    atomic_bool done;
} request;

extern request req;

/* Reads the inspector's port from rt (fails the test when it has none). */
void inspect_client_attach(void);
/* Runs `req` on a client thread while main steps frames (`step`), or without stepping any
 * (`!step`: main only waits); returns the status. */
int run_request_stepping(bool step);
#define run_request() run_request_stepping(true)
int http(const char *method, const char *path, const char *headers, const char *body);

#define AUTH "Authorization: Bearer " TOKEN "\r\n"
#define GET(path) http("GET", (path), AUTH, NULL)
#define POST(path, body) http("POST", (path), AUTH "Content-Type: application/json\r\n", (body))
#define ASSERT_REPLY_HAS(needle)                                                                   \
    ck_assert_msg(strstr(req.reply, (needle)), "'%s' not in the reply (%d):\n%.2000s\nlog:\n%s",   \
                  (needle), req.status, req.reply, captured_logs_text())

#endif
