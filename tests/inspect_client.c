/*
 * inspect_client.c: the inspector suites' loopback client (inspect_client.h).
 */
#include "inspect_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

ona_runtime *rt;
int port;
request req;

void inspect_client_attach(void) {
    char url[256];
    ck_assert_int_eq(ona_runtime_inspect_url(rt, url, sizeof url), 0);
    ck_assert_int_eq(sscanf(url, "http://127.0.0.1:%d/?token=", &port), 1);
}

static int dial(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* Reads the answer: headers, then Content-Length bytes (or to the close). */
static void read_reply(int fd, request *r) {
    static char buf[1 << 17];
    size_t len = 0;
    char *body = NULL;
    long want = -1;
    for (;;) {
        ssize_t k = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0)
            break;
        len += (size_t)k;
        buf[len] = '\0';
        if (!body && (body = strstr(buf, "\r\n\r\n")) != NULL) {
            body += 4;
            sscanf(buf, "HTTP/1.1 %d", &r->status);
            const char *cl = strcasestr(buf, "content-length:");
            if (cl && cl < body)
                want = strtol(cl + 15, NULL, 10);
        }
        if (body && want >= 0 && (long)(len - (size_t)(body - buf)) >= want)
            break;
        if (len == sizeof buf - 1)
            break;
    }
    snprintf(r->reply, sizeof r->reply, "%s", body ? body : buf);
}

/* A WebSocket upgrade, then the first text frame's payload into reply. */
static void read_ws(int fd, request *r) {
    char head[4096];
    size_t len = 0;
    while (len < sizeof head - 1) {
        ssize_t k = recv(fd, head + len, 1, 0);
        if (k <= 0)
            return;
        len++;
        head[len] = '\0';
        if (len >= 4 && memcmp(head + len - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    sscanf(head, "HTTP/1.1 %d", &r->status);
    if (r->status != 101)
        return;
    unsigned char h[10];
    if (recv(fd, h, 2, MSG_WAITALL) != 2)
        return;
    uint64_t n = h[1] & 0x7f;
    if (n == 126 && recv(fd, h + 2, 2, MSG_WAITALL) == 2)
        n = (uint64_t)h[2] << 8 | h[3];
    else if (n == 127 && recv(fd, h + 2, 8, MSG_WAITALL) == 8)
        for (int i = 0, j = 2; i < 8; i++, j++)
            n = i ? n << 8 | h[j] : h[j];
    if (n >= sizeof r->reply)
        return;
    if (recv(fd, r->reply, n, MSG_WAITALL) == (ssize_t)n)
        r->reply[n] = '\0';
}

static void *client(void *arg) {
    request *r = arg;
    for (int i = 0; i < r->cycles; i++) {
        int fd = dial();
        if (fd >= 0)
            close(fd);
    }
    int fd = dial();
    if (fd >= 0) {
        char head[2048], length[64];
        snprintf(length, sizeof length, "Content-Length: %zu\r\n", r->body ? r->body_len : 0);
        int n = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s%s\r\n",
                         r->method, r->path, port, r->headers ? r->headers : "",
                         r->websocket ? "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                        "Sec-WebSocket-Version: 13\r\n"
                                        "Sec-WebSocket-Protocol: ona-inspect\r\n"
                                      : length);
        if (send_all(fd, head, (size_t)n) && (!r->body || send_all(fd, r->body, r->body_len))) {
            if (r->websocket)
                read_ws(fd, r);
            else
                read_reply(fd, r);
        }
        close(fd);
    }
    atomic_store_explicit(&r->done, true, memory_order_release); /* main reads the reply next */
    return NULL;
}

int run_request_stepping(bool step) {
    req.status = 0;
    req.reply[0] = '\0';
    atomic_store(&req.done, false);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, client, &req), 0);
    while (!atomic_load_explicit(&req.done, memory_order_acquire)) {
        if (step)
            ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(step ? 200 : 1000); /* leaves the client and the server's thread a core */
    }
    pthread_join(t, NULL);
    return req.status;
}

int http(const char *method, const char *path, const char *headers, const char *body) {
    req = (request){.method = method,
                    .path = path,
                    .headers = headers,
                    .body = body,
                    .body_len = body ? strlen(body) : 0};
    return run_request();
}
