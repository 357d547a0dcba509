/*
 * bench_args.h: spawn arguments for benchmark drivers, a message holding one table of key =
 * value pairs, written with the public message writer. Header-only (static inline) so that the
 * callgrind driver (benchmarks/callgrind/ops.c), built by a plain cc line, shares it with the
 * CMake-built benchmarks. A writer error ends the program: a benchmark with wrong arguments
 * measures nothing.
 */
#ifndef ONA_BENCH_ARGS_H
#define ONA_BENCH_ARGS_H

#include <ona/ona.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench_args {
    ona_message msg;
    ona_message_writer w;
} bench_args;

static inline void bench_args_begin(bench_args *a) {
    ona_message_init(&a->msg);
    ona_message_writer_begin(&a->w, &a->msg);
    ona_message_write_table_begin(&a->w);
}

static inline void bench_args_number(bench_args *a, const char *key, double value) {
    ona_message_write_string(&a->w, key, strlen(key));
    ona_message_write_number(&a->w, value);
}

static inline void bench_args_string(bench_args *a, const char *key, const char *value) {
    ona_message_write_string(&a->w, key, strlen(key));
    ona_message_write_string(&a->w, value, strlen(value));
}

static inline void bench_args_bool(bench_args *a, const char *key, bool value) {
    ona_message_write_string(&a->w, key, strlen(key));
    ona_message_write_boolean(&a->w, value);
}

/* Closes the table; the message is the caller's (spawn moves it). */
static inline ona_message *bench_args_end(bench_args *a) {
    ona_message_write_table_end(&a->w);
    int rc = ona_message_writer_end(&a->w);
    if (rc) {
        fprintf(stderr, "spawn arguments: %s\n", ona_strerror(rc));
        exit(1);
    }
    return &a->msg;
}

#endif
