/*
 * bench_string: the seed thesis' QuickBench string case, ona_string against a malloc+memcpy
 * string in the same run.
 *
 *   create+copy: per iteration, make a string from the message, copy it, pass the copy to a
 *                function that keeps it from being optimised away, release both (the thesis loop);
 *   copy:        the string exists; per iteration copy it, pass the copy, release the copy (what
 *                the runtime does when a string is sent from system to system);
 *   handoff:     the string exists; a copy is made on one thread, handed to another through a
 *                single-producer ring, and released there.
 *
 * Messages: "Hello, world" (12 bytes, inline) and the 62-byte Lorem Ipsum line (heap).
 * Each figure is the median of REPEATS runs of ITERATIONS iterations, in ns per iteration.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { ITERATIONS = 2000000, REPEATS = 11, HANDOFFS = 1000000, RING = 1024 };

static const char SHORT_MSG[] = "Hello, world";
static const char LONG_MSG[] = "Neque porro quisquam est qui dolorem ipsum quia dolor sit amet";

/* The peer: a heap string that copies its bytes on every copy, like std::string past its SSO. */
typedef struct plain_string {
    char *bytes;
    size_t size;
} plain_string;

static plain_string plain_create(const char *bytes, size_t size) {
    plain_string s = {malloc(size + 1), size};
    if (!s.bytes)
        abort();
    memcpy(s.bytes, bytes, size);
    s.bytes[size] = '\0';
    return s;
}

static plain_string plain_copy(const plain_string *s) {
    return plain_create(s->bytes, s->size);
}

static void plain_release(plain_string *s) {
    free(s->bytes);
    s->bytes = NULL;
}

__attribute__((noinline)) static void greet_ona(ona_string message) {
    bench_escape(ona_string_data(&message));
    ona_string_release(&message);
}

__attribute__((noinline)) static void greet_plain(plain_string message) {
    bench_escape(message.bytes);
    plain_release(&message);
}

static double ona_create_copy(const char *msg, size_t size) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < ITERATIONS; i++) {
        ona_string created;
        ona_string_create(&created, msg, size);
        greet_ona(ona_string_copy(&created));
        ona_string_release(&created);
    }
    return (double)(bench_now_ns() - t0) / ITERATIONS;
}

static double plain_create_copy(const char *msg, size_t size) {
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < ITERATIONS; i++) {
        plain_string created = plain_create(msg, size);
        greet_plain(plain_copy(&created));
        plain_release(&created);
    }
    return (double)(bench_now_ns() - t0) / ITERATIONS;
}

static double ona_copy_only(const char *msg, size_t size) {
    ona_string created;
    ona_string_create(&created, msg, size);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < ITERATIONS; i++)
        greet_ona(ona_string_copy(&created));
    double ns = (double)(bench_now_ns() - t0) / ITERATIONS;
    ona_string_release(&created);
    return ns;
}

static double plain_copy_only(const char *msg, size_t size) {
    plain_string created = plain_create(msg, size);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < ITERATIONS; i++)
        greet_plain(plain_copy(&created));
    double ns = (double)(bench_now_ns() - t0) / ITERATIONS;
    plain_release(&created);
    return ns;
}

/* --- handoff: a single-producer single-consumer ring of string values ------------------------ */

typedef struct ring {
    _Alignas(64) atomic_size_t head; /* written by the consumer */
    _Alignas(64) atomic_size_t tail; /* written by the producer */
    _Alignas(64) union {
        ona_string ona;
        plain_string plain;
    } slots[RING];
    int use_ona;
} ring;

static void *consumer(void *arg) {
    ring *r = arg;
    size_t head = 0;
    for (int i = 0; i < HANDOFFS; i++) {
        /* acquire: the slot's contents were published by the producer's release store. */
        while (atomic_load_explicit(&r->tail, memory_order_acquire) == head)
            ;
        if (r->use_ona)
            ona_string_release(&r->slots[head % RING].ona);
        else
            plain_release(&r->slots[head % RING].plain);
        head++;
        /* release: the producer may reuse the slot only after we are done with it. */
        atomic_store_explicit(&r->head, head, memory_order_release);
    }
    return NULL;
}

static double handoff(int use_ona, const char *msg, size_t size) {
    ring *r = aligned_alloc(64, sizeof(ring));
    if (!r)
        abort();
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    r->use_ona = use_ona;
    ona_string os;
    ona_string_create(&os, msg, size);
    plain_string ps = plain_create(msg, size);
    pthread_t thread;
    pthread_create(&thread, NULL, consumer, r);
    uint64_t t0 = bench_now_ns();
    size_t tail = 0;
    for (int i = 0; i < HANDOFFS; i++) {
        /* acquire: pairs with the consumer's release of the slot. */
        while (tail - atomic_load_explicit(&r->head, memory_order_acquire) == RING)
            ;
        if (use_ona)
            r->slots[tail % RING].ona = ona_string_copy(&os);
        else
            r->slots[tail % RING].plain = plain_copy(&ps);
        tail++;
        /* release: publishes the slot to the consumer. */
        atomic_store_explicit(&r->tail, tail, memory_order_release);
    }
    pthread_join(thread, NULL);
    double ns = (double)(bench_now_ns() - t0) / HANDOFFS;
    ona_string_release(&os);
    plain_release(&ps);
    free(r);
    return ns;
}

typedef double (*case_fn)(const char *, size_t);

/* Runs the two subjects alternately so that a slow patch of the machine (frequency, a neighbour)
 * hits both alike, and returns both medians. */
static void median_pair(case_fn ona_fn, case_fn plain_fn, const char *msg, size_t size,
                        double *ona_ns, double *plain_ns) {
    double o[REPEATS], p[REPEATS];
    for (int i = 0; i < REPEATS; i++) {
        o[i] = ona_fn(msg, size);
        p[i] = plain_fn(msg, size);
    }
    *ona_ns = bench_summarise(o, REPEATS).median;
    *plain_ns = bench_summarise(p, REPEATS).median;
}

static void median_handoff(const char *msg, size_t size, double *ona_ns, double *plain_ns) {
    double o[5], p[5];
    for (int i = 0; i < 5; i++) {
        o[i] = handoff(1, msg, size);
        p[i] = handoff(0, msg, size);
    }
    *ona_ns = bench_summarise(o, 5).median;
    *plain_ns = bench_summarise(p, 5).median;
}

int main(void) {
    bench_report *r = bench_report_open(
        "string", "ona_string vs malloc+memcpy string",
        "a malloc+memcpy heap string (copies its bytes on every copy), same run, same compiler");
    bench_report_printf(r, "ns per iteration, median of %d runs of %d iterations "
                           "(handoff: median of 5 runs of %d handoffs).\n\n",
                        REPEATS, ITERATIONS, HANDOFFS);
    bench_report_printf(r, "| case | message | ona_string ns | malloc+memcpy ns | speedup |\n");
    bench_report_printf(r, "|---|---|---:|---:|---:|\n");
    struct {
        const char *label;
        const char *msg;
        size_t size;
    } messages[] = {{"short (12 B)", SHORT_MSG, sizeof SHORT_MSG - 1},
                    {"long (62 B)", LONG_MSG, sizeof LONG_MSG - 1}};
    bench_report_chart(r, "ona_string vs malloc+memcpy: ns per operation (lower is better)",
                       "ns", false, 2, (const char *const[]){"ona_string", "malloc+memcpy"});
    char label[96];
    for (size_t m = 0; m < 2; m++) {
        double o, p;
        median_pair(ona_create_copy, plain_create_copy, messages[m].msg, messages[m].size, &o, &p);
        bench_report_printf(r, "| create+copy+pass | %s | %.2f | %.2f | %.2fx |\n",
                            messages[m].label, o, p, p / o);
        snprintf(label, sizeof label, "create+copy, %s", messages[m].label);
        bench_report_chart_row(r, label, (double[]){o, p});
    }
    for (size_t m = 0; m < 2; m++) {
        double o, p;
        median_pair(ona_copy_only, plain_copy_only, messages[m].msg, messages[m].size, &o, &p);
        bench_report_printf(r, "| copy+pass | %s | %.2f | %.2f | %.2fx |\n", messages[m].label,
                            o, p, p / o);
        snprintf(label, sizeof label, "copy, %s", messages[m].label);
        bench_report_chart_row(r, label, (double[]){o, p});
    }
    for (size_t m = 0; m < 2; m++) {
        double o, p;
        median_handoff(messages[m].msg, messages[m].size, &o, &p);
        bench_report_printf(r, "| copy, hand to thread, release there | %s | %.2f | %.2f | %.2fx |\n",
                            messages[m].label, o, p, p / o);
        snprintf(label, sizeof label, "hand-off, %s", messages[m].label);
        bench_report_chart_row(r, label, (double[]){o, p});
    }
    bench_report_printf(r, "\nTarget: ona_string at least 2x faster than malloc+memcpy on "
                           "both lengths.\n");
    return bench_report_close(r) == 0 ? 0 : 1;
}
