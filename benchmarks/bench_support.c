/*
 * bench_support.c: see bench_support.h.
 */
#include "bench_support.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef ONA_BENCH_BUILD_TYPE
#define ONA_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef ONA_SOURCE_DIR
#define ONA_SOURCE_DIR "."
#endif

uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

bench_stats bench_summarise(double *samples, size_t n) {
    bench_stats s = {0};
    if (n == 0)
        return s;
    qsort(samples, n, sizeof *samples, cmp_double);
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    s.mean = sum / (double)n;
    double var = 0;
    for (size_t i = 0; i < n; i++)
        var += (samples[i] - s.mean) * (samples[i] - s.mean);
    s.stddev = n > 1 ? sqrt(var / (double)(n - 1)) : 0;
    return s;
}

struct bench_report {
    char name[128];
    char *text;
    size_t size, cap;
};

void bench_report_printf(bench_report *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char line[4096];
    int n = vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (r->size + len + 1 > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8192;
        while (cap < r->size + len + 1)
            cap *= 2;
        char *grown = realloc(r->text, cap);
        if (!grown)
            return;
        r->text = grown;
        r->cap = cap;
    }
    memcpy(r->text + r->size, line, len);
    r->size += len;
    r->text[r->size] = '\0';
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(out, n, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

bench_report *bench_report_open(const char *name, const char *title, const char *peers) {
    bench_report *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    snprintf(r->name, sizeof r->name, "%s", name);
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bench_report_printf(r, "# %s\n\n", title);
    bench_report_printf(r, "| | |\n|---|---|\n");
    bench_report_printf(r, "| machine | %s, %ld cores, %s %s |\n", cpu, sysconf(_SC_NPROCESSORS_ONLN),
                        u.sysname, u.release);
    bench_report_printf(r, "| build type | %s |\n", ONA_BENCH_BUILD_TYPE);
    bench_report_printf(r, "| date | %s |\n", date);
    bench_report_printf(r, "| peers | %s |\n\n", peers);
    return r;
}

int bench_report_close(bench_report *r) {
    fputs(r->text ? r->text : "", stdout);
    fflush(stdout);
    const char *dir = getenv("ONA_BENCH_RESULTS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.md", dir ? dir : ONA_SOURCE_DIR "/benchmarks/results",
             r->name);
    int rc = 0;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(r->text ? r->text : "", f);
        fclose(f);
        fprintf(stderr, "wrote %s\n", path);
    } else {
        fprintf(stderr, "could not write %s\n", path);
        rc = -1;
    }
    free(r->text);
    free(r);
    return rc;
}
