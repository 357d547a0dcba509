/*
 * embed: a C program that embeds the Ona runtime, built against an installed Ona.
 *
 * It creates a runtime, spawns two Lua systems from scripts/ (greeter.lua answers requests,
 * ticker.lua reports frames), registers a native C system, "host", beside them, and drives the
 * frames from its own loop with ona_runtime_step. The host sends the greeter one request a frame
 * (built with ona_message_writer), reads each reply with ona_message_reader and checks it, and
 * counts the ticker's ticks. The program prints what happened and exits 0 when every expected
 * reply arrived intact, 1 otherwise.
 *
 *   embed [--offscreen] [--frames N] [--scripts DIR] [--screenshot PATH] [--verbose]
 *
 *   --offscreen        render offscreen (SDL's EGL driver); default: no video at all
 *   --frames N         frames to run (default 60, at least 12)
 *   --scripts DIR      the Lua scripts (default: the scripts folder next to the executable)
 *   --screenshot PATH  with --offscreen, write the last frame to a PNG
 *   --verbose          show the runtime's debug log (such as where the shaders came from)
 *
 * Build it against an installed Ona (cmake --install build/release --prefix PREFIX), with CMake:
 *
 *   cmake -S samples/embed -B build/embed -DCMAKE_PREFIX_PATH=PREFIX && cmake --build build/embed
 *
 * or with pkg-config, in one line (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a private prefix):
 *
 *   cc -o embed main.c $(pkg-config --cflags --libs ona)
 */
#define _POSIX_C_SOURCE 200809L

#include <ona/ona.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REQUESTS 10    /* greetings the host asks for, one a frame from the first */
#define TICK_EVERY 10  /* frames between the ticker's ticks */

static const char *const names[] = {"Ada", "Grace", "Alan", "Barbara", "Edsger"};
#define NAME_COUNT (sizeof names / sizeof names[0])

/* What the host saw. The runtime owns the host's state; this report is the embedder's (the
 * desc's `user` pointer), written by the host's turns and read by main between frames. */
typedef struct report {
    int sent;                  /* requests sent */
    int replies;               /* replies that matched their request */
    int bad;                   /* replies or messages that did not */
    bool answered[REQUESTS + 1];
    int ticks;
    double last_tick;
} report;

/* The host's own state, zeroed by the runtime. */
typedef struct host {
    ona_system greeter;
} host;

static void expected_greeting(int id, char *out, size_t size) {
    snprintf(out, size, "Hello, %s!", names[(size_t)(id - 1) % NAME_COUNT]);
}

/* Reads the next value of `r` as a string (a Lua string arrives as ONA_VALUE_STRING). */
static bool read_string(ona_message_reader *r, const char **bytes, size_t *size) {
    ona_value v;
    if (ona_message_read(r, &v) != 0 || v.type != ONA_VALUE_STRING)
        return false;
    *bytes = v.as.string.bytes;
    *size = v.as.string.size;
    return true;
}

static bool read_number(ona_message_reader *r, double *out) {
    ona_value v;
    if (ona_message_read(r, &v) != 0 || v.type != ONA_VALUE_NUMBER)
        return false;
    *out = v.as.number;
    return true;
}

/* One message to the host: ("greeting", id, text) from the greeter or ("tick", frame) from the
 * ticker. */
static void host_handle(report *rep, ona_message *in) {
    ona_message_reader r;
    ona_message_reader_begin(&r, in);
    const char *kind, *text;
    size_t kind_size, text_size;
    double number;
    if (!read_string(&r, &kind, &kind_size) || !read_number(&r, &number)) {
        fprintf(stderr, "embed: host: a message that is neither a greeting nor a tick\n");
        rep->bad++;
        return;
    }
    if (strcmp(kind, "tick") == 0) {
        /* Ticks come every TICK_EVERY frames, in order. */
        if (number <= rep->last_tick || (long)number % TICK_EVERY != 0) {
            fprintf(stderr, "embed: host: unexpected tick %g after %g\n", number, rep->last_tick);
            rep->bad++;
        }
        rep->last_tick = number;
        rep->ticks++;
        printf("host: tick from the ticker at its frame %g\n", number);
        return;
    }
    int id = (int)number;
    char want[64];
    if (strcmp(kind, "greeting") != 0 || id < 1 || id > REQUESTS || (double)id != number ||
        rep->answered[id] || !read_string(&r, &text, &text_size)) {
        fprintf(stderr, "embed: host: bad reply (%s %g)\n", kind, number);
        rep->bad++;
        return;
    }
    expected_greeting(id, want, sizeof want);
    if (text_size != strlen(want) || memcmp(text, want, text_size) != 0) {
        fprintf(stderr, "embed: host: reply %d is '%s', expected '%s'\n", id, text, want);
        rep->bad++;
        return;
    }
    rep->answered[id] = true;
    rep->replies++;
    printf("host: reply %d: %s\n", id, text);
}

static int host_init(ona_ctx *ctx, void *state) {
    host *h = state;
    int rc = ona_ctx_lookup(ctx, "greeter", &h->greeter);
    if (rc)
        fprintf(stderr, "embed: host: no greeter: %s\n", ona_strerror(rc));
    return rc;
}

/* Once a frame, on whichever thread runs it: read what arrived, then send the next request.
 * A native turn never waits: try_receive and try_send return at once. */
static int host_process(ona_ctx *ctx, void *state, double dt) {
    (void)dt;
    host *h = state;
    report *rep = ona_ctx_user(ctx);
    ona_message *in;
    while (ona_ctx_try_receive(ctx, &in) == 0)
        host_handle(rep, in); /* `in` is borrowed until the next receive */

    if (rep->sent < REQUESTS) {
        int id = rep->sent + 1;
        const char *name = names[(size_t)(id - 1) % NAME_COUNT];
        ona_message m;
        ona_message_init(&m);
        ona_message_writer w;
        ona_message_writer_begin(&w, &m);
        ona_message_write_string(&w, "greet", 5);
        ona_message_write_number(&w, id);
        ona_message_write_string(&w, name, strlen(name));
        int rc = ona_message_writer_end(&w);
        if (rc == 0)
            rc = ona_ctx_try_send(ctx, h->greeter, &m); /* moves m on success */
        ona_message_release(&m);                         /* not sent: still ours */
        if (rc == 0) {
            rep->sent++;
            printf("host: frame %llu: asked the greeter to greet %s (request %d)\n",
                   (unsigned long long)ona_ctx_frame(ctx), name, id);
        } else if (rc != ONA_EFULL) { /* full: try again next frame */
            fprintf(stderr, "embed: host: send failed: %s\n", ona_strerror(rc));
            return rc;
        }
    }
    return 0;
}

static void verbose_sink(void *user, ona_log_level level, const char *where, const char *message) {
    (void)user;
    fprintf(stderr, "embed: ona %s: %s: %s\n", ona_log_level_name(level), where, message);
}

/* The scripts folder next to the executable. */
static bool default_scripts(char *out, size_t size) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return snprintf(out, size, "%s/scripts", exe) < (int)size;
}

static uint32_t spawn_lua(ona_runtime *rt, const char *script, const char *key1,
                          const char *value1, const char *key2, double value2) {
    /* Spawn arguments: one table, init's second argument. */
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, key1, strlen(key1));
    ona_message_write_string(&w, value1, strlen(value1));
    if (key2) {
        ona_message_write_string(&w, key2, strlen(key2));
        ona_message_write_number(&w, value2);
    }
    ona_message_write_table_end(&w);
    int rc = ona_message_writer_end(&w);
    ona_system system = {0};
    if (rc == 0)
        rc = ona_runtime_spawn(rt, &(ona_spawn_desc){.script = script, .args = &args}, &system);
    if (rc) {
        fprintf(stderr, "embed: cannot spawn %s: %s\n", script, ona_strerror(rc));
        return 0;
    }
    return system.id;
}

static void usage(FILE *to) {
    fprintf(to, "usage: embed [--offscreen] [--frames N] [--scripts DIR] [--screenshot PATH] "
                "[--verbose]\n");
}

int main(int argc, char **argv) {
    bool offscreen = false, verbose = false;
    long frames = 60;
    const char *scripts = NULL, *screenshot = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--offscreen") == 0) {
            offscreen = true;
        } else if (strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
            char *end;
            frames = strtol(argv[++i], &end, 10);
            if (*end || frames < REQUESTS + 2 || frames > 1000000) {
                fprintf(stderr, "embed: --frames needs a number from %d\n", REQUESTS + 2);
                return 2;
            }
        } else if (strcmp(a, "--scripts") == 0 && i + 1 < argc) {
            scripts = argv[++i];
        } else if (strcmp(a, "--screenshot") == 0 && i + 1 < argc) {
            screenshot = argv[++i];
        } else if (strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (screenshot && !offscreen) {
        fprintf(stderr, "embed: --screenshot needs --offscreen\n");
        return 2;
    }
    char root[4096];
    if (!scripts) {
        if (!default_scripts(root, sizeof root)) {
            fprintf(stderr, "embed: cannot find the executable's folder; use --scripts DIR\n");
            return 2;
        }
        scripts = root;
    }
    char probe[4200];
    struct stat st;
    snprintf(probe, sizeof probe, "%s/greeter.lua", scripts);
    if (stat(probe, &st) != 0) {
        fprintf(stderr, "embed: no greeter.lua in %s; use --scripts DIR\n", scripts);
        return 2;
    }
    if (verbose)
        ona_log_set_sink(verbose_sink, NULL, ONA_LOG_DEBUG);

    printf("embed: ona %s (%s), scripts in %s\n", ona_version(), ona_build_type(), scripts);
    fflush(stdout); /* before the runtime's log lines on stderr */
    const char *roots[] = {scripts, NULL};
    ona_runtime_desc desc = {
        .threads = 0, /* as many as cores, this thread included */
        .script_roots = roots,
        .video = offscreen ? ONA_VIDEO_OFFSCREEN : ONA_VIDEO_NONE,
        .window = {.title = "embed", .width = 640, .height = 360, .vsync = ONA_VSYNC_OFF},
    };
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc) {
        fprintf(stderr, "embed: cannot create the runtime: %s\n", ona_strerror(rc));
        return 1;
    }
    static const char *const video_names[] = {"none", "window", "offscreen"};
    printf("embed: video %s\n", video_names[ona_runtime_video_mode(rt)]);

    /* The Lua systems first (the host looks the greeter up in its init), then the C one. */
    report rep = {0};
    bool spawned = spawn_lua(rt, "greeter.lua", "greeting", "Hello", NULL, 0) &&
                   spawn_lua(rt, "ticker.lua", "host", "host", "every", TICK_EVERY);
    ona_system host_system;
    ona_system_desc host_desc = {
        .name = "host",
        .size = sizeof(host),
        .init = host_init,
        .process = host_process,
        .user = &rep,
        .policy = ONA_POLICY_STOP, /* a failing host is a failed run, not one to restart */
    };
    if (spawned && (rc = ona_runtime_spawn_native(rt, &host_desc, &host_system)) != 0)
        fprintf(stderr, "embed: cannot spawn the host: %s\n", ona_strerror(rc));
    if (!spawned || rc) {
        ona_runtime_destroy(rt);
        return 1;
    }

    /* The embedder's own loop: one ona_runtime_step per frame, with a fixed time step. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long frame = 0;
    while (frame < frames && !ona_runtime_quit_requested(rt)) {
        if (screenshot && frame == frames - 1 && ona_runtime_screenshot(rt, screenshot) != 0)
            fprintf(stderr, "embed: no video, so no screenshot\n");
        rc = ona_runtime_step(rt, 1.0 / 60.0);
        if (rc) {
            fprintf(stderr, "embed: step failed: %s\n", ona_strerror(rc));
            break;
        }
        frame++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;

    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    printf("embed: %ld frames in %.1f ms on %u threads, %llu messages delivered\n", frame, ms,
           rs.threads, (unsigned long long)rs.messages);
    ona_system list[8];
    uint32_t n = ona_runtime_systems(rt, list, 8);
    for (uint32_t i = 0; i < n && i < 8; i++) {
        ona_system_stats ss;
        if (ona_runtime_system_stats(rt, list[i], &ss) == 0)
            printf("  %-8s %-6s %4llu turns, %3llu messages in, %3llu out, %u errors\n", ss.name,
                   ss.native ? "C" : "Lua", (unsigned long long)ss.turns,
                   (unsigned long long)ss.messages_in, (unsigned long long)ss.messages_out,
                   ss.errors);
    }
    ona_system_stats host_stats;
    bool host_ok = ona_runtime_system_stats(rt, host_system, &host_stats) == 0 &&
                   host_stats.status == ONA_SYSTEM_RUNNING && host_stats.errors == 0;
    ona_runtime_destroy(rt);

    /* Ticks are sent on frames TICK_EVERY, 2 * TICK_EVERY, ...; the last may still be in the
     * host's mailbox when the loop ends. */
    int min_ticks = (int)(frame / TICK_EVERY) - 1;
    bool ok = rc == 0 && host_ok && rep.sent == REQUESTS && rep.replies == REQUESTS &&
              rep.bad == 0 && rep.ticks >= min_ticks;
    printf("embed: %d requests sent, %d replies checked, %d bad, %d ticks (at least %d expected)"
           ": %s\n",
           rep.sent, rep.replies, rep.bad, rep.ticks, min_ticks, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
