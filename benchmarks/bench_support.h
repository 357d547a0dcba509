/*
 * bench_support.h: timing, statistics and the result table every benchmark prints and writes
 * under benchmarks/results/, headed by the machine, the build type and the peers it ran beside.
 */
#ifndef ONA_BENCH_SUPPORT_H
#define ONA_BENCH_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Monotonic nanoseconds. */
uint64_t bench_now_ns(void);

typedef struct bench_stats {
    double median, mean, stddev, min, max;
} bench_stats;

/* Sorts `samples` in place and summarises them. */
bench_stats bench_summarise(double *samples, size_t n);

/* A result report: text is collected, printed to stdout and written to
 * benchmarks/results/<name>.md on bench_report_close. */
typedef struct bench_report bench_report;

/* Opens a report titled `title`, with a header naming the machine (CPU model, cores, kernel),
 * the build type, the date and `peers` (what it was compared against). */
bench_report *bench_report_open(const char *name, const char *title, const char *peers);
void bench_report_printf(bench_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The report's chart: its main comparison as clustered bars, one cluster per row (a workload, a
 * size), one bar per series (Ona, a peer...). bench_report_close writes the data beside the table
 * (<name>.dat) and draws <name>.png with gnuplot (Debian's gnuplot-nox), and links the picture
 * from the table. Without gnuplot it says so and writes the data only. `ylabel` names the unit;
 * `log_scale` for values spanning orders of magnitude. At most 8 series and 64 rows; a value
 * NAN is a missing bar. Call bench_report_chart once, then bench_report_chart_row per row. */
void bench_report_chart(bench_report *r, const char *title, const char *ylabel, bool log_scale,
                        int series, const char *const *series_names);
void bench_report_chart_row(bench_report *r, const char *label, const double *values);

/* Prints the report and writes it to the results folder (ONA_BENCH_RESULTS overrides it).
 * Returns 0, or -1 when the file could not be written (the table was still printed). */
int bench_report_close(bench_report *r);

/* --- Peers and load ------------------------------------------------------------------------ */

/* Finds `name` on PATH; writes its path to `out` (size bytes). False when it is not there. */
bool bench_find_program(const char *name, char *out, size_t size);

/* Runs argv[0] (a path) with argv as a child process, its stderr to /dev/null, and collects its
 * stdout into `out` (NUL-terminated, truncated at size - 1). Kills it after timeout_s seconds.
 * Returns its exit status, or -1 when it could not run or was killed. */
int bench_run_capture(char *const argv[], char *out, size_t size, double timeout_s);

/* Load from another process: starts a child that spins on one core until bench_load_stop
 * (the "loaded" rows: what a second program busy on the machine does to a benchmark). Returns
 * its pid, or -1. */
int bench_load_start(void);
void bench_load_stop(int pid);
/* /proc/loadavg's line ("1.05 0.90 0.80 2/120 4242", "unknown" where it cannot be read) into
 * `out`: how busy the shared machine was, for the report. */
void bench_load_text(char *out, size_t size);

/* --- Runtimes ------------------------------------------------------------------------------ */

typedef struct ona_runtime ona_runtime;
typedef struct ona_runtime_desc ona_runtime_desc;

/* ona_runtime_create, or the program ends with "<who>: ona_runtime_create: <error>" (a benchmark
 * without its runtime measures nothing). */
ona_runtime *bench_runtime(const ona_runtime_desc *desc, const char *who);
/* One frame of 1/60 s (ona_runtime_step); an error ends the program, as above. */
void bench_step(ona_runtime *rt, const char *who);

/* Keeps the compiler from optimising `p` away. */
static inline void bench_escape(const void *p) {
    __asm__ volatile("" : : "g"(p) : "memory");
}

#endif
