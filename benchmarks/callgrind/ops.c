/*
 * ops.c: the callgrind driver of benchmarks/results/perf12.md. Runs one workload of the message
 * path, the empty turn or spawn a given number of times, so that two runs under
 * `valgrind --tool=callgrind` that differ only in that number give the instructions of one
 * operation by difference (runtime creation, script loading and teardown cancel out). Built and
 * run by benchmarks/callgrind/run against a release build's libona.a; not a test, not a
 * benchmark of its own (instruction counts do not depend on what else runs on the machine,
 * which is why they are used while the machine is shared).
 *
 *   ops spawn N          N spawns of empty.lua into one runtime (threads = 1), no frame
 *   ops empty N F        N empty Lua systems, F frames (threads = 1)
 *   ops selfsend C F     selfsend.lua with count C, F frames: C sends to itself + receives
 *   ops pingpong H F     pingpong.lua, H hops a frame, F frames (threads = 1)
 *   ops mailbox P C      sender.lua -> receiver.lua, payload P (number/string/table), C messages
 *                        in one frame-sized turn, threads = 1, default mailbox (64)
 *   ops memory N         N empty.lua systems after their first turn: prints the mean Lua heap
 *                        (ona_system_stats.memory) per system, in bytes (not for callgrind)
 *   ops bare N           N bare LuaJIT states (luaL_newstate + luaL_openlibs + lua_close), no
 *                        runtime: what a spawn is measured against (the floor of a state)
 */
#include "../bench_args.h"
#include "ona/ona.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LuaJIT is inside libona.a; its headers are not on this program's path, so the three calls of
 * the bare mode are declared here (lauxlib.h/lualib.h, LuaJIT 2.1). */
typedef struct lua_State lua_State;
lua_State *luaL_newstate(void);
void luaL_openlibs(lua_State *L);
void lua_close(lua_State *L);

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks/lua", NULL};

static void check(const char *what, int rc) {
    if (rc) {
        fprintf(stderr, "ops: %s: %s\n", what, ona_strerror(rc));
        exit(1);
    }
}

static void spawn(ona_runtime *rt, const char *script, const char *name, ona_message *msg) {
    ona_spawn_desc d = {.script = script, .name = name, .args = msg};
    ona_system h;
    check(script, ona_runtime_spawn(rt, &d, &h));
}

static void steps(ona_runtime *rt, long frames) {
    for (long i = 0; i < frames; i++)
        check("ona_runtime_step", ona_runtime_step(rt, 1.0 / 60));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ops spawn N | empty N F | selfsend C F | pingpong H F | "
                        "mailbox P C | memory N | bare N\n");
        return 2;
    }
    const char *mode = argv[1];
    long a1 = argc > 2 ? atol(argv[2]) : 0;
    long a2 = argc > 3 ? atol(argv[3]) : 0;
    if (strcmp(mode, "bare") == 0) {
        for (long i = 0; i < a1; i++) {
            lua_State *L = luaL_newstate();
            if (!L) {
                fprintf(stderr, "ops: luaL_newstate failed\n");
                return 1;
            }
            luaL_openlibs(L);
            lua_close(L);
        }
        return 0;
    }
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots};
    ona_runtime *rt;
    check("ona_runtime_create", ona_runtime_create(&desc, &rt));
    if (strcmp(mode, "spawn") == 0) {
        for (long i = 0; i < a1; i++)
            spawn(rt, "empty.lua", NULL, NULL);
    } else if (strcmp(mode, "memory") == 0) {
        ona_system *hs = calloc((size_t)a1, sizeof *hs);
        for (long i = 0; i < a1; i++) {
            ona_spawn_desc d = {.script = "empty.lua"};
            check("empty.lua", ona_runtime_spawn(rt, &d, &hs[i]));
        }
        steps(rt, 1);
        double total = 0;
        for (long i = 0; i < a1; i++) {
            ona_system_stats st;
            check("stats", ona_runtime_system_stats(rt, hs[i], &st));
            total += (double)st.memory;
        }
        printf("%.0f bytes of Lua heap per system\n", total / (double)a1);
        free(hs);
    } else if (strcmp(mode, "empty") == 0) {
        for (long i = 0; i < a1; i++)
            spawn(rt, "empty.lua", NULL, NULL);
        steps(rt, a2);
    } else if (strcmp(mode, "selfsend") == 0) {
        bench_args a;
        bench_args_begin(&a);
        bench_args_number(&a, "count", (double)a1);
        spawn(rt, "selfsend.lua", NULL, bench_args_end(&a));
        steps(rt, a2);
    } else if (strcmp(mode, "pingpong") == 0) {
        bench_args a, b;
        bench_args_begin(&a);
        bench_args_string(&a, "peer", "pong");
        bench_args_number(&a, "hops", (double)a1);
        ona_message_write_string(&a.w, "serve", 5);
        ona_message_write_boolean(&a.w, true);
        spawn(rt, "pingpong.lua", "ping", bench_args_end(&a));
        bench_args_begin(&b);
        bench_args_string(&b, "peer", "ping");
        bench_args_number(&b, "hops", (double)a1);
        spawn(rt, "pingpong.lua", "pong", bench_args_end(&b));
        steps(rt, a2);
    } else if (strcmp(mode, "mailbox") == 0) {
        long count = a2;
        bench_args s;
        bench_args_begin(&s);
        bench_args_string(&s, "target", "receiver");
        bench_args_string(&s, "payload", argv[2]);
        bench_args_number(&s, "count", (double)count);
        bench_args_number(&s, "per_turn", (double)count);
        spawn(rt, "receiver.lua", "receiver", NULL);
        spawn(rt, "sender.lua", "sender", bench_args_end(&s));
        steps(rt, 1);
    } else {
        fprintf(stderr, "ops: unknown mode %s\n", mode);
        return 2;
    }
    ona_runtime_destroy(rt);
    return 0;
}
